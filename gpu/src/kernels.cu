// The CUDA kernels: each thread calls the body of kernels.h with its own
// blockIdx, threadIdx and blockDim, the code the CPU backend runs over the
// same grid.
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
    QueryKernel<kKind>
        <<<dim3(gx, gy, 1), dim3(kTile, 1, 1)>>>(queries, window, p, out, q0);
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
