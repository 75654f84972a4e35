// Launchers of the CUDA kernels (kernels.cu), callable from host C++ compiled
// by the C++ compiler: no CUDA type appears here. The views' pointers and the
// output's are device pointers. Each returns the cudaError_t of the launch as
// an int (0: launched; errors of the run itself surface at the next
// synchronising call). Launches go to the default stream.
#ifndef MW_GPU_SRC_CUDA_LAUNCH_H_
#define MW_GPU_SRC_CUDA_LAUNCH_H_

#include "kernels.h"

namespace mw::gpu::internal {

// The Query grid of kernels.h (split into several launches where the queries
// exceed the grid's y limit).
int LaunchQuery(unsigned kind, const SoaView& queries, const SoaView& window,
                const PairParams& p, const Output& out);
// The AllPairs grid of kernels.h (split where the tiles exceed the grid's x
// limit).
int LaunchAllPairs(unsigned kind, const SoaView& set, const PairParams& p,
                   const Output& out);

}  // namespace mw::gpu::internal

#endif  // MW_GPU_SRC_CUDA_LAUNCH_H_
