// The rule that pairs two CTPH-like signatures (a CTPH, ctph.h; a sampled
// word sequence, sketch.h) at a common block size: at equal block sizes both
// levels are compared and the better result counts; when one block size is
// twice the other, the smaller one's second level against the larger one's
// first; otherwise they are not comparable. One definition for CtphEditRate
// and DiffWordSequences (the GPU engine's pair rule, gpu/src/pair.h, follows
// it too, checked against CtphEditRate in its tests).
#ifndef MW_FINGERPRINT_COMMON_LEVEL_H_
#define MW_FINGERPRINT_COMMON_LEVEL_H_

#include <cstdint>
#include <optional>

#include "fingerprint/ctph.h"

namespace mw::fingerprint::internal {

// `score(x, y)` compares two signature strings and returns std::optional<T>
// (nullopt: not comparable); `better(t, u)` is true when t beats u.
template <typename T, typename Score, typename Better>
std::optional<T> AtCommonLevel(const Ctph& a, const Ctph& b, Score score,
                               Better better) {
  if (a.block_size == 0 || b.block_size == 0) return std::nullopt;
  if (a.block_size == b.block_size) {
    const std::optional<T> r1 = score(a.sig, b.sig);
    const std::optional<T> r2 = score(a.sig2, b.sig2);
    if (r1 && r2) return better(*r2, *r1) ? r2 : r1;
    return r1 ? r1 : r2;
  }
  if (static_cast<std::uint64_t>(a.block_size) * 2 == b.block_size)
    return score(a.sig2, b.sig);
  if (static_cast<std::uint64_t>(b.block_size) * 2 == a.block_size)
    return score(a.sig, b.sig2);
  return std::nullopt;
}

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_COMMON_LEVEL_H_
