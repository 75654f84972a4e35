// The index keys of a fingerprint: the integer keys under which the store
// files a message so that Find reaches its near-duplicates by exact lookups.
//
// This file is the single source of keys: Record files a message under
// IndexKeys(fp), Find looks IndexKeys(query) up, and Prune recomputes them
// from the stored fingerprint to delete the message's index rows.
//
// Thread-safety: pure functions.
#ifndef MW_STORE_KEYS_H_
#define MW_STORE_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fingerprint/fingerprint.h"

namespace mw::store {

// Bottom-k sample of the block keys: the kBlockSample smallest distinct
// BlockKey::key values of the block list, or kBlockSample / 2 of each list
// when the fingerprint has two. Two messages whose block sets are mostly
// equal share their smallest elements with high probability, so a few keys
// stand for a list of hundreds of blocks. 8 and 8 (below) were chosen with
// store_eval on seed 20261122: 12 and 4 cost 32 index rows a message; 8 and 8
// cost 20 and lose no pair of any class there (docs/store.md).
inline constexpr std::size_t kBlockSample = 8;
// CTPH grams: kCtphGram consecutive signature symbols; a gram is kept when its
// hash is 0 mod kCtphSampleModulus (about one in eight), and so is kept or
// dropped alike in every signature that has it.
inline constexpr std::size_t kCtphGram = 7;
inline constexpr std::uint64_t kCtphSampleModulus = 8;

// What a key was made from; each kind hashes with its own tag, so keys of
// different kinds collide only by chance.
enum class KeyKind : std::uint64_t {
  kExact = 1,    // the body SHA-1
  kBlock = 2,    // a sampled block key
  kSimHash = 3,  // a SimHash band key
  kCtph = 4,     // a sampled CTPH gram with its block size
  kWordBag = 5,  // the word bag (same words, any order)
};

// splitmix64's finaliser, and a mix of two values with it: every output bit
// depends on every input bit.
std::uint64_t Mix(std::uint64_t x);
std::uint64_t Mix2(std::uint64_t tag, std::uint64_t value);

// The 32-bit key of `value` of `kind`: the top half of a 64-bit mix of both.
std::uint32_t KeyOf(KeyKind kind, std::uint64_t value);

// Every index key of `fp` (computed under `options`), sorted, without
// duplicates. An empty body (body_bytes == 0) has none.
std::vector<std::uint32_t> IndexKeys(const fingerprint::Fingerprint& fp,
                                     const fingerprint::Options& options);

// The body SHA-1's first 8 bytes (big-endian) as a signed integer, the form the
// messages table keeps.
std::int64_t Sha1Prefix(const fingerprint::Sha1& sha1);

// The index table's rowid for (key, message): the key in the high 32 bits,
// the message id's low 32 bits in the low ones, read as a signed integer.
std::int64_t IndexRow(std::uint32_t key, std::int64_t message_id);
// The low 32 bits of the message id an index row names.
inline std::uint32_t IndexRowMessage(std::int64_t row) {
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(row));
}
// The rowids of one key: [lo, hi], contiguous in signed order because both
// ends share their high 32 bits.
struct RowRange {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};
RowRange KeyRows(std::uint32_t key);

// The full message id whose low 32 bits are `low`: the largest id <= `max_id`
// with them, or 0 when there is none. Message ids only grow, so this is the
// only message an index row can still name.
std::int64_t ResolveMessageId(std::uint32_t low, std::int64_t max_id);

}  // namespace mw::store

#endif  // MW_STORE_KEYS_H_
