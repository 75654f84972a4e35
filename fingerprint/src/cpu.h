// What this CPU can run, checked once (private).
//
// The build sets no -march: the binary runs on any x86-64, and each pass with
// a vector path (fold chunks, SimHash votes, CTPH cuts, Myers) picks it at run
// time from these flags, keeping a portable path for other CPUs. Elsewhere
// than on x86-64 every flag is false.
//
// Thread-safety: safe from any thread (the flags are computed once, on the
// first call, by a thread-safe static initialisation).
#ifndef MW_FINGERPRINT_SRC_CPU_H_
#define MW_FINGERPRINT_SRC_CPU_H_

namespace mw::fingerprint::internal {

struct CpuFeatures {
  bool avx2 = false;
  // AVX-512 Foundation and BW (byte and word lanes, 64-bit masks).
  bool avx512bw = false;
  // avx512bw, and VBMI2 (byte compress).
  bool avx512vbmi2 = false;
  // avx512bw, and VL (128/256-bit forms), VBMI (byte permutes), BITALG and
  // POPCNT.
  bool avx512_myers = false;
};

const CpuFeatures& Cpu();

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_SRC_CPU_H_
