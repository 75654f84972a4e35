#include "fingerprint/sketch.h"

#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <vector>

#include "common_level.h"
#include "fingerprint/simhash.h"

namespace mw::fingerprint {

WordSketch ComputeSketch(std::span<const std::uint64_t> word_hashes) {
  WordSketch out;
  out.words = static_cast<std::uint32_t>(word_hashes.size());
  // rank[b]: the smallest remaining bits (h << 7) seen in bin b, the MinHash
  // order; a repeated word ties with itself. Branch-free: the bin's top bits
  // and the rank give the word's hash back, h = bin << 57 | rank >> 7.
  std::array<std::uint64_t, kSketchSlots> rank;
  rank.fill(std::numeric_limits<std::uint64_t>::max());
  for (const std::uint64_t h : word_hashes) {
    const std::size_t bin =
        static_cast<std::size_t>(h >> (64 - kSketchSlotBits));
    const std::uint64_t r = h << kSketchSlotBits;
    rank[bin] = r < rank[bin] ? r : rank[bin];
  }
  for (std::size_t b = 0; b < kSketchSlots; ++b) {
    // max() is the rank of no word (a word whose remaining bits are all
    // ones, 2^-57, would read as an empty bin: never a false match).
    if (rank[b] == std::numeric_limits<std::uint64_t>::max()) continue;
    const std::uint64_t h = (std::uint64_t{b} << (64 - kSketchSlotBits)) |
                            (rank[b] >> kSketchSlotBits);
    out.slots[b] = SketchValue(h);
  }
  return out;
}

Ctph ComputeWordSequence(std::span<const std::uint64_t> word_hashes,
                         std::span<const std::uint8_t> word_lengths,
                         std::size_t min_length) {
  // A word is sampled at step 2^k when bits 32.. of its hash end in k zeros
  // (the symbol takes bits 8..15, the sketch the top bits: independent
  // choices), so the samples of 2^(k+1) are a subset of those of 2^k. One
  // pass counts the words per number of trailing zeros; the step is the
  // smallest that keeps at most kCtphMaxLength.
  constexpr unsigned kLevels = 32;
  const auto level = [](std::uint64_t h) {
    const std::uint32_t high = static_cast<std::uint32_t>(h >> 32);
    return high == 0 ? kLevels - 1
                     : std::min<unsigned>(std::countr_zero(high), kLevels - 1);
  };
  std::array<std::size_t, kLevels> at_least{};  // words of level >= k
  for (std::size_t i = 0; i < word_hashes.size(); ++i) {
    if (word_lengths[i] >= min_length) ++at_least[level(word_hashes[i])];
  }
  for (unsigned k = kLevels - 1; k-- > 0;) at_least[k] += at_least[k + 1];
  Ctph out;
  if (at_least[0] == 0) return out;
  unsigned k = 0;
  while (k + 1 < kLevels && at_least[k] > kCtphMaxLength) ++k;
  if (at_least[k] > kCtphMaxLength) return out;  // 2^31 identical words
  out.block_size = std::uint32_t{1} << k;
  out.sig.reserve(at_least[k]);
  out.sig2.reserve(at_least[k + 1 < kLevels ? k + 1 : k]);
  for (std::size_t i = 0; i < word_hashes.size(); ++i) {
    if (word_lengths[i] < min_length) continue;
    const unsigned l = level(word_hashes[i]);
    if (l < k) continue;
    const char symbol = static_cast<char>((word_hashes[i] >> 8) & 0xff);
    out.sig += symbol;
    if (l > k) out.sig2 += symbol;
  }
  return out;
}

namespace {

SequenceDiff Diff(std::string_view x, std::string_view y) {
  const std::size_t m = x.size(), n = y.size();
  // d[i][j]: distance of x[0..i) and y[0..j); r: fewest edit runs among the
  // optimal alignments ending there, g: whether that alignment ends in an
  // edit. At most 65 x 65 cells.
  std::uint16_t d[kCtphMaxLength + 1][kCtphMaxLength + 1];
  std::uint16_t r[kCtphMaxLength + 1][kCtphMaxLength + 1];
  bool g[kCtphMaxLength + 1][kCtphMaxLength + 1];
  for (std::size_t i = 0; i <= m; ++i) {
    for (std::size_t j = 0; j <= n; ++j) {
      if (i == 0 || j == 0) {
        d[i][j] = static_cast<std::uint16_t>(i + j);
        r[i][j] = (i + j) != 0;
        g[i][j] = (i + j) != 0;
        continue;
      }
      // Candidates: (distance, runs, ends in edit).
      struct Step {
        unsigned dist, runs;
        bool edit;
      };
      const bool same = x[i - 1] == y[j - 1];
      const Step diag{d[i - 1][j - 1] + (same ? 0u : 1u),
                      r[i - 1][j - 1] + (!same && !g[i - 1][j - 1] ? 1u : 0u),
                      !same};
      const Step up{d[i - 1][j] + 1u, r[i - 1][j] + (g[i - 1][j] ? 0u : 1u),
                    true};
      const Step left{d[i][j - 1] + 1u, r[i][j - 1] + (g[i][j - 1] ? 0u : 1u),
                      true};
      Step best = diag;
      for (const Step& s : {up, left}) {
        if (s.dist < best.dist || (s.dist == best.dist && s.runs < best.runs)) {
          best = s;
        }
      }
      d[i][j] = static_cast<std::uint16_t>(best.dist);
      r[i][j] = static_cast<std::uint16_t>(best.runs);
      g[i][j] = best.edit;
    }
  }
  SequenceDiff out{d[m][n], r[m][n], static_cast<std::uint32_t>(m + n)};
  out.trimmed_distance = out.distance;
  out.trimmed_runs = out.runs;
  out.trimmed_length = out.length;
  out.tail_longer = static_cast<std::uint32_t>(std::max(m, n));
  // The longer sequence's end left out: the last row (or column) of the
  // table holds the shorter one aligned with every prefix of the longer.
  // Ties keep the longer prefix.
  const bool y_longer = n >= m;
  out.tail_in_first = !y_longer;
  const std::size_t longer = y_longer ? n : m;
  for (std::size_t k = longer; k-- > 0;) {
    const std::size_t i = y_longer ? m : k;
    const std::size_t j = y_longer ? k : n;
    if (d[i][j] < out.trimmed_distance) {
      out.trimmed_distance = d[i][j];
      out.trimmed_runs = r[i][j];
      out.trimmed_length = static_cast<std::uint32_t>(i + j);
      out.tail = static_cast<std::uint32_t>(longer - k);
    }
  }
  return out;
}

}  // namespace

std::optional<SequenceDiff> DiffWordSequences(const Ctph& a, const Ctph& b) {
  return internal::AtCommonLevel<SequenceDiff>(
      a, b,
      [](const std::string& x,
         const std::string& y) -> std::optional<SequenceDiff> {
        if (x.empty() || y.empty() || x.size() > kCtphMaxLength ||
            y.size() > kCtphMaxLength)
          return std::nullopt;
        return Diff(x, y);
      },
      [](const SequenceDiff& r, const SequenceDiff& s) {
        // The lower edit rate: r.distance / r.length < s.distance / s.length.
        return std::uint64_t{r.distance} * s.length <
               std::uint64_t{s.distance} * r.length;
      });
}

WordSketch ComputeSketch(std::string_view text) {
  std::vector<std::uint64_t> hashes;
  for (const std::string_view w : Words(text)) {
    hashes.push_back(XXH3_64bits(w.data(), w.size()));
  }
  return ComputeSketch(hashes);
}

}  // namespace mw::fingerprint
