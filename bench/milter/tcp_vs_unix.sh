#!/usr/bin/env bash
# tcp_vs_unix.sh [N]: messages per second through mailwave-milter over a unix
# socket and over TCP on loopback, N messages (default 200) on one milter
# connection each, driven by Debian's miltertest, measured in the same run:
#   unix socket
#   TCP with TCP_NODELAY on the listening socket (what mailwave-milter does)
#   TCP with Nagle's algorithm left on (MAILWAVE_MILTER_NAGLE=1: libmilter's
#   own behaviour, the baseline the fix is measured against)
# Needs a build (build/bin/mailwave-milter, build/share/mailwave/langid.dict)
# and miltertest (scripts/setup installs it).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-200}
milter=$here/build/bin/mailwave-milter
dict=$here/build/share/mailwave/langid.dict
work=$(mktemp -d)
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT

run() {  # run LABEL SOCKET [ENV...]
  local label=$1 sock=$2
  shift 2
  rm -f "$work"/*.db* "$work/secret"
  printf '[langid]\ndictionary = "%s"\n[store]\npath = "%s/bench.db"\n[milter]\nsocket = "%s"\n' \
    "$dict" "$work" "$sock" >"$work/m.toml"
  env "$@" "$milter" -f -c "$work/m.toml" 2>"$work/milter.log" &
  pid=$!
  for _ in $(seq 100); do
    grep -q "listening on" "$work/milter.log" 2>/dev/null && break
    sleep 0.05
  done
  local t0 t1
  t0=$(date +%s.%N)
  miltertest -D sock="$sock" -D n="$n" -D tests="$here/tests/milter" \
    -s "$here/bench/milter/many.lua" >"$work/mt.out" 2>&1 ||
    { cat "$work/mt.out"; exit 1; }
  t1=$(date +%s.%N)
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  awk -v l="$label" -v n="$n" -v a="$t0" -v b="$t1" \
    'BEGIN { printf "%-34s %6d messages %7.2f s %8.1f messages/s\n", l, n, b - a, n / (b - a) }'
}

run "unix socket" "unix:$work/m.sock"
run "TCP, NODELAY + quick ACKs (mailwave)" "inet:$((20000 + RANDOM % 20000))@127.0.0.1"
run "TCP, Nagle on (libmilter alone)" "inet:$((20000 + RANDOM % 20000))@127.0.0.1" \
  MAILWAVE_MILTER_NAGLE=1
