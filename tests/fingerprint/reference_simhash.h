// SimHash and word bag written the plain way, straight from their definitions
// in fingerprint/simhash.h, as the reference the fast ComputeWordHashes is
// checked against (tests only). Bit-exact by construction: the integer votes
// are exact, and the floating-point part adds the same terms in the same
// order (distinct shingles in ascending hash order).
#ifndef MW_TESTS_FINGERPRINT_REFERENCE_SIMHASH_H_
#define MW_TESTS_FINGERPRINT_REFERENCE_SIMHASH_H_

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "fingerprint/simhash.h"

namespace mw::fingerprint::testing {

inline WordHashes ReferenceWordHashes(std::string_view text) {
  WordHashes out;
  std::vector<std::uint64_t> words;
  for (const std::string_view w : Words(text))
    words.push_back(XXH3_64bits(w.data(), w.size()));
  for (const std::uint64_t h : words) out.word_bag.hash += h;
  out.word_bag.words = static_cast<std::uint32_t>(words.size());
  if (words.empty()) return out;
  // Shingles of 3 words (one of all words when there are fewer), each the
  // XXH3 of its words' hashes, counted.
  std::map<std::uint64_t, std::uint64_t> count;
  const std::size_t width = std::min<std::size_t>(3, words.size());
  for (std::size_t i = 0; i + width <= words.size(); ++i)
    ++count[XXH3_64bits(&words[i], width * sizeof(std::uint64_t))];
  // Each distinct shingle votes on every bit with weight 1 + ln(count).
  for (int b = 0; b < 64; ++b) {
    std::uint64_t ones = 0;
    double extra = 0;
    for (const auto& [h, n] : count) {
      const bool bit = (h >> b) & 1;
      ones += bit;
      if (n > 1) {
        const double w = std::log(static_cast<double>(n));
        extra += bit ? w : -w;
      }
    }
    const double vote = 2.0 * static_cast<double>(ones) -
                        static_cast<double>(count.size()) + extra;
    if (vote > 0) out.simhash |= std::uint64_t{1} << b;
  }
  return out;
}

}  // namespace mw::fingerprint::testing

#endif  // MW_TESTS_FINGERPRINT_REFERENCE_SIMHASH_H_
