#!/usr/bin/env bash
# run_load_test.sh MILTER DICT LOAD FILE: bench/milter/milter_load against a
# daemon, tried as a new user would (issue 23: it used to wait for a reply
# to CONNECT that the milter had negotiated away): 2 connections for 2
# seconds must deliver messages with no failure, well within the timeout.
# Exit status: 0 passed, 1 failed.
set -uo pipefail
milter=$1
dict=$2
load=$3
file=$4
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  rm -rf "$work"
}
trap cleanup EXIT
printf '[langid]\ndictionary = "%s"\n[store]\npath = "%s/mailwave.db"\n[milter]\nsocket = "unix:%s/milter.sock"\n[metrics]\nlisten = ""\n' \
  "$dict" "$work" "$work" >"$work/mailwave.toml"
"$milter" -f -c "$work/mailwave.toml" 2>"$work/milter.log" &
pid=$!
for _ in $(seq 1 100); do
  [ -S "$work/milter.sock" ] && break
  kill -0 "$pid" 2>/dev/null || { echo "FAIL: the milter exited"; cat "$work/milter.log"; exit 1; }
  sleep 0.1
done
out=$(timeout 30 "$load" --socket "unix:$work/milter.sock" --connections 2 --seconds 2 "$file" 2>&1)
status=$?
echo "$out"
if [ "$status" != 0 ]; then
  echo "FAIL: milter_load exited $status (124: it hung)"
  exit 1
fi
grep -q "failures=0" <<<"$out" && grep -qE "messages=[1-9]" <<<"$out" ||
  { echo "FAIL: no messages, or failures"; exit 1; }
kill -TERM "$pid"
wait "$pid" || { echo "FAIL: the milter exited $? after SIGTERM"; exit 1; }
pid=""
echo "PASS: milter_load"
