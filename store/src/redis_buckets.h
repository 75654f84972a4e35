// Reading the Redis store's index buckets on the client (redis_scripts.h,
// P.."k:"<b>): the names a key's entries may live under, and the ranking of
// the messages a lookup's buckets name. Find reads the buckets with one MGET
// and ranks them here; a script then reads only the candidates it is given,
// so the server spends its time on key lookups, not on Lua string work
// (docs/store.md, "Find in two steps"). Pure: no I/O.
#ifndef MW_STORE_REDIS_BUCKETS_H_
#define MW_STORE_REDIS_BUCKETS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mw::store {

// A bucket splits at most this many times (redis_scripts.cc, MAX_DEPTH), so
// a key's entries lie under one of kBucketDepths names.
inline constexpr int kBucketMaxDepth = 4;
inline constexpr int kBucketDepths = kBucketMaxDepth + 1;

// The names `key`'s bucket may have, from the top one (depth 0,
// P.."k:"<key >> 18>) down, each adding the key's next 4 bits; `prefix` is
// the site's RedisKeyPrefix. As the scripts' kname().
std::array<std::string, kBucketDepths> BucketNames(std::string_view prefix,
                                                   std::uint32_t key);

// What one key's buckets say, read from the top down to some depth
// (`depths[d]`: the value under BucketNames(...)[d], nullopt when there is
// no such key). The bucket that holds the key's entries is the first one
// that is not a split marker: kHolds, or kEmpty when that name is missing
// (no entries) or every depth is a marker; kDeeper when every depth read is
// a marker and deeper ones were not read.
struct BucketRead {
  enum class State { kHolds, kEmpty, kDeeper };
  State state = State::kEmpty;
  std::string_view entries;  // kHolds: the bucket's bytes
  int depth = 0;  // the depth that decided (kDeeper: the first one not read)
};
// REQUIRES: 1 <= depths.size() <= kBucketDepths.
BucketRead ReadBucketDepths(
    std::span<const std::optional<std::string_view>> depths);

// A message named by the buckets of a lookup.
struct BucketHit {
  std::int64_t id = 0;
  std::uint32_t shared = 0;  // query keys whose newest entries name it
  bool exact = false;        // one of them is the exact key
  friend bool operator==(const BucketHit&, const BucketHit&) = default;
};

struct KeyBucket {
  std::uint32_t key = 0;
  std::string_view entries;  // a kHolds bucket's bytes (7-byte entries)
};

// The messages the newest `per_key` entries of each key name, ids resolved
// against `max_id` (the site's last id, read with the buckets) and those
// below `lowest` (pruned, their entries not yet compacted away) left out;
// ranked exact key first, then by shared keys, then newest. As the Find
// script ranked them before 2026-11-28; a torn last entry is ignored.
std::vector<BucketHit> RankBucketHits(std::span<const KeyBucket> buckets,
                                      std::uint32_t exact_key, int per_key,
                                      std::int64_t max_id, std::int64_t lowest);

}  // namespace mw::store

#endif  // MW_STORE_REDIS_BUCKETS_H_
