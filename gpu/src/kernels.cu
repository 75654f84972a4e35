// The CUDA kernels: each thread calls the body of kernels.h with its own
// blockIdx, threadIdx and blockDim, the code the CPU backend runs over the
// same grid. The window's CTPH search alone has a kernel of its own
// (QueryCtphKernel: the same body with the query's Myers table shared by the
// block), measured 2026-11-26 on an H100 (docs/gpu.md).
#include <cuda_runtime.h>

#include "cuda_launch.h"

namespace mw::gpu::internal {
namespace {

// Grid limits of every device since compute capability 3.0.
constexpr unsigned long long kMaxGridX = 2147483647ull;
constexpr unsigned kMaxGridY = 65535;

template <unsigned kKind>
__global__ void QueryKernel(SoaView queries, SoaView window, PairParams p,
                            Output out, unsigned query_offset) {
  QueryBody<kKind>(queries, window, p, out,
                   Dim{blockIdx.x, blockIdx.y + query_offset},
                   Dim{threadIdx.x, threadIdx.y}, Dim{blockDim.x, blockDim.y});
}

// The distance of a CTPH level in the window's search. Myers' pattern is
// always the query's side (a1 or a2, CtphPair's x), the same for the whole
// block, so its match masks are built once per block in shared memory
// (QueryCtphKernel); the window slot's symbols come in four 16-byte loads
// into registers. Same recurrence (MyersColumn) as ScalarMyers, whose 2 KB
// table a thread would otherwise keep in local memory.
struct SharedPeqMyers {
  const unsigned long long* peq1;  // masks of the query's B signature
  const unsigned long long* peq2;  // of its 2B signature
  const std::uint8_t* a1;          // the query's B bytes: tells x's level

  __device__ __forceinline__ unsigned operator()(const CtphSide& x,
                                                 const CtphSide& y) const {
    if (x.len == 0) return y.len;
    if (y.len == 0) return x.len;
    const unsigned long long* peq = x.s == a1 ? peq1 : peq2;
    // y.s is a window slot: kCtphSlot bytes at a multiple of kCtphSlot from
    // a cudaMalloc base, so 16-byte aligned; bytes past y.len are 0.
    std::uint32_t w[kCtphSlot / 4];
    const uint4* v = reinterpret_cast<const uint4*>(y.s);
#pragma unroll
    for (unsigned k = 0; k < kCtphSlot / 16; ++k) {
      const uint4 t = __ldg(v + k);
      w[4 * k] = t.x;
      w[4 * k + 1] = t.y;
      w[4 * k + 2] = t.z;
      w[4 * k + 3] = t.w;
    }
    std::uint64_t pv = ~std::uint64_t{0};
    std::uint64_t mv = 0;
    const std::uint64_t high = std::uint64_t{1} << (x.len - 1);
    unsigned score = x.len;
#pragma unroll
    for (unsigned j = 0; j < kCtphSlot; ++j) {
      if (j >= y.len) break;
      const unsigned sym = (w[j >> 2] >> ((j & 3) * 8)) & 0xffu;
      MyersColumn(peq[sym], high, &pv, &mv, &score);
    }
    return score;
  }
};

// QueryBody<kKindCtph> with SharedPeqMyers: thread (bx, tx) of grid row by
// compares query by with window slot bx * blockDim.x + tx (blocks of
// kCtphBlockTiles tiles).
constexpr unsigned kCtphBlockTiles = 4;
__global__ void QueryCtphKernel(SoaView queries, SoaView window, PairParams p,
                                Output out, unsigned query_offset) {
  __shared__ unsigned long long peq[2][256];
  const std::uint32_t q = blockIdx.y + query_offset;
  for (unsigned k = threadIdx.x; k < 2 * 256; k += blockDim.x)
    peq[k / 256][k % 256] = 0;
  __syncthreads();
  if (q < queries.n) {
    const CtphSide a1 = Side1(queries, q);
    const CtphSide a2 = Side2(queries, q);
    for (unsigned i = threadIdx.x; i < a1.len; i += blockDim.x)
      atomicOr(&peq[0][a1.s[i]], 1ull << i);
    for (unsigned i = threadIdx.x; i < a2.len; i += blockDim.x)
      atomicOr(&peq[1][a2.s[i]], 1ull << i);
  }
  __syncthreads();
  const std::uint64_t slot =
      static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (slot >= window.n || q >= queries.n) return;
  float score = 0;
  const SharedPeqMyers distance{peq[0], peq[1], Side1(queries, q).s};
  if (EvalPair<kKindCtph>(queries, q, window, static_cast<std::uint32_t>(slot),
                          p, &score, distance))
    Emit(out, q, static_cast<std::uint32_t>(slot), score);
}

template <unsigned kKind>
__global__ void AllPairsKernel(SoaView set, PairParams p, Output out,
                               unsigned tile_offset) {
  AllPairsBody<kKind>(set, p, out, Dim{blockIdx.x + tile_offset, 0},
                      Dim{threadIdx.x, threadIdx.y},
                      Dim{blockDim.x, blockDim.y});
}

template <unsigned kKind>
int Query(const SoaView& queries, const SoaView& window, const PairParams& p,
          const Output& out) {
  const unsigned gx = static_cast<unsigned>(TilesPerSide(window.n));
  if (gx == 0 || queries.n == 0) return 0;
  for (unsigned q0 = 0; q0 < queries.n; q0 += kMaxGridY) {
    const unsigned gy = queries.n - q0 < kMaxGridY ? queries.n - q0 : kMaxGridY;
    if constexpr (kKind == kKindCtph) {
      // kCtphBlockTiles tiles a block, so the query's table is built once
      // for 256 window slots (at strict rates, where Myers is rare, building
      // it for every 64 cost a third of the kernel's time).
      const unsigned gxc = (gx + kCtphBlockTiles - 1) / kCtphBlockTiles;
      QueryCtphKernel<<<dim3(gxc, gy, 1),
                        dim3(kTile * kCtphBlockTiles, 1, 1)>>>(queries, window,
                                                               p, out, q0);
    } else {
      QueryKernel<kKind>
          <<<dim3(gx, gy, 1), dim3(kTile, 1, 1)>>>(queries, window, p, out, q0);
    }
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return static_cast<int>(e);
  }
  return 0;
}

template <unsigned kKind>
int AllPairs(const SoaView& set, const PairParams& p, const Output& out) {
  const unsigned long long tiles = TriangleTiles(set.n);
  for (unsigned long long t0 = 0; t0 < tiles; t0 += kMaxGridX) {
    const unsigned long long left = tiles - t0;
    const unsigned g =
        static_cast<unsigned>(left < kMaxGridX ? left : kMaxGridX);
    AllPairsKernel<kKind><<<dim3(g, 1, 1), dim3(kTile, 1, 1)>>>(
        set, p, out, static_cast<unsigned>(t0));
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return static_cast<int>(e);
  }
  return 0;
}

}  // namespace

int LaunchQuery(unsigned kind, const SoaView& queries, const SoaView& window,
                const PairParams& p, const Output& out) {
  switch (kind) {
    case kKindCtph:
      return Query<kKindCtph>(queries, window, p, out);
    case kKindSimHash:
      return Query<kKindSimHash>(queries, window, p, out);
    default:
      return Query<kKindSketch>(queries, window, p, out);
  }
}

int LaunchAllPairs(unsigned kind, const SoaView& set, const PairParams& p,
                   const Output& out) {
  switch (kind) {
    case kKindCtph:
      return AllPairs<kKindCtph>(set, p, out);
    case kKindSimHash:
      return AllPairs<kKindSimHash>(set, p, out);
    default:
      return AllPairs<kKindSketch>(set, p, out);
  }
}

}  // namespace mw::gpu::internal
