#!/usr/bin/env bash
# run_rules_test.sh: milter/dist/mailwave.rules.yml passes `promtool check
# rules` and the unit tests in mailwave.rules.test.yml (`promtool test
# rules`). Exit 0 passed, 1 failed, 77 skipped (no promtool: Debian package
# prometheus, which scripts/setup installs).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v promtool >/dev/null 2>&1; then
  echo "SKIP: promtool is not installed (Debian package prometheus)"
  exit 77
fi
status=0
promtool check rules "$here/../../milter/dist/mailwave.rules.yml" || status=1
(cd "$here" && promtool test rules mailwave.rules.test.yml) || status=1
exit $status
