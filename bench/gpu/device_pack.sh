#!/usr/bin/env bash
# Packs what bench/gpu/device_check.sh needs on a lent GPU machine that has
# the NVIDIA driver but none of our build's libraries: the CUDA build's
# binaries (stripped), the language dictionary, every shared library they
# load but the C library, a private copy of the C library and loader (used
# only when the machine's own cannot run them), jq, and the dev corpus, into
# one compressed file under DEST (default .gpurun, which the caller keeps out
# of git: echo /.gpurun/ >> .git/info/exclude).
#
# Usage: bench/gpu/device_pack.sh [BUILD] [DEST]   (build, .gpurun)
# EXTRA_BINS="a b": more of BUILD/bin's programs (the test programs that
# behave differently on a host with a GPU), run by device_check.sh's tests.
# BEFORE=DIR: also packs DIR's mailwave and worker_bench (an earlier build,
# same libraries) as before/, for device_check.sh's A/B runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
DEST=${2:-.gpurun}
CORPUS=${CORPUS:-../shared/data/mail}
# shellcheck disable=SC2206
BINS=(mailwave gpu_cuda_test worker_bench check_bench ${EXTRA_BINS:-})
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/build/bin" "$stage/build/share" "$stage/lib" "$stage/glibc" \
  "$stage/bin" "$stage/shared/data"
for b in "${BINS[@]}"; do
  strip --strip-debug -o "$stage/build/bin/$b" "$BUILD/bin/$b"
done
cp -r "$BUILD/share/mailwave" "$stage/build/share/"
if [[ -n ${BEFORE:-} ]]; then
  mkdir -p "$stage/before"
  for b in mailwave worker_bench; do
    strip --strip-debug -o "$stage/before/$b" "$BEFORE/$b"
  done
fi
cp "$(command -v jq)" "$stage/bin/"
# Every library the binaries and jq load; the C library's own apart.
for f in "$stage"/build/bin/* "$stage/bin/jq"; do ldd "$f"; done |
  awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u |
  while read -r lib; do
    case $(basename "$lib") in
      ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*)
        cp -L "$lib" "$stage/glibc/" ;;
      *) cp -L "$lib" "$stage/lib/" ;;
    esac
  done
if [[ -d $CORPUS ]]; then
  cp -r "$CORPUS" "$stage/shared/data/mail"
else
  echo "device_pack: no corpus at $CORPUS: the corpus runs will be skipped" >&2
fi
mkdir -p "$DEST"
tar -C "$stage" -cf - . | xz -T2 -6 > "$DEST/payload.tar.xz"
cp bench/gpu/device_check.sh "$DEST/"
ls -la "$DEST"
