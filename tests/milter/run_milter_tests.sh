#!/usr/bin/env bash
# run_milter_tests.sh MILTER DICT: drives mailwave-milter with Debian's
# miltertest. Starts `MILTER -f -c <temp config>` on a unix socket in a temp
# directory with a temp store, runs every tests/milter/*.lua against it (one
# daemon, so the scripts run in name order; wave.lua needs a store that has
# not seen its body), reads its metrics endpoint (an ephemeral loopback
# port; tests/milter/check_metrics.py checks the format and reads values),
# then stops it with SIGTERM and checks a clean exit.
# Exit status: 0 passed, 1 failed, 77 skipped (miltertest is not installed:
# scripts/setup installs it).
set -uo pipefail

if ! command -v miltertest >/dev/null 2>&1; then
  echo "SKIP: miltertest is not installed (Debian package miltertest)"
  exit 77
fi

milter=$1
dict=$2
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  echo "--- daemon log"
  cat "$work/milter.log" 2>/dev/null
  if [ -s "$work/action.log" ]; then
    echo "--- action daemon log"
    cat "$work/action.log"
  fi
  exit 1
}

# A bad on_error is a configuration error, exit 2, naming file and key.
printf '[milter]\non_error = "reject"\n' >"$work/bad.toml"
out=$(timeout 20 "$milter" -f -c "$work/bad.toml" 2>&1)
status=$?
[ "$status" = 2 ] || fail "on_error = reject: exit $status, want 2 ($out)"
[ "$out" = "mailwave-milter: $work/bad.toml: milter.on_error: must be accept or tempfail" ] ||
  fail "on_error = reject: says '$out'"

# A [metrics] listen that is not IP:port is one too.
printf '[metrics]\nlisten = "localhost:9477"\n' >"$work/badlisten.toml"
out=$("$milter" -f -c "$work/badlisten.toml" 2>&1)
status=$?
[ "$status" = 2 ] || fail "listen = localhost:9477: exit $status, want 2 ($out)"
[ "$out" = "mailwave-milter: $work/badlisten.toml: metrics.listen: \"localhost:9477\": not an IP address" ] ||
  fail "listen = localhost:9477: says '$out'"

# An unknown [gpu] backend is a configuration error too.
printf '[gpu]\nbackend = "opencl"\n' >"$work/badgpu.toml"
out=$("$milter" -f -c "$work/badgpu.toml" 2>&1)
status=$?
[ "$status" = 2 ] || fail "gpu.backend = opencl: exit $status, want 2 ($out)"
[ "$out" = "mailwave-milter: $work/badgpu.toml: gpu.backend: unknown backend \"opencl\" (auto, cpu or cuda)" ] ||
  fail "gpu.backend = opencl: says '$out'"

# Usage and a missing file: exit 2; a socket that cannot be made: exit 1,
# naming it.
"$milter" -x >/dev/null 2>&1
status=$?
[ "$status" = 2 ] || fail "-x: exit $status, want 2"
"$milter" -f -c "$work/absent.toml" >/dev/null 2>&1
status=$?
[ "$status" = 2 ] || fail "a missing -c file: exit $status, want 2"
printf '[langid]\ndictionary = "%s"\n[store]\npath = "%s"\n[milter]\nsocket = "unix:%s"\n' \
  "$dict" "$work/nosock.db" "$work/afile/milter.sock" >"$work/nosock.toml"
# (a missing directory would be made: a file where it should be cannot be)
touch "$work/afile"
out=$(timeout 20 "$milter" -f -c "$work/nosock.toml" 2>&1)
status=$?
[ "$status" = 1 ] || fail "an impossible socket: exit $status, want 1 ($out)"
grep -q "$work/afile: not a directory" <<<"$out" ||
  fail "an impossible socket: says '$out'"

# [gpu] backend = "cuda" without a device: no start (exit 1, the reason said)
# rather than a milter that quietly runs on the CPU. Where a device answers,
# the milter starts and this check has nothing to say.
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  printf '[langid]\ndictionary = "%s"\n[store]\npath = "%s"\n[milter]\nsocket = "unix:%s"\n[metrics]\nlisten = ""\n[gpu]\nbackend = "cuda"\n' \
    "$dict" "$work/cuda.db" "$work/cuda.sock" >"$work/cuda.toml"
  out=$(timeout 20 "$milter" -f -c "$work/cuda.toml" 2>&1)
  status=$?
  [ "$status" = 1 ] || fail "gpu.backend = cuda without a device: exit $status, want 1 ($out)"
  # (a build without CUDA, such as the sanitizer build, says so instead)
  grep -qE "gpu: (cuda: no usable device|built without CUDA)" <<<"$out" ||
    fail "gpu.backend = cuda without a device: says '$out'"
fi

cat >"$work/mailwave.toml" <<CONF
[mime]
max_bytes = "4KiB"

[langid]
dictionary = "$dict"

[store]
path = "$work/store/mailwave.db"

[milter]
socket = "unix:$work/milter.sock"
trusted_relays = "192.0.2.0/24, 2001:db8::/32"

[metrics]
listen = "127.0.0.1:0"
CONF
mkdir "$work/store"

"$milter" -f -c "$work/mailwave.toml" 2>"$work/milter.log" &
pid=$!
for _ in $(seq 1 100); do
  [ -S "$work/milter.sock" ] && break
  kill -0 "$pid" 2>/dev/null || fail "mailwave-milter exited at start"
  sleep 0.1
done
[ -S "$work/milter.sock" ] || fail "no socket after 10 s"
for _ in $(seq 1 100); do
  grep -q "^mailwave-milter: metrics: listening on " "$work/milter.log" && break
  sleep 0.1
done
port=$(sed -n 's/^mailwave-milter: metrics: listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
  "$work/milter.log")
[ -n "$port" ] || fail "no metrics port in the log"
metrics="http://127.0.0.1:$port/metrics"

failed=0
for script in "$here"/*.lua; do
  name=$(basename "$script")
  [ "$name" = common.lua ] && continue
  if out=$(timeout 60 miltertest -D "sock=unix:$work/milter.sock" -D "dir=$here" \
      -s "$script" 2>&1) && grep -q "miltertest: PASS" <<<"$out"; then
    echo "PASS: $name"
  else
    echo "FAIL: $name"
    echo "$out"
    failed=1
  fi
done

# One log line per message, with its queue id.
qids=(LANG1 WAVE1 WAVE2 FORGED1 EMPTY1 EMPTY2 EMPTY3 EMPTY4 LARGE1 EDGE1 EDGE2 EDGE4 TRUST2
  RCPT1 RCPT2)
for qid in "${qids[@]}"; do
  grep -q "^mailwave-milter: $qid: " "$work/milter.log" || {
    echo "FAIL: no log line for $qid"
    failed=1
  }
done
grep -q "^mailwave-milter: WAVE2: .* verdict=cluster:[0-9a-f]\{8\} members=2 " \
  "$work/milter.log" || { echo "FAIL: WAVE2's log line has no verdict"; failed=1; }

grep -q "^mailwave-milter: RCPT2: .* members=2 wave=no kind=spread why=unauth action=none " \
  "$work/milter.log" || { echo "FAIL: RCPT2's log line lacks kind, why and action"; failed=1; }

grep -q "^mailwave-milter: LARGE1: .* too_large read=4096 " "$work/milter.log" ||
  { echo "FAIL: LARGE1's log line does not say too_large read=4096"; failed=1; }

# The metrics: well-formed, one message counted per message sent, one verdict
# each, WAVE2's cluster verdict; other paths 404, other methods 405; a
# second milter whose metrics port is taken logs it and serves mail anyway.
check_metrics() { python3 "$here/check_metrics.py" "$@"; }
if ! curl -sS -o "$work/metrics.txt" -D "$work/metrics.head" "$metrics"; then
  echo "FAIL: GET $metrics"
  failed=1
elif ! grep -qi '^Content-Type: text/plain; version=0.0.4' "$work/metrics.head"; then
  echo "FAIL: /metrics Content-Type: $(grep -i '^Content-Type' "$work/metrics.head")"
  failed=1
elif ! out=$(check_metrics "$work/metrics.txt" mailwave_messages_total \
    'mailwave_verdicts_total{verdict="none"}' \
    'mailwave_verdicts_total{verdict="cluster"}' \
    'mailwave_verdicts_total{verdict="wave"}' \
    'mailwave_verdicts_total{verdict="trusted"}' \
    'mailwave_stage_cpu_seconds_count{stage="parse"}' \
    mailwave_check_seconds_count); then
  echo "FAIL: /metrics: $out"
  failed=1
else
  read -r -d '' messages none cluster wave trusted parsed checked <<<"$out"
  # the analysed messages, and TRUST1 (trusted.lua), counted but not checked
  sent=$((${#qids[@]} + 1))
  if [ "$messages" != "$sent" ] || [ $((none + cluster + wave + trusted)) != "$sent" ] ||
      [ "$cluster" -lt 1 ] || [ "$trusted" != 1 ] || [ "$checked" != $((sent - 1)) ] ||
      [ "$parsed" -lt 1 ]; then
    echo "FAIL: /metrics after $sent messages: messages=$messages verdicts" \
      "none=$none cluster=$cluster wave=$wave trusted=$trusted checked=$checked parsed=$parsed"
    failed=1
  else
    echo "PASS: metrics ($messages messages, none=$none cluster=$cluster)"
  fi
fi
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/")
[ "$code" = 404 ] || { echo "FAIL: GET / answered $code, want 404"; failed=1; }
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$metrics")
[ "$code" = 405 ] || { echo "FAIL: POST /metrics answered $code, want 405"; failed=1; }

sed -e "s|^socket = .*|socket = \"unix:$work/second.sock\"|" \
  -e "s|^listen = .*|listen = \"127.0.0.1:$port\"|" \
  -e "s|^path = .*|path = \"$work/store/second.db\"|" \
  "$work/mailwave.toml" >"$work/second.toml"
"$milter" -f -c "$work/second.toml" 2>"$work/second.log" &
second=$!
for _ in $(seq 1 100); do
  grep -q "running without metrics" "$work/second.log" && [ -S "$work/second.sock" ] && break
  sleep 0.1
done
if ! grep -q "^mailwave-milter: metrics: cannot bind 127.0.0.1:$port: .*; running without metrics$" \
    "$work/second.log" || ! kill -0 "$second" 2>/dev/null; then
  echo "FAIL: a second milter on the same metrics port:"
  cat "$work/second.log"
  failed=1
fi
kill -TERM "$second" 2>/dev/null
wait "$second" || { echo "FAIL: the second milter: exit $? after SIGTERM"; failed=1; }

kill -TERM "$pid"
status=0
wait "$pid" || status=$?
grep -q "^mailwave-milter: TRUST1: trusted relay: kept 2 incoming X-Mailwave headers; not analysed$" \
  "$work/milter.log" || { echo "FAIL: no 'trusted relay' line for TRUST1"; failed=1; }
# The dropped connection (edge.lua) and the aborted message (empty.lua) must
# not stay counted in flight: the stop would wait for them.
if grep -q "messages in flight" "$work/milter.log"; then
  echo "FAIL: a message stayed in flight after its connection ended"
  failed=1
fi
pid=""
[ "$status" = 0 ] || { echo "FAIL: exit $status after SIGTERM"; failed=1; }

# [wave] action (tests/milter/action/action.lua): one daemon with min_size 2,
# reloaded (SIGHUP) for each action with a fresh store, so each action's
# first copy starts its own cluster.
action_conf() {
  cat >"$work/action.toml" <<CONF
[langid]
dictionary = "$dict"

[store]
path = "$work/store/action-$1.db"

[wave]
min_size = 2
action = "$1"

[milter]
socket = "unix:$work/action.sock"

[metrics]
listen = ""
CONF
}
action_conf reject
"$milter" -f -c "$work/action.toml" 2>"$work/action.log" &
pid=$!
for _ in $(seq 1 100); do
  [ -S "$work/action.sock" ] && break
  sleep 0.1
done
reloads=0
for action in reject tempfail quarantine header; do
  if [ "$action" != reject ]; then
    action_conf "$action"
    reloads=$((reloads + 1))
    kill -HUP "$pid"
    for _ in $(seq 1 100); do
      [ "$(grep -c '^mailwave-milter: reloaded ' "$work/action.log")" -ge "$reloads" ] && break
      sleep 0.1
    done
  fi
  q=$(tr '[:lower:]' '[:upper:]' <<<"$action")
  if out=$(timeout 60 miltertest -D "sock=unix:$work/action.sock" -D "dir=$here" \
      -D "action=$action" -D "qid=$q" -s "$here/action/action.lua" 2>&1) &&
    grep -q "miltertest: PASS" <<<"$out"; then
    echo "PASS: action.lua ($action)"
  else
    echo "FAIL: action.lua ($action)"
    echo "$out"
    failed=1
  fi
  want=$action
  [ "$action" = header ] && want=none
  grep -q "^mailwave-milter: ${q}2: .* wave=yes kind=spread why=unauth action=$want " \
    "$work/action.log" || { echo "FAIL: no log line for ${q}2 with action=$want"; failed=1; }
done
if grep -q 'did not take' "$work/action.log"; then
  echo "FAIL: the MTA side refused an action: $(grep 'did not take' "$work/action.log")"
  failed=1
fi
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
pid=""
[ "$status" = 0 ] || { echo "FAIL: the action daemon: exit $status after SIGTERM"; failed=1; }
if [ "$failed" != 0 ]; then
  fail "see above"
fi
echo "--- daemon log"
cat "$work/milter.log"
echo "--- action daemon log"
cat "$work/action.log"
exit 0
