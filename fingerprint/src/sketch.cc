#include "fingerprint/sketch.h"

#include <xxhash.h>

#include <limits>
#include <vector>

#include "fingerprint/simhash.h"

namespace mw::fingerprint {

WordSketch ComputeSketch(std::span<const std::uint64_t> word_hashes) {
  WordSketch out;
  out.words = static_cast<std::uint32_t>(word_hashes.size());
  // rank[b]: the smallest remaining bits seen in bin b (the MinHash order);
  // a repeated word ties with itself and changes nothing.
  std::array<std::uint64_t, kSketchSlots> rank;
  rank.fill(std::numeric_limits<std::uint64_t>::max());
  std::array<std::uint64_t, kSketchSlots> best{};
  for (const std::uint64_t h : word_hashes) {
    const std::size_t bin =
        static_cast<std::size_t>(h >> (64 - kSketchSlotBits));
    const std::uint64_t r = h << kSketchSlotBits;
    if (r < rank[bin] || (r == rank[bin] && h < best[bin])) {
      rank[bin] = r;
      best[bin] = h;
    }
  }
  for (std::size_t b = 0; b < kSketchSlots; ++b) {
    if (rank[b] == std::numeric_limits<std::uint64_t>::max() && best[b] == 0) {
      continue;
    }
    const std::uint16_t v = static_cast<std::uint16_t>(best[b]);
    out.slots[b] = v == 0 ? 1 : v;
  }
  return out;
}

WordSketch ComputeSketch(std::string_view text) {
  std::vector<std::uint64_t> hashes;
  for (const std::string_view w : Words(text)) {
    hashes.push_back(XXH3_64bits(w.data(), w.size()));
  }
  return ComputeSketch(hashes);
}

}  // namespace mw::fingerprint
