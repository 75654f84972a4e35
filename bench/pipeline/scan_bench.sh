#!/bin/sh
# End-to-end `mailwave scan` over the developer corpus (shared/data/mail,
# 3,783 messages), with the split per stage from the JSON's meta.
#
# Usage: bench/pipeline/scan_bench.sh [BUILD_DIR] [CORPUS] [EXTRA SCAN OPTIONS...]
#   BUILD_DIR defaults to build, CORPUS to ../shared/data/mail (beside the
#   repository). Skips (exit 0) when the corpus is absent.
set -eu
build=${1:-build}
corpus=${2:-../shared/data/mail}
[ $# -ge 2 ] && shift 2 || shift $#
if [ ! -d "$corpus" ]; then
  echo "scan_bench: no corpus at $corpus, skipped"
  exit 0
fi
out=$(mktemp /tmp/mw-scan-bench-XXXXXX.json)
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
"$build/bin/mailwave" scan --quiet --out "$out" "$@" "$corpus"
end=$(date +%s.%N)
python3 - "$out" "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["meta"]
s = m["seconds"]
wall = float(sys.argv[3]) - float(sys.argv[2])
print(f"messages {m['messages']}  clusters {m['clusters']}  clustered "
      f"{m['clustered']}  backend {m['backend']}  threads {m['threads']}")
print(f"pairs {json.dumps(m['pairs'])}")
print(f"process wall {wall:.2f} s; scan total {s['total']:.2f} s = "
      f"read+analyse {s['read_analyse']:.2f} (thread time: read {s['read']:.2f},"
      f" analyse {s['analyse']:.2f}) + candidates {s['candidates']:.2f} + "
      f"verify {s['verify']:.2f} (texts read again {s['text_load']:.2f}) + cluster {s['cluster']:.2f}")
methods = {}
for msg in d["messages"]:
    if msg["method"]:
        methods[msg["method"]] = methods.get(msg["method"], 0) + 1
print(f"members by method {json.dumps(dict(sorted(methods.items())))}")
PY
