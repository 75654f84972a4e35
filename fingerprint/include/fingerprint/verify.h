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
#include <optional>
#include <string_view>

namespace mw::fingerprint {

// Levenshtein distance of two byte strings of any length, with Myers'
// bit-parallel algorithm over ceil(|a| / 64) words per column: O(|b| · ceil(|a|
// / 64)) time, O(|a| / 64) memory.
std::uint64_t TextEditDistance(std::string_view a, std::string_view b);

// TextEditDistance(a, b) when it is at most `k`, else nullopt. The same
// bit-parallel columns, computed only over Ukkonen's band (the rows where a
// path of cost <= k can pass) and dropped from the top as soon as every cell
// of a word, plus the least cost of reaching the far corner from it, exceeds
// k; nullopt as soon as no word is left. O(|b| · (k / 64 + 2)) time at worst,
// much less for texts far apart; O(|a| / 64) memory.
std::optional<std::uint64_t> TextEditDistanceWithin(std::string_view a,
                                                    std::string_view b,
                                                    std::uint64_t k);

// TextEditDistance(a, b) / (|a| + |b|); 0 when both are empty. In [0, 1].
double TextEditRate(std::string_view a, std::string_view b);

}  // namespace mw::fingerprint

#endif  // MW_FINGERPRINT_VERIFY_H_
