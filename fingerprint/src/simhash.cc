#include "fingerprint/simhash.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "utf8.h"

namespace mw::fingerprint {
namespace {

constexpr std::size_t kShingleWords = 3;

// Hash of a shingle: XXH3 over the words' own XXH3 hashes, so each word is
// hashed once.
std::uint64_t ShingleHash(const std::uint64_t* word_hashes, std::size_t count) {
  return XXH3_64bits(word_hashes, count * sizeof(std::uint64_t));
}

}  // namespace

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t start = std::string_view::npos;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t len;
    const char32_t c = internal::DecodeUtf8(text, i, &len);
    if (internal::IsWordChar(c)) {
      if (internal::IsUnspacedScript(c)) {
        if (start != std::string_view::npos)
          words.push_back(text.substr(start, i - start));
        start = std::string_view::npos;
        words.push_back(text.substr(i, len));
      } else if (start == std::string_view::npos) {
        start = i;
      }
    } else if (start != std::string_view::npos) {
      words.push_back(text.substr(start, i - start));
      start = std::string_view::npos;
    }
    i += len;
  }
  if (start != std::string_view::npos) words.push_back(text.substr(start));
  return words;
}

std::uint64_t ComputeSimHash(std::string_view text) {
  const std::vector<std::string_view> words = Words(text);
  if (words.empty()) return 0;
  std::vector<std::uint64_t> word_hashes(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    word_hashes[i] = XXH3_64bits(words[i].data(), words[i].size());
  }
  std::vector<std::uint64_t> hashes;
  if (words.size() < kShingleWords) {
    hashes.push_back(ShingleHash(word_hashes.data(), words.size()));
  } else {
    hashes.reserve(words.size() - kShingleWords + 1);
    for (std::size_t i = 0; i + kShingleWords <= words.size(); ++i) {
      hashes.push_back(ShingleHash(word_hashes.data() + i, kShingleWords));
    }
  }
  // Count each distinct shingle (sorting groups them) and weigh it 1 +
  // ln(count): repeated boilerplate counts, but cannot outvote the rest of the
  // message.
  std::sort(hashes.begin(), hashes.end());
  std::array<double, 64> votes{};
  for (std::size_t i = 0; i < hashes.size();) {
    std::size_t j = i + 1;
    while (j < hashes.size() && hashes[j] == hashes[i]) ++j;
    const double w = 1.0 + std::log(static_cast<double>(j - i));
    const std::uint64_t h = hashes[i];
    for (int b = 0; b < 64; ++b) votes[b] += ((h >> b) & 1) ? w : -w;
    i = j;
  }
  std::uint64_t out = 0;
  for (int b = 0; b < 64; ++b) {
    if (votes[b] > 0) out |= std::uint64_t{1} << b;
  }
  return out;
}

std::vector<std::uint64_t> SimHashKeys(std::uint64_t simhash, std::uint32_t k) {
  if (k == 0) return {simhash};
  const std::uint32_t bands = k + 1;
  std::vector<std::uint64_t> keys;
  keys.reserve(bands);
  std::uint32_t start = 0;
  for (std::uint32_t b = 0; b < bands; ++b) {
    // Bands of width 64 / bands, the first 64 % bands one bit wider.
    const std::uint32_t width = 64 / bands + (b < 64 % bands ? 1 : 0);
    const std::uint64_t bits =
        (simhash >> start) & ((std::uint64_t{1} << width) - 1);
    // width <= 32 for k >= 1, so the band index fits above the bits.
    keys.push_back((static_cast<std::uint64_t>(b) << 32) | bits);
    start += width;
  }
  return keys;
}

}  // namespace mw::fingerprint
