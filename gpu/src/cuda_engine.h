// The CUDA backend's factory (cuda_engine.cc, built only with MW_WITH_CUDA).
// Kept out of engine.h so no public header names CUDA.
#ifndef MW_GPU_SRC_CUDA_ENGINE_H_
#define MW_GPU_SRC_CUDA_ENGINE_H_

#include <memory>

#include "gpu/engine.h"
#include "mw/result.h"

namespace mw::gpu::internal {

// A CUDA engine on device 0. kUnavailable when the runtime finds no usable
// device (the message says why: the CUDA error string).
Result<std::unique_ptr<Engine>> MakeCudaEngine();

}  // namespace mw::gpu::internal

#endif  // MW_GPU_SRC_CUDA_ENGINE_H_
