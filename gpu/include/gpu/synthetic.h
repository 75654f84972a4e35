// Synthetic signatures for the benchmarks (`mailwave bench compare`) and the
// tests: random signatures of realistic shape, a share of them near copies of
// an earlier one, so that some pairs match and most do not.
//
// Thread-safety: pure functions (the generator is seeded per call).
#ifndef MW_GPU_SYNTHETIC_H_
#define MW_GPU_SYNTHETIC_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gpu/engine.h"

namespace mw::gpu {

struct SyntheticOptions {
  // Share of signatures that are near copies of an earlier one.
  double near_share = 0.1;
  // Near copies of CTPH signatures get 1..ctph_edits edits (substitution,
  // insertion or deletion) in the B signature and up to half as many in the
  // 2B one; SimHash copies 0..simhash_flips flipped bits; sketch copies
  // sketch_changed of the 128 bins replaced.
  unsigned ctph_edits = 4;
  unsigned simhash_flips = 4;
  unsigned sketch_changed = 24;
};

// n signatures from `seed`, with every field of the three kinds filled:
//   ctph    - B from 3·2^6 .. 3·2^11; B signature 30..64 random base64
//             symbols, 2B signature 15..32;
//   simhash - 64 random bits;
//   sketch  - 128 random non-zero bins, 50..500 words.
// Equal (n, seed, options) give equal signatures on every platform.
std::vector<Signature> SyntheticSignatures(
    std::size_t n, std::uint64_t seed, const SyntheticOptions& options = {});

}  // namespace mw::gpu

#endif  // MW_GPU_SYNTHETIC_H_
