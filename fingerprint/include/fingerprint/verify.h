// Verification of a candidate pair on the texts themselves.
//
// A fingerprint match is a candidate; when both texts are at hand (the CLI, the
// evaluation, a store that keeps bodies), the edit rate of the texts confirms
// it: the CTPH-on-GPU work this design follows calls two texts near-duplicates
// when their edit rate is below P.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_VERIFY_H_
#define MW_FINGERPRINT_VERIFY_H_

#include <cstdint>
#include <string_view>

namespace mw::fingerprint {

// Levenshtein distance of two byte strings of any length, with Myers'
// bit-parallel algorithm over ceil(|a| / 64) words per column: O(|b| · ceil(|a|
// / 64)) time, O(|a| / 64) memory.
std::uint64_t TextEditDistance(std::string_view a, std::string_view b);

// TextEditDistance(a, b) / (|a| + |b|); 0 when both are empty. In [0, 1].
double TextEditRate(std::string_view a, std::string_view b);

}  // namespace mw::fingerprint

#endif  // MW_FINGERPRINT_VERIFY_H_
