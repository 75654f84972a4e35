#!/usr/bin/env bash
# run_man_test.sh MAILWAVE MILTER MANDIR: the man pages the build made
# (man/CMakeLists.txt) against the programs that made them.
#   - each page is what its program prints now (a stale page fails);
#   - each renders with no warning from groff (-ww) or man (--warnings=all);
#   - mailwave.toml(5) lists every key of `mailwave config --defaults` with
#     its default, in the order of its table;
#   - mailwave(8) holds every command of `mailwave --help`, and every line of
#     each command's --help, as the terminal shows it.
# Exit 0 passed, 1 failed, 77 skipped (no man or groff: Debian's man-db and
# groff-base, which scripts/setup installs).
set -uo pipefail
mailwave=$1
milter=$2
mandir=$3
for tool in man groff python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIP: $tool is not installed"
    exit 77
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
pass() { echo "PASS: $*"; }

check_page() {  # PAGE COMMAND...
  local page=$mandir/$1
  shift
  if ! "$@" >"$work/now" || ! cmp -s "$work/now" "$page"; then
    fail "$page is not what '$*' prints now (rebuild)"
  fi
  local warnings
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1; man --warnings=all -l "$page" 2>&1 >/dev/null)
  [ -z "$warnings" ] && pass "$(basename "$page") renders without warnings" ||
    fail "$(basename "$page"): $warnings"
}
check_page man8/mailwave.8 "$mailwave" help --man
check_page man8/mailwave-milter.8 "$milter" --man
check_page man5/mailwave.toml.5 "$mailwave" config --man

# Every key with its default, table by table, in the roff source.
"$mailwave" config --defaults >"$work/defaults.toml"
if out=$(python3 - "$work/defaults.toml" "$mandir/man5/mailwave.toml.5" <<'PY'
import re, sys
def esc(s):
    out = []
    for ch in s:
        if ch == "\\": out.append("\\e")
        elif ch == "-": out.append("\\-")
        elif ord(ch) >= 0x80: out.append("\\[u%04X]" % ord(ch))
        else: out.append(ch)
    return "".join(out)
page = open(sys.argv[2], encoding="utf-8").read()
pos, table, keys, missing = 0, None, 0, []
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    m = re.match(r"^\[(\w+)\]$", line)
    if m:
        table = m.group(1)
        at = page.find('.SH "[%s]"' % table, pos)
        if at < 0: missing.append("[%s]" % table)
        else: pos = at
        continue
    if line.startswith("#") or " = " not in line: continue
    keys += 1
    tag = "\\fB" + esc(line) + "\\fR"
    at = page.find(tag, pos)
    if at < 0: missing.append("%s: %s" % (table, line))
    else: pos = at
if missing or keys == 0:
    print("missing or out of order: " + "; ".join(missing[:5]) + (" (no keys read)" if keys == 0 else ""))
    sys.exit(1)
print("%d keys" % keys)
PY
); then
  pass "mailwave.toml(5) lists every key of config --defaults with its default: $out"
else
  fail "mailwave.toml(5): $out"
fi

# Every command, and every line of its help, in the rendered mailwave(8).
MANWIDTH=200 man -l "$mandir/man8/mailwave.8" 2>/dev/null | sed 's/−/-/g; s/^ *//; s/ *$//' >"$work/mailwave.txt"
commands=$("$mailwave" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
n=0
for c in $commands; do
  n=$((n + 1))
  "$mailwave" "$c" --help | sed 's/−/-/g; s/^ *//; s/ *$//' | grep . >"$work/help.txt"
  if ! grep -qxF "$c" "$work/mailwave.txt"; then
    fail "mailwave(8) has no section for $c"
    continue
  fi
  while IFS= read -r line; do
    if ! grep -qxF -- "$line" "$work/mailwave.txt"; then
      fail "mailwave(8) lacks a line of 'mailwave $c --help': $line"
      break
    fi
  done <"$work/help.txt"
done
[ "$n" -ge 10 ] || fail "only $n commands read from mailwave --help"
[ "$failed" = 0 ] && pass "mailwave(8) holds all $n commands' help, line by line"
exit $failed
