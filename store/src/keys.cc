#include "keys.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "fingerprint/simhash.h"

namespace mw::store {

// splitmix64's finaliser: a bijection whose output bits each depend on every
// input bit, enough to spread keys that are already hashes or small integers.
std::uint64_t Mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

std::uint64_t Mix2(std::uint64_t tag, std::uint64_t value) {
  return Mix(Mix(value) ^ (tag * 0x9e3779b97f4a7c15ull));
}

namespace {

// The 64-bit hash of the gram gram[0..kCtphGram) at `block_size`.
std::uint64_t GramHash(std::string_view gram, std::uint32_t block_size) {
  std::uint64_t packed = 0;
  static_assert(kCtphGram <= 8, "a gram fits 64 bits");
  for (const char c : gram)
    packed = (packed << 8) | static_cast<std::uint8_t>(c);
  return Mix2(static_cast<std::uint64_t>(KeyKind::kCtph),
              Mix(packed) ^ block_size);
}

void AddGrams(std::string_view sig, std::uint32_t block_size,
              std::vector<std::uint32_t>* keys) {
  if (block_size == 0 || sig.size() < kCtphGram) return;
  for (std::size_t i = 0; i + kCtphGram <= sig.size(); ++i) {
    const std::uint64_t h = GramHash(sig.substr(i, kCtphGram), block_size);
    if (h % kCtphSampleModulus == 0) {
      keys->push_back(static_cast<std::uint32_t>(h >> 32));
    }
  }
}

}  // namespace

std::uint32_t KeyOf(KeyKind kind, std::uint64_t value) {
  return static_cast<std::uint32_t>(
      Mix2(static_cast<std::uint64_t>(kind), value) >> 32);
}

std::int64_t Sha1Prefix(const fingerprint::Sha1& sha1) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | sha1[i];
  return static_cast<std::int64_t>(v);
}

std::vector<std::uint32_t> IndexKeys(const fingerprint::Fingerprint& fp,
                                     const fingerprint::Options& options) {
  std::vector<std::uint32_t> keys;
  if (fp.body_bytes == 0) return keys;

  keys.push_back(KeyOf(KeyKind::kExact,
                       static_cast<std::uint64_t>(Sha1Prefix(fp.body_sha1))));

  // Each list is sampled on its own: when one kind changes wholesale (lines
  // rewrapped, sentences shuffled across lines), the other kind's sample
  // still finds the message, which a sample of the union would not (its
  // smallest keys would then mostly be the changed kind's).
  const std::size_t per_list =
      fp.other_blocks ? kBlockSample / 2 : kBlockSample;
  std::vector<std::uint64_t> blocks;
  for (const fingerprint::BlockList* list :
       {&fp.blocks, fp.other_blocks ? &*fp.other_blocks : nullptr}) {
    if (list == nullptr) continue;
    std::vector<std::uint64_t> own;
    own.reserve(list->keys.size());
    for (const fingerprint::BlockKey& k : list->keys) own.push_back(k.key);
    std::sort(own.begin(), own.end());
    own.erase(std::unique(own.begin(), own.end()), own.end());
    if (own.size() > per_list) own.resize(per_list);
    blocks.insert(blocks.end(), own.begin(), own.end());
  }
  for (const std::uint64_t b : blocks)
    keys.push_back(KeyOf(KeyKind::kBlock, b));

  // The reordering path of Compare needs equal word bags; shuffled
  // sentences break most blocks and can move the SimHash past every band, so
  // the bag is a key of its own (store_eval lost such pairs without it).
  if (options.reorder_min_words > 0 &&
      fp.word_bag.words >= options.reorder_min_words) {
    keys.push_back(KeyOf(KeyKind::kWordBag, fp.word_bag.hash));
  }

  for (const std::uint64_t band :
       fingerprint::SimHashKeys(fp.simhash, options.simhash_max_distance)) {
    keys.push_back(KeyOf(KeyKind::kSimHash, band));
  }

  // sig at B and sig2 at 2B: a message at B and one at 2B compare the
  // first's sig2 with the second's sig (CtphEditRate), both tagged 2B here.
  AddGrams(fp.ctph.sig, fp.ctph.block_size, &keys);
  AddGrams(fp.ctph.sig2, fp.ctph.block_size * 2, &keys);

  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::int64_t IndexRow(std::uint32_t key, std::int64_t message_id) {
  return static_cast<std::int64_t>(
      (std::uint64_t{key} << 32) |
      (static_cast<std::uint64_t>(message_id) & 0xffffffffull));
}

RowRange KeyRows(std::uint32_t key) {
  const std::uint64_t base = std::uint64_t{key} << 32;
  return {static_cast<std::int64_t>(base),
          static_cast<std::int64_t>(base | 0xffffffffull)};
}

std::int64_t ResolveMessageId(std::uint32_t low, std::int64_t max_id) {
  if (max_id <= 0) return 0;
  const std::uint64_t max = static_cast<std::uint64_t>(max_id);
  std::uint64_t id = (max & ~0xffffffffull) | low;
  if (id > max) {
    if (id < (std::uint64_t{1} << 32)) return 0;
    id -= std::uint64_t{1} << 32;
  }
  return id == 0 ? 0 : static_cast<std::int64_t>(id);
}

}  // namespace mw::store
