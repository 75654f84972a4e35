// The langid dictionary: an immutable, memory-mapped two-tier word dictionary.
//
// Tier 1 holds words that belong to one language only (a hit is strong
// evidence); tier 2 holds words shared by several languages, each with a
// per-language weight (the language's share of the word's relative frequency,
// see docs/langid.md). The file format is described in langid/src/format.h and
// docs/langid.md; `mailwave dict build` writes it (see build.h).
//
// Thread-safety: a Model is immutable after Open/FromBytes; share one instance
// between any number of threads (e.g. as std::shared_ptr<const Model>). Lookup
// allocates nothing.
#ifndef MW_LANGID_MODEL_H_
#define MW_LANGID_MODEL_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mw/result.h"

namespace mw::langid {

// How a dictionary was built; recorded in the file header and shown by
// `mailwave dict info`.
struct BuildParams {
  // Words kept per language, most frequent first; 0 = all.
  std::uint32_t max_words = 0;
  // Words counted fewer times than this are ignored.
  std::uint32_t min_count = 1;
  // A word no language dominates whose shares spread over more than this many
  // languages (perplexity exp(-sum p ln p) of the shares) is a common
  // cross-language token ("a", "in", names): stored as known, evidence for no
  // language.
  std::uint32_t max_languages = 5;
  // A word whose share for one language is at least this is that language's
  // tier-1 word.
  double pure_share = 0.9;
  // Tier-2 weights below this share are dropped.
  double min_share = 0.01;
  // Character-trigram tier: the most frequent trigrams of each language's words
  // (each word counted once, with word-boundary marks) and their
  // log-probabilities; 0 = none.
  std::uint32_t ngram_top = 3000;
};

struct LanguageInfo {
  std::string code;    // ISO 639-1 where one exists, else ISO 639-3
  std::string script;  // ICU script name of its word list ("Latin", "Cyrillic")
  std::uint32_t words = 0;       // dictionary words that carry this language
  std::uint32_t pure_words = 0;  // of which tier 1
  bool script_decided =
      false;  // its script identifies it alone; it has no words
  // A written variant (Nynorsk) of the language with this index (Bokmål),
  // told from it by the variant tier (Model::LookupVariant); it has no words.
  // -1: not a variant.
  int variant_of = -1;
  // The first of a close pair (Xhosa) with the language of this index (Zulu):
  // both have words; the variant tier's values under this language are ln
  // P_this - ln P_other, and the verdict names whichever of the two they
  // favour. -1: none.
  int pair_with = -1;
  // With pair_with: a sum of the pair's values (nats) under this leaves the
  // verdict to the word tiers.
  double pair_min = 0;
};

// One (language, weight) pair of a word. `pure` marks a tier-1 word (weight 1).
struct Posting {
  std::uint32_t language = 0;  // index into Model::languages()
  bool pure = false;
  double weight = 0;
};

// The postings of one word: a view into the mapped file, valid while the Model
// lives.
class PostingList {
 public:
  PostingList() = default;
  PostingList(const std::uint32_t* data, std::uint32_t size,
              std::uint32_t inline_value, bool common = false)
      : data_(data), size_(size), inline_(inline_value), common_(common) {}
  std::uint32_t size() const { return size_; }
  // True for a word in no dictionary (a common word is empty too).
  bool empty() const { return size_ == 0; }
  // A common cross-language word ("a", "in", names found in most lists): known,
  // but evidence for no language.
  bool common() const { return common_; }
  // Inline: the n-gram tier decodes tens of postings per trigram.
  Posting operator[](std::uint32_t i) const {
    const std::uint32_t v = encoded(i);
    Posting p;
    p.language = (v >> 16) & 0xffu;
    p.pure = (v & kPureBit) != 0;
    p.weight = p.pure ? 1.0 : static_cast<double>(v & 0xffffu) / 65535.0;
    return p;
  }

  // The encoded posting (langid/src/format.h: bits 0-15 weight * 65535, bits
  // 16-23 language, bit 24 pure), which operator[] decodes.
  std::uint32_t encoded(std::uint32_t i) const {
    return data_ ? data_[i] : inline_;
  }
  // A cache hint for a later read of the postings: out of line, they are a
  // third dependent cache miss after the dictionary's bucket and entry.
  void Prefetch() const {
    if (data_ == nullptr) return;
    const auto end = reinterpret_cast<std::uintptr_t>(data_ + size_);
    for (auto line =
             reinterpret_cast<std::uintptr_t>(data_) & ~std::uintptr_t{63};
         line < end; line += 64) {
      __builtin_prefetch(reinterpret_cast<const void*>(line));
    }
  }

  // The tier-1 flag of an encoded posting (langid/src/format.h).
  static constexpr std::uint32_t kPureBit = 1u << 24;

 private:
  const std::uint32_t* data_ = nullptr;  // null: the single posting is inline_
  std::uint32_t size_ = 0;
  std::uint32_t inline_ = 0;
  bool common_ = false;
};

class Model {
 public:
  // Maps the file at `path` read-only and validates it (magic, version, sizes,
  // offsets, checksum). Errors: kNotFound / kIo when it cannot be opened or
  // mapped, kCorrupt (message naming the file and what is wrong) when it is
  // truncated, damaged or of another version.
  static Result<Model> Open(const std::string& path);

  // The same validation on an in-memory image, which the Model then owns
  // (tests, builders).
  static Result<Model> FromBytes(std::string bytes,
                                 std::string_view name = "<memory>");

  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();

  // Postings of `key` (a normalised word, see langid.h); empty when the word is
  // unknown. Allocation-free.
  PostingList Lookup(std::string_view key) const;
  // Lookup(key) is LookupHashed(KeyHash(key)): the detector hashes a word once
  // and probes the dictionary some words later (see Prefetch).
  static std::uint64_t KeyHash(std::string_view key);
  PostingList LookupHashed(std::uint64_t hash) const;
  // Cache hints for a later LookupHashed(hash), which costs two dependent
  // cache misses (bucket index, then entries) in a file that does not fit in
  // the cache: PrefetchBucket starts loading the bucket index; PrefetchEntries,
  // called once that has had time to arrive, reads it and starts loading the
  // entries. Neither has any effect beyond the cache.
  void PrefetchBucket(std::uint64_t hash) const;
  void PrefetchEntries(std::uint64_t hash) const;
  // Postings of a character trigram (UTF-8, ' ' marks a word boundary) in the
  // n-gram tier: Posting::weight is (log P - floor) / -floor for that language.
  // Empty when absent.
  PostingList LookupNgram(std::string_view trigram) const;
  // The log-probability of a trigram a language's list does not have (< 0); 0 =
  // no tier.
  double ngram_floor() const { return ngram_floor_; }

  // The variant tier: per variant language (LanguageInfo::variant_of) with a
  // value for `ngram` (1-5 letters of a normalised word), one posting;
  // VariantValue decodes it. Empty for an n-gram without values.
  PostingList LookupVariant(std::string_view ngram) const;
  // The hash LookupHashed takes for LookupVariant(ngram) (so that a caller
  // can prefetch); nullopt for an n-gram too long to be a key (over 31
  // bytes), which has no values.
  static std::optional<std::uint64_t> VariantKeyHash(std::string_view ngram);
  // ln(P_variant(g) / P_base(g)) of an encoded variant posting, with its
  // language in bits 16-23 as for any posting.
  static double VariantValue(std::uint32_t encoded) {
    return (static_cast<double>(encoded & 0xffffu) - 32768.0) / 100.0;
  }
  // The indices of the variant languages, ascending; usually empty.
  const std::vector<std::uint32_t>& variants() const { return variants_; }
  // The indices of the first languages of close pairs
  // (LanguageInfo::pair_with).
  const std::vector<std::uint32_t>& pairs() const { return pairs_; }
  // The language (index into languages()) whose list alone writes letter `c`
  // (a code point, NFKC case-folded as words are), or -1. A word no list has
  // that holds such a letter is that language's (docs/langid.md, "Marker
  // letters");
  // the builder finds these letters in the lists. Allocation-free.
  int LetterLanguage(char32_t c) const {
    if (c < letters_lo_ || c > letters_hi_) return -1;
    const auto it =
        std::lower_bound(letters_.begin(), letters_.end(), c,
                         [](const std::pair<char32_t, std::uint32_t>& m,
                            char32_t v) { return m.first < v; });
    return it != letters_.end() && it->first == c ? static_cast<int>(it->second)
                                                  : -1;
  }
  // The marker letters with their languages, by code point.
  const std::vector<std::pair<char32_t, std::uint32_t>>& letters() const {
    return letters_;
  }

  const std::vector<LanguageInfo>& languages() const { return languages_; }
  // Index of `code` in languages(), or -1.
  int FindLanguage(std::string_view code) const;
  const BuildParams& params() const { return params_; }
  std::uint32_t version() const;
  std::uint64_t file_size() const;
  std::uint64_t checksum() const;
  // Distinct for every Model opened or built in this process (never 0), the
  // same after a move: what a cache derived from the model's data keys on,
  // since another model may later sit at the same address.
  std::uint64_t id() const { return id_; }
  std::uint32_t entry_count() const;
  std::uint32_t pure_count() const;
  std::uint32_t shared_count() const;
  std::uint32_t common_count() const;
  std::uint32_t posting_count() const;

 private:
  struct Storage;  // the mapping or the owned bytes
  explicit Model(std::unique_ptr<Storage> storage);
  static Result<Model> Validate(std::unique_ptr<Storage> storage,
                                std::string_view name);

  std::unique_ptr<Storage> storage_;
  std::uint64_t id_ = 0;
  std::vector<LanguageInfo> languages_;
  BuildParams params_;
  const std::uint32_t* buckets_ = nullptr;
  const void* entries_ = nullptr;
  const std::uint32_t* postings_ = nullptr;
  std::uint32_t bucket_bits_ = 0;
  double ngram_floor_ = 0;
  std::vector<std::uint32_t> variants_;
  std::vector<std::uint32_t> pairs_;
  std::vector<std::pair<char32_t, std::uint32_t>> letters_;
  char32_t letters_lo_ = 1, letters_hi_ = 0;  // their range (empty: lo > hi)
};

// Where the programs look for the dictionary when the configuration names none,
// in order: <directory of the running program>/../share/mailwave/langid.dict
// (the build tree and a
// --prefix install), then /usr/local/share/mailwave/langid.dict and
// /usr/share/mailwave/langid.dict.
std::vector<std::string> DefaultDictionaryPaths();

// Opens `configured` when it is not empty, else the first of
// DefaultDictionaryPaths() that exists. Errors are one line: the Open error for
// a configured file, or kNotFound listing the places searched when there is no
// default dictionary.
Result<Model> OpenDictionary(const std::string& configured);

}  // namespace mw::langid

#endif  // MW_LANGID_MODEL_H_
