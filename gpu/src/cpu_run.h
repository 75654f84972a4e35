// The CPU run of the kernels' grids: the bodies of kernels.h, called for every
// (block, thread) of the grid the CUDA backend launches, by `threads` threads
// that take blocks from a shared counter.
//
// Thread-safety: each call is independent; it starts and joins its threads.
#ifndef MW_GPU_SRC_CPU_RUN_H_
#define MW_GPU_SRC_CPU_RUN_H_

#include <vector>

#include "kernels.h"

namespace mw::gpu::internal {

// The threads a run uses: `threads`, or every core for 0.
unsigned ResolveThreads(unsigned threads);

// The instruction sets the runs below have a path for. kAvx2 and kAvx512 run
// SimHash and sketch pairs a tile row at a time in vectors (popcount of XOR,
// compares of 16-bit bins), then hand the pairs that pass to the bodies'
// own pair functions; CTPH runs the bodies compiled for AVX2 at both levels.
// Every level gives the same matches as kBaseline (tests/gpu/engine_test.cc).
enum class Isa { kBaseline, kAvx2, kAvx512 };
// The highest level this build and this CPU (and its OS) support; kAvx512
// needs AVX-512 F, BW and VPOPCNTDQ.
Isa BestIsa();

// Every body of the Query grid of (queries, window) over `out`; returns the
// final count (matches beyond out.capacity were counted, not written).
// `kind` is one of the kKind codes. REQUIRES: isa <= BestIsa().
unsigned long long RunQueryGrid(unsigned kind, const SoaView& queries,
                                const SoaView& window, const PairParams& p,
                                const Output& out, unsigned threads,
                                Isa isa = BestIsa());
// The same for the AllPairs grid of `set`.
unsigned long long RunAllPairsGrid(unsigned kind, const SoaView& set,
                                   const PairParams& p, const Output& out,
                                   unsigned threads, Isa isa = BestIsa());

// The runs above with an output buffer that starts at `capacity` and, on
// overflow, grows to the exact count and runs again: every match, in no
// particular order.
std::vector<PairMatch> CollectQuery(unsigned kind, const SoaView& queries,
                                    const SoaView& window, const PairParams& p,
                                    unsigned threads,
                                    unsigned long long capacity = 4096,
                                    Isa isa = BestIsa());
std::vector<PairMatch> CollectAllPairs(unsigned kind, const SoaView& set,
                                       const PairParams& p, unsigned threads,
                                       unsigned long long capacity = 4096,
                                       Isa isa = BestIsa());

}  // namespace mw::gpu::internal

#endif  // MW_GPU_SRC_CPU_RUN_H_
