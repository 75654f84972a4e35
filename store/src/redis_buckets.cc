#include "redis_buckets.h"

#include <algorithm>
#include <unordered_map>

#include "keys.h"

namespace mw::store {
namespace {

// An entry: the key's low 18 bits (3 bytes), then the low 32 bits of a
// message id (4 bytes), both big-endian.
constexpr std::size_t kEntrySize = 7;
constexpr int kTopShift = 18;
constexpr char kMarker = '\0';

std::uint32_t Suffix(std::string_view e) {
  return (std::uint32_t{static_cast<unsigned char>(e[0])} << 16) |
         (std::uint32_t{static_cast<unsigned char>(e[1])} << 8) |
         std::uint32_t{static_cast<unsigned char>(e[2])};
}
std::uint32_t Low(std::string_view e) {
  std::uint32_t v = 0;
  for (std::size_t i = 3; i < kEntrySize; ++i) {
    v = (v << 8) | static_cast<unsigned char>(e[i]);
  }
  return v;
}

}  // namespace

std::array<std::string, kBucketDepths> BucketNames(std::string_view prefix,
                                                   std::uint32_t key) {
  std::array<std::string, kBucketDepths> names;
  std::string name(prefix);
  name += "k:";
  name += std::to_string(key >> kTopShift);
  names[0] = name;
  int shift = kTopShift - 4;
  for (int d = 1; d < kBucketDepths; ++d, shift -= 4) {
    name += '.';
    name += std::to_string((key >> shift) & 15);
    names[d] = name;
  }
  return names;
}

BucketRead ReadBucketDepths(
    std::span<const std::optional<std::string_view>> depths) {
  BucketRead r;
  for (const auto& v : depths) {
    if (!v) return r;  // kEmpty at r.depth
    if (!(v->size() == 1 && (*v)[0] == kMarker)) {
      r.state = BucketRead::State::kHolds;
      r.entries = *v;
      return r;
    }
    ++r.depth;
  }
  if (r.depth < kBucketDepths) {
    r.state = BucketRead::State::kDeeper;
  } else {
    r.depth = kBucketMaxDepth;  // markers all the way down: nothing held
  }
  return r;
}

std::vector<BucketHit> RankBucketHits(std::span<const KeyBucket> buckets,
                                      std::uint32_t exact_key, int per_key,
                                      std::int64_t max_id,
                                      std::int64_t lowest) {
  std::unordered_map<std::int64_t, BucketHit> hits;
  std::vector<std::string_view> mine;
  std::vector<std::int64_t> counted;
  constexpr std::uint32_t kSuffixMask = (1u << kTopShift) - 1;
  for (const KeyBucket& b : buckets) {
    const std::uint32_t suffix = b.key & kSuffixMask;
    mine.clear();
    for (std::size_t at = 0; at + kEntrySize <= b.entries.size();
         at += kEntrySize) {
      const std::string_view e = b.entries.substr(at, kEntrySize);
      if (Suffix(e) == suffix) mine.push_back(e);
    }
    // Entries are in arrival order: the newest per_key are the last ones.
    const std::size_t from =
        mine.size() > static_cast<std::size_t>(std::max(per_key, 0))
            ? mine.size() - static_cast<std::size_t>(std::max(per_key, 0))
            : 0;
    counted.clear();
    for (std::size_t i = mine.size(); i-- > from;) {
      const std::int64_t id = ResolveMessageId(Low(mine[i]), max_id);
      if (id <= 0 || id < lowest) continue;
      // A key counts once for a message, even in a bucket that names it
      // twice (never written so; a damaged server's reply).
      if (std::find(counted.begin(), counted.end(), id) != counted.end()) {
        continue;
      }
      counted.push_back(id);
      BucketHit& h = hits[id];
      h.id = id;
      ++h.shared;
      if (b.key == exact_key) h.exact = true;
    }
  }
  std::vector<BucketHit> ranked;
  ranked.reserve(hits.size());
  for (const auto& [id, h] : hits) ranked.push_back(h);
  std::sort(ranked.begin(), ranked.end(),
            [](const BucketHit& a, const BucketHit& b) {
              if (a.exact != b.exact) return a.exact;
              if (a.shared != b.shared) return a.shared > b.shared;
              return a.id > b.id;
            });
  return ranked;
}

}  // namespace mw::store
