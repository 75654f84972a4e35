#!/usr/bin/env bash
# The GPU checks of issue 26 in one run, on a lent device machine, from the
# repository root, after bench/gpu/device_pack.sh packed .gpurun here:
#   1. the CUDA parity tests (tests/gpu/cuda_test.cc), which skip elsewhere;
#   2. bench/gpu/compare_bench.sh on the device and, as the baseline, on the
#      same machine's CPU;
#   3. worker_bench: the window's latency through the worker's batches, CUDA
#      and CPU, windows of 200,000 and 1,000,000;
#   4. `mailwave scan` of the dev corpus with --backend cuda and cpu: the
#      same clusters;
#   5. check_bench --window: the daemon's window stage per message ([gpu]
#      backend auto, so CUDA here);
#   A/B (when the pack holds before/): the earlier build's window and
#      all-pairs searches against this build's, alternately, same machine;
#   6. Nsight Compute on one launch of each main kernel: instructions
#      executed, cycles and the speed-of-light figures, to set against the
#      arithmetic limit.
# Everything goes to $OUT (or ./gpu-out): log.txt and one file per part.
# STEPS (all of "tests ab compare worker scan check ncu") picks the parts.
set -uo pipefail
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
t0=$(date +%s)
STEPS=${STEPS:-tests ab compare worker scan check ncu}
want() { [[ " $STEPS " == *" $1 "* ]]; }
step() { echo; echo "=== $* ($(( $(date +%s) - t0 )) s)"; }

step unpack
xz -dc .gpurun/payload.tar.xz | tar -xf - -C .gpurun
mkdir -p build
cp -r .gpurun/build/. build/
# The tests find the corpus at MW_SOURCE_DIR/../shared (MW_SOURCE_DIR is the
# build machine's /work/main): make both paths lead here.
if [[ $PWD != /work/main ]]; then mkdir -p /work && ln -sfn "$PWD" /work/main; fi
for d in /work/shared/data "$(dirname "$PWD")/shared/data"; do
  mkdir -p "$d" && ln -sfn "$PWD/.gpurun/shared/data/mail" "$d/mail"
done
export LD_LIBRARY_PATH=$PWD/.gpurun/lib
export PATH=$PWD/.gpurun/bin:$PATH
if ! build/bin/mailwave --version >/dev/null 2>&1; then
  echo "the machine's C library cannot run the build: using the packed one"
  cat > .gpurun/run <<WRAP
#!/bin/sh
exec $PWD/.gpurun/glibc/ld-linux-x86-64.so.2 --library-path $PWD/.gpurun/lib:$PWD/.gpurun/glibc "\$@"
WRAP
  chmod +x .gpurun/run
  for b in build/bin/* .gpurun/before/*; do
    mv "$b" "$b.real"
    printf '#!/bin/sh\nexec %s/.gpurun/run %s/%s.real "$@"\n' "$PWD" "$PWD" "$b" > "$b"
    chmod +x "$b"
  done
fi
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
nproc; grep -m1 'model name' /proc/cpuinfo; uname -r
build/bin/mailwave --version

if want tests; then
step "1. CUDA parity tests"
timeout 240 build/bin/gpu_cuda_test --gtest_output="xml:$OUT/cuda_test.xml" 2>&1 |
  grep -Ev '^\[ RUN'
# Tests that pick a backend by themselves ([gpu] backend auto) and so take
# the CUDA path here, where elsewhere they take the CPU's.
for t in build/bin/*_test; do
  [[ $t == build/bin/gpu_cuda_test ]] && continue
  name=$(basename "$t")
  echo "--- $name"
  timeout 240 "$t" --gtest_output="xml:$OUT/$name.xml" 2>&1 |
    grep -E '^\[  (PASSED|FAILED|SKIPPED)|^\[==========\]|Failure|error'
done
fi

if want ab && [[ -d .gpurun/before ]]; then
step "A/B: before/ against build/ (alternately, median of 5 each)"
  for args in "--n 1000000 --mode window --kind ctph --ctph-rate 0.45" \
              "--n 200000 --mode window --kind ctph --ctph-rate 0.45" \
              "--n 1000000 --mode window --kind ctph" \
              "--n 1000000 --mode window --kind sketch" \
              "--n 20000 --mode all-pairs --kind sketch" \
              "--n 20000 --mode all-pairs --kind ctph"; do
    for round in 1 2; do
      for side in before build; do
        bin=.gpurun/before/mailwave
        [[ $side == build ]] && bin=build/bin/mailwave
        # shellcheck disable=SC2086
        line=$(timeout 60 $bin bench compare --backend cuda --repeat 5 $args)
        echo "$side $round $args: $(echo "$line" | jq -c '{seconds, first_seconds, matches}')"
      done
    done
  done | tee "$OUT/ab.txt"
  for w in 200000 1000000; do
    for side in before build; do
      bin=.gpurun/before/worker_bench
      [[ $side == build ]] && bin=build/bin/worker_bench
      echo -n "$side worker window $w: "
      timeout 40 $bin --backend cuda --window $w --clients 20 --seconds 3 \
        --batch-size 64
    done
  done | tee -a "$OUT/ab.txt"
fi

if want compare; then
step "2a. compare_bench on the device"
BACKEND=cuda REPEAT=5 SIZES="1000 20000 100000" MAX_SECONDS=120 \
  CORPUS=.gpurun/shared/data/mail timeout 150 bench/gpu/compare_bench.sh |
  tee "$OUT/compare_cuda.txt"
step "2b. compare_bench on this machine's CPU"
BACKEND=cpu REPEAT=3 SIZES="1000 20000 100000" MAX_SECONDS=100 \
  CORPUS=.gpurun/shared/data/mail timeout 130 bench/gpu/compare_bench.sh |
  tee "$OUT/compare_cpu.txt"
fi

if want worker; then
step "3. worker_bench (batch_size 64, 20 clients)"
for w in 200000 1000000; do
  for b in cuda cpu; do
    timeout 40 build/bin/worker_bench --backend $b --window $w --clients 20 \
      --seconds 3 --batch-size 64 | tee -a "$OUT/worker.jsonl"
  done
done
fi

if want scan; then
step "4. scan of the corpus, cuda against cpu"
for b in cuda cpu; do
  timeout 90 build/bin/mailwave scan --quiet --backend $b \
    --out "$OUT/scan_$b.json" .gpurun/shared/data/mail
done
python3 - "$OUT/scan_cuda.json" "$OUT/scan_cpu.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
same = a["messages"] == b["messages"] and a["clusters"] == b["clusters"]
print("scan: messages", a["meta"]["messages"], "clusters", a["meta"]["clusters"],
      "clustered", a["meta"]["clustered"], "| cpu clusters", b["meta"]["clusters"])
print("scan pairs cuda", a["meta"]["pairs"], "cpu", b["meta"]["pairs"])
print("scan seconds cuda", a["meta"]["seconds"], "cpu", b["meta"]["seconds"])
print("scan backends", a["meta"]["backend"], b["meta"]["backend"])
print("SCAN SAME CLUSTERS" if same else "SCAN DIFFERS")
PY
fi

if want check; then
step "5. check_bench --window (one round)"
timeout 120 build/bin/check_bench --rounds 1 --window 2>&1 | tail -25
fi

if want ncu; then
step "6. ncu: one launch of each kernel"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
if [[ -n $NCU ]]; then
  metrics=smsp__inst_executed.sum,sm__cycles_elapsed.avg,gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_global_ld.sum,dram__bytes_read.sum,lts__t_bytes.sum
  for args in "--n 20000 --kind ctph --mode all-pairs" \
              "--n 20000 --kind simhash --mode all-pairs" \
              "--n 20000 --kind sketch --mode all-pairs" \
              "--n 1000000 --kind ctph --mode window" \
              "--n 1000000 --kind sketch --mode window"; do
    echo "--- ncu: $args"
    # shellcheck disable=SC2086
    timeout 60 "$NCU" --metrics "$metrics" -k regex:Kernel --launch-count 1 \
      build/bin/mailwave bench compare --backend cuda $args 2>&1 |
      grep -E 'Kernel|inst_executed|cycles|duration|throughput|pipe_alu|global_ld|dram__|lts__|"n"|ERR'
  done | tee "$OUT/ncu.txt"
else
  echo "no ncu on this machine"
fi
fi

step "done"
