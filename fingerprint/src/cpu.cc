#include "cpu.h"

namespace mw::fingerprint::internal {

const CpuFeatures& Cpu() {
  static const CpuFeatures features = [] {
    CpuFeatures f;
#if defined(__x86_64__)
    __builtin_cpu_init();
    f.avx2 = __builtin_cpu_supports("avx2") != 0;
    f.avx512bw = __builtin_cpu_supports("avx512f") != 0 &&
                 __builtin_cpu_supports("avx512bw") != 0;
    f.avx512vbmi2 = f.avx512bw && __builtin_cpu_supports("avx512vbmi2") != 0;
    f.avx512_myers = f.avx512bw && __builtin_cpu_supports("avx512vl") != 0 &&
                     __builtin_cpu_supports("avx512vbmi") != 0 &&
                     __builtin_cpu_supports("avx512bitalg") != 0 &&
                     __builtin_cpu_supports("popcnt") != 0;
#endif
    return f;
  }();
  return features;
}

}  // namespace mw::fingerprint::internal
