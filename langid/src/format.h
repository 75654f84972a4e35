// On-disk layout of the langid dictionary file (private to mw::langid).
//
// All integers little-endian, every section 8-byte aligned. The file is:
//   FileHeader                      fixed size, at offset 0
//   LanguageRecord[language_count]  the languages, sorted by code
//   uint32 bucket_start[2^bucket_bits + 1]  index of the first entry of each
//   hash bucket Entry[entry_count]              sorted by the 64-bit word hash
//   uint32 posting[posting_count]   out-of-line postings of words shared by
//   several languages
// A word is found by hashing its UTF-8 key (Hash64), taking the top bucket_bits
// bits as the bucket and comparing the low 32 bits with Entry::fingerprint
// inside the bucket. The stored fingerprint plus the bucket index give
// bucket_bits + 32 bits of hash: a word that is not in the dictionary matches
// by accident with probability about entries_per_bucket / 2^32 per lookup. The
// checksum covers the whole file with the checksum field read as zero.
#ifndef MW_LANGID_SRC_FORMAT_H_
#define MW_LANGID_SRC_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace mw::langid::internal {

inline constexpr char kMagic[8] = {'M', 'W', 'L', 'A', 'N', 'G', 'I', 'D'};
inline constexpr std::uint32_t kVersion = 1;

struct FileHeader {
  char magic[8];
  std::uint32_t version;
  std::uint32_t header_size;  // sizeof(FileHeader)
  std::uint64_t file_size;
  std::uint64_t checksum;
  std::uint32_t language_count;
  std::uint32_t bucket_bits;
  std::uint32_t entry_count;
  std::uint32_t posting_count;
  std::uint32_t pure_count;    // entries that are tier 1 (one language only)
  std::uint32_t shared_count;  // entries that are tier 2
  // Build parameters, recorded so that `dict info` can show how the file was
  // made.
  std::uint32_t max_words;      // per language; 0 = no limit
  std::uint32_t min_count;      // words seen fewer times were ignored
  std::uint32_t max_languages;  // words in more lists than this were left out
  std::uint32_t common_count;   // entries marking common cross-language words
  double pure_share;  // share at or above which a shared word counts as tier 1
  double min_share;   // postings below this share were dropped
  std::uint64_t languages_offset;
  std::uint64_t buckets_offset;
  std::uint64_t entries_offset;
  std::uint64_t postings_offset;
  std::uint32_t ngram_top;  // trigrams kept per language; 0 = no n-gram tier
  std::uint32_t
      ngram_floor_milli;  // -1000 * log-probability floor of the n-gram tier
};
static_assert(sizeof(FileHeader) == 128);

struct LanguageRecord {
  char code[8];         // NUL-padded, e.g. "en", "pt", "nb"
  char script[16];      // ICU script name of the list, NUL-padded ("Latin")
  std::uint32_t words;  // entries that carry this language
  std::uint32_t pure_words;  // of which tier 1
  std::uint32_t
      flags;  // kLanguageScriptDecided, kLanguageVariant, kLanguagePair
  // With kLanguageVariant: the index of the language it is a variant of; with
  // kLanguagePair, of the language it is told from.
  std::uint32_t variant_of;
};
static_assert(sizeof(LanguageRecord) == 40);

// The language's script identifies it alone (Greek, Hangul, ...): it has no
// words in the file.
inline constexpr std::uint32_t kLanguageScriptDecided = 1;
// A written variant of another language (Nynorsk beside Bokmål): no words; the
// variant tier tells it from that language (kVariantPrefix). Files without
// variants are as before, so the version stays 1.
inline constexpr std::uint32_t kLanguageVariant = 2;
// One of a close pair (Xhosa beside Zulu), with words of its own: the variant
// tier's n-grams under its index tell it from the other (variant_of). A reader
// that does not know the flag reads the language as before.
inline constexpr std::uint32_t kLanguagePair = 4;
// With kLanguagePair, bits 8-15 of the flags: the smallest sum of the pair's
// values (nats) that overrides the word tiers (LanguageInfo::pair_min; a file
// without it reads 0).
inline constexpr std::uint32_t kPairMinShift = 8;

// Entry::payload: bit 31 clear: one inline posting (see Posting encoding
// below). Bit 31 set: bits 0-23 index the first out-of-line posting, bits 24-30
// hold their count; kCommonWord (count 0) marks a common cross-language word,
// which has no postings.
struct Entry {
  std::uint32_t fingerprint;
  std::uint32_t payload;
};
static_assert(sizeof(Entry) == 8);

inline constexpr std::uint32_t kOutOfLine = 0x80000000u;
inline constexpr std::uint32_t kMaxPostings = 127;
inline constexpr std::uint32_t kCommonWord = 0x80000000u;
inline constexpr std::uint32_t kMaxPostingIndex = (1u << 24) - 1;

// Posting encoding (31 bits): bits 0-15 weight * 65535, bits 16-23 language
// index, bit 24 pure.
inline constexpr std::uint32_t kPureBit = 1u << 24;
inline constexpr std::uint32_t EncodePosting(std::uint32_t language, bool pure,
                                             std::uint32_t weight16) {
  return (pure ? kPureBit : 0u) | (language << 16) | (weight16 & 0xffffu);
}

// FNV-1a over the bytes, then a murmur3 finaliser so that the top bits (the
// bucket) are mixed. Stable across platforms: the file depends on it.
// N-gram tier keys: a byte that no normalised word contains, then the trigram's
// UTF-8.
inline constexpr char kNgramPrefix = '\x01';
// The letter markers (Model::LetterLanguage): one entry under this key alone,
// one posting per marker, pure, its language in bits 16-23 and the letter's
// code point (the BMP only) in the 16 weight bits.
inline constexpr char kLetterKey = '\x02';
// Variant tier keys: this byte, then a letter n-gram (1-5 letters, inside a
// word). One posting per variant with a value for the n-gram: the variant's
// language in bits 16-23 and kVariantZero + 100 * ln(P_variant / P_base) in the
// 16 weight bits (langid::VariantList).
inline constexpr char kVariantPrefix = '\x03';
inline constexpr std::uint32_t kVariantZero = 32768;

inline std::uint64_t Hash64(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

// Checksum of a whole file: FNV-1a style over 8-byte little-endian words (tail
// bytes zero-padded), with the header's checksum field taken as zero. About 1
// GB/s.
inline std::uint64_t FileChecksum(const unsigned char* data, std::size_t size) {
  constexpr std::size_t kChecksumAt = offsetof(FileHeader, checksum);
  std::uint64_t h = 0xcbf29ce484222325ull ^ size;
  std::size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, data + i, 8);
    if (i == kChecksumAt) w = 0;
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  if (i < size) {
    std::uint64_t w = 0;
    std::memcpy(&w, data + i, size - i);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  return h;
}

}  // namespace mw::langid::internal

#endif  // MW_LANGID_SRC_FORMAT_H_
