#!/usr/bin/env bash
# check_no_libc_symbols.sh MILTER: fails when the executable exports a
# dynamic symbol that libc also defines (a shim that would steer every
# library's read, accept or sigwait in the process; issue 23).
# Exit status: 0 none, 1 some (listed), 77 skipped (no nm or no libc found).
set -uo pipefail
milter=$1
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm"; exit 77; }
libc=$(ldd "$milter" 2>/dev/null | awk '/libc\.so/ {print $3; exit}')
[ -n "$libc" ] || libc=/lib/x86_64-linux-gnu/libc.so.6
[ -r "$libc" ] || { echo "SKIP: no libc at $libc"; exit 77; }
shared=$(comm -12 \
  <(nm -D --defined-only "$milter" | awk '{print $3}' | sort -u) \
  <(nm -D --defined-only "$libc" | awk '{print $3}' | sed 's/@.*//' | sort -u))
if [ -n "$shared" ]; then
  echo "FAIL: $milter defines symbols libc defines:"
  echo "$shared"
  exit 1
fi
echo "PASS: $milter defines no libc symbol"
