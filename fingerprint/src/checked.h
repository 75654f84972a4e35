// SHA-1s that say when they could not be computed (private).
//
// OpenSSL's digest calls fail only when OpenSSL cannot allocate; the digest
// they leave is all zeros, which two unrelated bodies would then share and
// Compare would call exact duplicates. Compute uses these to mark such a
// fingerprint degraded (Fingerprint::degraded) instead. The public Sha1Of and
// ComputeBlocks are these with the flag dropped.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_SRC_CHECKED_H_
#define MW_FINGERPRINT_SRC_CHECKED_H_

#include <string_view>

#include "fingerprint/blocks.h"

namespace mw::fingerprint::internal {

// The SHA-1 of `bytes` into `out`; false, with `out` all zeros, when OpenSSL
// failed.
bool Sha1Checked(std::string_view bytes, Sha1& out);

// ComputeBlocks(text, kind); sets *degraded when a block's SHA-1 failed (that
// block's hash is then all zeros), and leaves it alone otherwise.
BlockList ComputeBlocksChecked(std::string_view text, BlockKind kind,
                               bool* degraded);

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_SRC_CHECKED_H_
