#!/usr/bin/env bash
# run_load_test.sh MILTER DICT LOAD: a short bench/milter/milter_load run
# against the real daemon, so the load tool cannot rot again (issue 23: it
# waited for a reply to CONNECT the milter had negotiated away, and hung).
#   - starts `MILTER -f -c <temp config>` on a unix socket in a temporary
#     directory, with a temporary store;
#   - `LOAD --connections 4 --seconds 2` with fixture mail, as Postfix
#     negotiates (no-reply steps offered): it must end within 30 s with
#     messages > 0 and failures == 0;
#   - the same with --no-nr (an MTA that offers no no-reply flag: every step
#     answered) and two recipients;
#   - a listener that accepts and never answers: LOAD --timeout 1 must give
#     up on each connection (failures=2, exit 1) instead of hanging;
#   - SIGTERM: the daemon exits 0.
# Exit status: 0 passed, 1 failed.
set -uo pipefail

milter=$1
dict=$2
load=$3
here=$(cd "$(dirname "$0")" && pwd)
mail=$here/../fixtures/mail

work=$(mktemp -d)
pid=""
silent=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  if [ -n "$silent" ] && kill -0 "$silent" 2>/dev/null; then kill -KILL "$silent"; fi
  rm -rf "$work"
}
trap cleanup EXIT
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}

cat >"$work/mailwave.toml" <<CONF
[langid]
dictionary = "$dict"

[store]
path = "$work/store/mailwave.db"

[milter]
socket = "unix:$work/milter.sock"

[metrics]
listen = ""
CONF
mkdir "$work/store"

"$milter" -f -c "$work/mailwave.toml" 2>"$work/milter.log" &
pid=$!
for _ in $(seq 1 100); do
  [ -S "$work/milter.sock" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if [ ! -S "$work/milter.sock" ]; then
  echo "FAIL: no socket after 10 s"
  cat "$work/milter.log"
  exit 1
fi

# field NAME LINE: the value of NAME=... in LINE.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

# run NAME ARGS...: one milter_load run; checks it ended in time, its exit
# status, messages > 0 and failures == 0.
run() {
  local name=$1
  shift
  local out status line messages failures
  out=$(timeout 30 "$load" --socket "unix:$work/milter.sock" --connections 4 \
    --seconds 2 "$@" "$mail/spam-419.eml" "$mail/encoding-7bit.eml" 2>&1)
  status=$?
  echo "$out"
  last_out=$out
  line=$(grep '^connections=' <<<"$out")
  messages=$(field messages "$line")
  failures=$(field failures "$line")
  if [ "$status" = 124 ]; then
    fail "$name: milter_load did not end within 30 s"
  elif [ "$status" != 0 ]; then
    fail "$name: milter_load exit $status"
  elif [ -z "$messages" ] || [ "$messages" -le 0 ]; then
    fail "$name: messages=$messages, want > 0"
  elif [ "$failures" != 0 ]; then
    fail "$name: failures=$failures, want 0"
  else
    echo "PASS: $name ($messages messages)"
  fi
}

run "milter_load, no-reply steps offered"
run "milter_load --no-nr" --no-nr --rcpt a@example.org --rcpt b@example.org

# --sample: one line a second of the messages answered in it and their
# latency, with the daemon's memory (--pid).
run "milter_load --sample 1" --sample 1 --pid "$pid"
samples=$(grep '^sample t=' <<<"$last_out")
if [ "$(grep -c . <<<"$samples")" -lt 1 ]; then
  fail "--sample 1: no sample line in a 2 s run"
elif ! grep -Eq '^sample t=1 messages_per_s=[0-9.]+ latency_ms p50=[0-9.]+ p99=[0-9.]+ max=[0-9.]+ milter_rss_kib=[1-9][0-9]*$' <<<"$samples"; then
  fail "--sample 1: a sample line is not as documented: $samples"
elif [ "$(field messages_per_s "$(head -1 <<<"$samples")" | cut -d. -f1)" -le 0 ]; then
  fail "--sample 1: the first second answered no message"
else
  echo "PASS: --sample 1 prints the interval's rate, latency and memory"
fi

# The daemon logged the messages (queue ids LOAD<connection>x<n>).
grep -q "^mailwave-milter: LOAD[0-9]*x[0-9]*: " "$work/milter.log" ||
  fail "no log line for a LOAD message"

# A milter that never answers: each connection gives up after --timeout.
python3 - "$work/silent.sock" <<'PY' &
import socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(8)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
PY
silent=$!
for _ in $(seq 1 100); do
  [ -S "$work/silent.sock" ] && break
  sleep 0.1
done
start=$SECONDS
out=$(timeout 30 "$load" --socket "unix:$work/silent.sock" --connections 2 --seconds 1 \
  --timeout 1 "$mail/encoding-7bit.eml" 2>&1)
status=$?
echo "$out"
failures=$(field failures "$(grep '^connections=' <<<"$out")")
if [ "$status" = 124 ]; then
  fail "a silent milter: milter_load did not end within 30 s"
elif [ "$status" != 1 ] || [ "$failures" != 2 ]; then
  fail "a silent milter: exit $status failures=$failures, want exit 1 failures=2"
elif [ "$(grep -c 'no reply to OPTNEG within 1 s' <<<"$out")" != 2 ]; then
  fail "a silent milter: the timeout is not reported for each connection"
else
  echo "PASS: a silent milter: each connection gave up ($((SECONDS - start)) s)"
fi
kill -TERM "$silent"
wait "$silent" 2>/dev/null
silent=""

if ! kill -0 "$pid" 2>/dev/null; then
  fail "the daemon died during the runs"
else
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  pid=""
  [ "$status" = 0 ] || fail "the daemon: exit $status after SIGTERM"
fi

if [ "$failed" != 0 ]; then
  echo "--- daemon log (last 40 lines)"
  tail -n 40 "$work/milter.log"
  exit 1
fi
echo "--- daemon log (first and last 5 lines)"
head -n 5 "$work/milter.log"
tail -n 5 "$work/milter.log"
exit 0
