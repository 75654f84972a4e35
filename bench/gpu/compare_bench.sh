#!/usr/bin/env bash
# The comparison engine's benchmark (issue 12), on the CPU unless BACKEND says
# otherwise: all-pairs CTPH and SimHash at N = 1,000 .. 20,000, one batch of
# 64 queries against windows of 100,000 and 1,000,000 signatures, and, where
# the dev corpus is present, all-pairs over its real fingerprints. Prints the
# JSON lines of `mailwave bench compare` and a table.
#
# Usage: bench/gpu/compare_bench.sh [MAILWAVE]   (default build/bin/mailwave)
# Environment: BACKEND (cpu), THREADS (0: every core), MAX_SECONDS (150): the
# budget of the whole script; a run whose estimate (from the pair rate of the
# previous size) would take it past the budget is skipped and reported.
# SIZES ("1000 2000 5000 10000 20000"): the all-pairs N; WINDOWS ("100000
# 1000000"): the window sizes; REPEAT (1): runs of each search, the median of
# runs 2..REPEAT reported (the first, with a GPU's start-up and upload, apart
# as "first").
set -euo pipefail
cd "$(dirname "$0")/../.."
MAILWAVE=${1:-build/bin/mailwave}
BACKEND=${BACKEND:-cpu}
THREADS=${THREADS:-0}
MAX_SECONDS=${MAX_SECONDS:-150}
SIZES=${SIZES:-1000 2000 5000 10000 20000}
WINDOWS=${WINDOWS:-100000 1000000}
REPEAT=${REPEAT:-1}
CORPUS=${CORPUS:-../shared/data/mail}
start=$(date +%s)
results=$(mktemp)
trap 'rm -f "$results"' EXIT

elapsed() { echo $(( $(date +%s) - start )); }

# run ESTIMATE_SECONDS ARGS...: runs `mailwave bench compare ARGS` unless the
# estimate would take the script past MAX_SECONDS.
run() {
  local estimate=$1
  shift
  if (( $(elapsed) + estimate > MAX_SECONDS )); then
    echo "skipped (estimated ${estimate}s, budget ${MAX_SECONDS}s): $*" >&2
    echo "{\"skipped\":true,\"args\":\"$*\"}" >> "$results"
    return
  fi
  local line
  line=$("$MAILWAVE" bench compare --backend "$BACKEND" --threads "$THREADS" \
    --repeat "$REPEAT" "$@")
  echo "$line"
  echo "$line" >> "$results"
}

for kind in ctph simhash; do
  rate=0  # pairs per second of the last run of this kind
  for n in $SIZES; do
    pairs=$(( n * (n - 1) / 2 ))
    est=1
    if [[ $rate != 0 ]]; then est=$(jq -n "($pairs / $rate) * 1.5 * $REPEAT + 1 | ceil"); fi
    run "$est" --n "$n" --kind "$kind" --mode all-pairs
    rate=$(tail -1 "$results" | jq -r '.pairs_per_second // 0')
  done
done
for kind in ctph simhash sketch; do
  for w in $WINDOWS; do
    run $(( w / 100000 + 2 )) --n "$w" --kind "$kind" --mode window --queries 64
  done
done
if [[ -d $CORPUS ]]; then
  for kind in ctph simhash sketch; do
    run 20 --corpus "$CORPUS" --kind "$kind" --mode all-pairs
  done
else
  echo "dev corpus absent ($CORPUS): real-signature runs skipped" >&2
fi

echo
printf '%-10s %-8s %-10s %9s %14s %8s %11s %11s %12s\n' \
  mode kind source n pairs matches seconds first pairs/s
jq -r 'select(.skipped != true) |
  [.mode, .kind, .source, .n, .pairs, .matches, (.seconds*1e6|round/1e6),
   ((.first_seconds // .seconds)*1e6|round/1e6),
   (.pairs_per_second|floor)] | @tsv' "$results" |
  while IFS=$'\t' read -r mode kind source n pairs matches seconds first pps; do
    printf '%-10s %-8s %-10s %9s %14s %8s %11s %11s %12.3g\n' \
      "$mode" "$kind" "$source" "$n" "$pairs" "$matches" "$seconds" "$first" "$pps"
  done
jq -r 'select(.skipped == true) | "skipped: " + .args' "$results"
echo "backend $BACKEND, threads $THREADS ($(nproc) cores), repeat $REPEAT, $(elapsed) s in all"
