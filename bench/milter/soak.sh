#!/usr/bin/env bash
# soak.sh: mailwave-milter at a steady rate for a long time; its memory and
# its store's size over time should level off once the retention window is
# full.
#
#   bench/milter/soak.sh [MINUTES [RATE [CONNECTIONS [RETENTION]]]]
#
# Starts the milter on a unix socket in a temporary directory with
# [store] retention = RETENTION (default 5m, so the window fills early in
# the run), drives it with milter_load at RATE messages/s (default 100) over
# CONNECTIONS connections (default 20) with corpus messages, and prints one
# line per minute: elapsed, the milter's RSS, the store's files (database +
# WAL) and the messages it holds. Defaults: 30 minutes.
set -euo pipefail
minutes=${1:-30}
rate=${2:-100}
connections=${3:-20}
retention=${4:-5m}
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/mw-soak.XXXXXX)
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
if [ -d "$repo/../shared/data/mail" ]; then
  mapfile -t files < <(find "$repo/../shared/data/mail" -type f -size +1k -size -64k | sort)
else
  mapfile -t files < <(find "$repo/tests/fixtures/mail" -type f | sort)
fi
cat >"$work/mailwave.toml" <<CONF
[langid]
dictionary = "$repo/build/share/mailwave/langid.dict"
[store]
path = "$work/mailwave.db"
retention = "$retention"
[milter]
socket = "unix:$work/milter.sock"
[metrics]
listen = ""
CONF
"$repo/build/bin/mailwave-milter" -f -c "$work/mailwave.toml" 2>"$work/milter.log" &
pid=$!
for _ in $(seq 1 100); do [ -S "$work/milter.sock" ] && break; sleep 0.1; done
echo "soak: ${minutes} min at $rate messages/s over $connections connections, retention $retention, ${#files[@]} corpus files"
"$repo/build/bin/milter_load" --socket "unix:$work/milter.sock" --connections "$connections" \
  --seconds $((minutes * 60)) --rate "$rate" --pid "$pid" "${files[@]}" >"$work/load.out" &
load=$!
start=$SECONDS
while kill -0 "$load" 2>/dev/null; do
  sleep 60
  kill -0 "$load" 2>/dev/null || break
  rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
  db=$(stat -c %s "$work/mailwave.db" 2>/dev/null || echo 0)
  wal=$(stat -c %s "$work/mailwave.db-wal" 2>/dev/null || echo 0)
  held=$("$repo/build/bin/mailwave" store --store "$work/mailwave.db" --json stats 2>/dev/null |
    python3 -c 'import json,sys; print(json.load(sys.stdin).get("messages"))' 2>/dev/null || echo "?")
  echo "t=$((SECONDS - start))s milter_rss_kib=$rss store_db_bytes=$db store_wal_bytes=$wal store_messages=$held"
done
wait "$load" || true
cat "$work/load.out"
