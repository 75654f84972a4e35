// libFuzzer target for what the Redis store reads back from a server on the
// client (store/src/redis_message.h, redis_buckets.h): a packed message and
// index buckets are bytes a damaged or hostile server may send. Beyond "no
// crash, no sanitizer report", it checks:
//   - every field ParseRedisMessage gives lies inside the input, in order;
//   - RankBucketHits names each message once, only ids in [lowest, max_id],
//     with no more shared keys than keys, no more hits than per_key a key,
//     in the promised order;
//   - the cluster-id permutation inverts under any key;
//   - ReadBucketDepths names the first bucket that is no split marker.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "redis_buckets.h"
#include "redis_message.h"

namespace {

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

bool Inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() &&
          part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace mw::store;
  const std::string_view in(reinterpret_cast<const char*>(data), size);

  if (const auto m = ParseRedisMessage(in)) {
    const std::string_view fields[] = {
        m->message_id_hash, m->identity, m->queue_id, m->language, m->keys,
        m->fingerprint,     m->network};
    const char* at = in.data();
    for (const std::string_view f : fields) {
      Check(Inside(f, in));
      if (!f.empty()) {
        Check(f.data() >= at);
        at = f.data() + f.size();
      }
    }
    Check(m->message_id_hash.size() == 8);
    Check(m->arrival >= 0 && m->arrival < (std::int64_t{1} << 48));
  }

  if (size < 16) return 0;
  const ClusterPermutation perm(in.substr(0, 16));
  for (std::uint32_t x :
       {0u, 1u, 0xffffffffu, static_cast<std::uint32_t>(size * 2654435761u)}) {
    Check(perm.Inverse(perm.Forward(x)) == x);
  }

  // The rest: per_key, max_id's low bytes, lowest, then up to four buckets
  // of one key each, cut at every 0xff byte.
  const std::string_view rest = in.substr(16);
  if (rest.size() < 3) return 0;
  const int per_key = static_cast<unsigned char>(rest[0]) % 40;
  const std::int64_t max_id =
      static_cast<unsigned char>(rest[1]) * 977 +
      (std::int64_t{static_cast<unsigned char>(rest[1]) & 1} << 32);
  const std::int64_t lowest = static_cast<unsigned char>(rest[2]) * 3;
  std::vector<std::string> parts(1);
  for (const char c : rest.substr(3)) {
    if (static_cast<unsigned char>(c) == 0xff && parts.size() < 4) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  std::vector<KeyBucket> buckets;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    // Keys whose low 18 bits match bytes that occur, so that entries hit.
    const std::uint32_t key =
        parts[i].size() >= 3
            ? (static_cast<std::uint32_t>(i) << 18) |
                  (std::uint32_t{static_cast<unsigned char>(parts[i][0])}
                       << 16 &
                   0x30000) |
                  (std::uint32_t{static_cast<unsigned char>(parts[i][1])}
                   << 8) |
                  static_cast<unsigned char>(parts[i][2])
            : static_cast<std::uint32_t>(i);
    buckets.push_back({key, parts[i]});
  }
  const auto hits =
      RankBucketHits(buckets, buckets[0].key, per_key, max_id, lowest);
  Check(hits.size() <= buckets.size() * static_cast<std::size_t>(per_key));
  for (std::size_t i = 0; i < hits.size(); ++i) {
    Check(hits[i].id > 0 && hits[i].id <= max_id && hits[i].id >= lowest);
    Check(hits[i].shared >= 1 && hits[i].shared <= buckets.size());
    for (std::size_t j = 0; j < i; ++j) Check(hits[j].id != hits[i].id);
    if (i > 0) {
      const BucketHit& a = hits[i - 1];
      const BucketHit& b = hits[i];
      Check(a.exact > b.exact ||
            (a.exact == b.exact &&
             (a.shared > b.shared || (a.shared == b.shared && a.id > b.id))));
    }
  }

  // The parts again, as one key's depths read from the top (an empty part:
  // no such key): the bucket named is the first non-marker one, and more
  // depths are asked for only under markers all the way down.
  std::vector<std::optional<std::string_view>> depths;
  for (std::size_t i = 0; i < parts.size() && i < kBucketDepths; ++i) {
    if (parts[i].empty()) {
      depths.push_back(std::nullopt);
    } else {
      depths.push_back(parts[i]);
    }
  }
  const BucketRead read = ReadBucketDepths(depths);
  Check(read.depth >= 0 && read.depth < kBucketDepths);
  const auto marker = [](std::string_view v) {
    return v.size() == 1 && v[0] == '\0';
  };
  for (int d = 0; d < read.depth && d < static_cast<int>(depths.size()); ++d) {
    Check(depths[d] && marker(*depths[d]));
  }
  switch (read.state) {
    case BucketRead::State::kHolds:
      Check(depths[read.depth] && !marker(*depths[read.depth]) &&
            read.entries.data() == depths[read.depth]->data());
      break;
    case BucketRead::State::kDeeper:
      Check(read.depth == static_cast<int>(depths.size()) &&
            depths.size() < kBucketDepths);
      break;
    case BucketRead::State::kEmpty:
      Check(read.entries.empty());
      Check(read.depth == kBucketMaxDepth ||
            (read.depth < static_cast<int>(depths.size()) &&
             !depths[read.depth]));
      break;
  }
  return 0;
}
