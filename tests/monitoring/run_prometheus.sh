#!/usr/bin/env bash
# run_prometheus.sh MILTER DICT: a real Prometheus (Debian's) scrapes a
# running mailwave-milter, with milter/dist/mailwave.rules.yml loaded, so the
# exposition format is proven against the real parser, not only our own
# checker (tests/milter/check_metrics.py):
#   - the target's health is "up" and its last scrape had no error;
#   - mailwave_messages_total reads 1 after one message (miltertest), and a
#     histogram's buckets answer histogram_quantile;
#   - every rule of the file is loaded and evaluates without an error, and
#     none fires against a healthy milter.
# Exit 0 passed, 1 failed, 77 skipped (no prometheus or miltertest).
set -uo pipefail

milter=$1
dict=$2
here=$(cd "$(dirname "$0")" && pwd)
for tool in prometheus miltertest curl python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool is not installed (scripts/setup installs it)"
    exit 77
  fi
done

work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
pass() { echo "PASS: $*"; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# The milter, its metrics on an ephemeral port (read back from its log).
sock=$work/milter.sock
mkdir -p "$work/store"
cat >"$work/mailwave.toml" <<EOT
[langid]
dictionary = "$dict"
[store]
path = "$work/store/mailwave.db"
[milter]
socket = "unix:$sock"
[metrics]
listen = "127.0.0.1:0"
EOT
"$milter" -f -c "$work/mailwave.toml" 2>"$work/milter.log" &
pids+=("$!")
disown "$!"  # killed by cleanup, without the shell's "Killed" report
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's/^mailwave-milter: metrics: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
    "$work/milter.log")
  [ -n "$port" ] && [ -S "$sock" ] && break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "FAIL: the milter did not start: $(cat "$work/milter.log")"
  exit 1
fi

# One message, so the counters and histograms have samples.
out=$(timeout 60 miltertest -D "sock=unix:$sock" -D "dir=$here/../milter" \
  -s "$here/../milter/language.lua" 2>&1)
grep -q "miltertest: PASS" <<<"$out" || fail "miltertest: $out"

# Prometheus: scrape every second, our rules evaluated every second.
prom_port=$(free_port)
cat >"$work/prometheus.yml" <<EOT
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $here/../../milter/dist/mailwave.rules.yml
scrape_configs:
  - job_name: mailwave
    static_configs:
      - targets: ["127.0.0.1:$port"]
EOT
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
pids+=("$!")
disown "$!"
api=http://127.0.0.1:$prom_port/api/v1

# jq-free JSON reading: python3, one expression over the response.
json() {  # URL EXPR (a Python expression over `d`)
  curl -sS -G "$1" ${3:+--data-urlencode "$3"} 2>/dev/null |
    python3 -c "import json, sys; d = json.load(sys.stdin); print($2)" 2>/dev/null
}

health=""
for _ in $(seq 1 150); do
  health=$(json "$api/targets" \
    '" ".join(t["health"] + ":" + t["lastError"] for t in d["data"]["activeTargets"])')
  [ "$health" = "up:" ] && break
  sleep 0.2
done
[ "$health" = "up:" ] && pass "Prometheus scrapes the milter: target up, no scrape error" ||
  fail "target health '$health'; prometheus log: $(tail -5 "$work/prometheus.log")"

value=""
for _ in $(seq 1 50); do
  value=$(json "$api/query" 'd["data"]["result"][0]["value"][1]' \
    'query=mailwave_messages_total{job="mailwave"}')
  [ -n "$value" ] && break
  sleep 0.2
done
[ "$value" = 1 ] && pass "mailwave_messages_total is 1 after one message" ||
  fail "mailwave_messages_total: '$value'"
q=$(json "$api/query" 'd["data"]["result"][0]["value"][1]' \
  'query=histogram_quantile(0.5, mailwave_check_seconds_bucket{job="mailwave"})')
python3 -c "import sys; v = float(sys.argv[1]); sys.exit(0 if 0 < v < 10 else 1)" "$q" 2>/dev/null &&
  pass "histogram_quantile over mailwave_check_seconds: $q s" ||
  fail "histogram_quantile over mailwave_check_seconds: '$q'"

# Each rule evaluated at least once, healthy; none firing.
rules=""
for _ in $(seq 1 50); do
  rules=$(json "$api/rules" \
    '" ".join(sorted(r["name"] + "=" + r["health"] + "/" + r["state"] for g in d["data"]["groups"] for r in g["rules"]))')
  [ -n "$rules" ] && ! grep -q "unknown" <<<"$rules" && break
  sleep 0.2
done
want=$(grep -o 'alert: Mailwave[A-Za-z]*' "$here/../../milter/dist/mailwave.rules.yml" |
  sed 's/alert: //; s/$/=ok\/inactive/' | sort | tr '\n' ' ' | sed 's/ $//')
[ "$rules" = "$want" ] && pass "every rule loaded, healthy and quiet: $rules" ||
  fail "rules: '$rules', want '$want'"

kill -TERM "${pids[0]}" 2>/dev/null
if [ "$failed" != 0 ]; then
  echo "--- milter log"
  tail -20 "$work/milter.log"
  exit 1
fi
exit 0
