#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "format.h"
#include "formula.h"
#include "langid/langid.h"
#include "mw/pool.h"
#include "preprocess.h"
#include "scratch.h"
#include "scratch_table.h"
#include "text.h"
#include "variant.h"

namespace mw::langid {

using internal::BlankAddresses;
using internal::Buffer;
using internal::Formula;
using internal::HasC1;
using internal::kMinSegmentWords;
using internal::ScratchTable;

namespace {

// Languages a script decides alone, in a fixed order (slots after the model's
// languages).
constexpr std::array<std::string_view, 24> kDirect = {
    "el", "ka", "hy", "ko", "ja", "zh", "th", "he", "bn", "gu", "pa", "ta",
    "te", "kn", "ml", "or", "si", "km", "lo", "my", "am", "bo", "dv", "mn"};

constexpr int DirectSlot(std::string_view code) {
  for (std::size_t i = 0; i < kDirect.size(); ++i) {
    if (kDirect[i] == code) return static_cast<int>(i);
  }
  return -1;
}

constexpr int kZhSlot = DirectSlot("zh");

// The kDirect slot of the language each script decides alone, by
// UScriptCode; -1 for the other scripts. A table: the words of Indic, Greek
// or Hangul text looked the slot up by name (a search with string compares,
// a tenth of the time on those texts).
const std::array<std::int8_t, USCRIPT_CODE_LIMIT>& DirectSlotsByScript() {
  static const std::array<std::int8_t, USCRIPT_CODE_LIMIT> table = [] {
    std::array<std::int8_t, USCRIPT_CODE_LIMIT> slots;
    for (int s = 0; s < USCRIPT_CODE_LIMIT; ++s) {
      slots[s] =
          static_cast<std::int8_t>(DirectSlot(internal::DirectLanguage(s)));
    }
    return slots;
  }();
  return table;
}

// DirectSlot(internal::DirectLanguage(script)).
int DirectSlotOfScript(int script) {
  return script >= 0 && script < USCRIPT_CODE_LIMIT
             ? DirectSlotsByScript()[script]
             : -1;
}

// Affinity (Evidence::affinity) is measured against this share: a language
// whose share of a word is p gains log(p / kAffinityFloor), so a share at the
// floor, or none, gains nothing. Below the dictionary's min_share (0.01), so
// that every stored share gains something.
constexpr double kAffinityFloor = 0.002;

// log(1 / kAffinityFloor): the affinity of a tier-1 or script-decided word.
const double kPureAffinity = -std::log(kAffinityFloor);

// ln(x) for a normal x > 0, to about 1e-9: the exponent, and the series
// ln m = 2 artanh((m - 1) / (m + 1)) on a mantissa m in [sqrt(1/2), sqrt(2)).
// std::log costs several times more, and Collect takes one per posting of
// every word (about a tenth of the detection time per line).
inline double FastLog(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
  double m;
  std::memcpy(&m, &bits, sizeof m);  // [1, 2)
  if (m > 1.4142135623730951) m *= 0.5, ++e;
  const double t = (m - 1) / (m + 1);  // |t| < 0.172
  const double t2 = t * t;
  return e * 0.6931471805599453 +
         2 * t *
             (1 + t2 * (1.0 / 3 + t2 * (1.0 / 5 + t2 * (1.0 / 7 + t2 / 9))));
}

// The affinity gain of a share (0 at or below the floor).
inline double AffinityGain(double share) {
  return share > kAffinityFloor ? FastLog(share / kAffinityFloor) : 0.0;
}

#if defined(__SSE2__)
// AffinityGain(share[0]) and AffinityGain(share[1]) into gain[0..1], for shares
// above kAffinityFloor: the same IEEE operations in the same order as the
// scalar code (SSE2 has no fused multiply-add, and this is part of every
// x86-64 CPU), so the same bits, at about half the cost of its two divisions
// per share.
inline void Gains2(const double* share, double* gain) {
  const __m128d s = _mm_loadu_pd(share);
  const __m128d x = _mm_div_pd(s, _mm_set1_pd(kAffinityFloor));
  const __m128i bits = _mm_castpd_si128(x);
  // The exponents (x > 1: the sign bit is clear) as two 32-bit integers in
  // the low lanes.
  __m128i e = _mm_sub_epi32(
      _mm_shuffle_epi32(_mm_srli_epi64(bits, 52), _MM_SHUFFLE(3, 3, 2, 0)),
      _mm_set1_epi32(1023));
  __m128d m = _mm_castsi128_pd(
      _mm_or_si128(_mm_and_si128(bits, _mm_set1_epi64x(0x000fffffffffffffll)),
                   _mm_set1_epi64x(0x3ff0000000000000ll)));
  const __m128d big = _mm_cmpgt_pd(m, _mm_set1_pd(1.4142135623730951));
  m = _mm_or_pd(_mm_and_pd(big, _mm_mul_pd(m, _mm_set1_pd(0.5))),
                _mm_andnot_pd(big, m));
  e = _mm_sub_epi32(
      e, _mm_shuffle_epi32(_mm_castpd_si128(big), _MM_SHUFFLE(3, 3, 2, 0)));
  const __m128d one = _mm_set1_pd(1.0);
  const __m128d t = _mm_div_pd(_mm_sub_pd(m, one), _mm_add_pd(m, one));
  const __m128d t2 = _mm_mul_pd(t, t);
  __m128d p = _mm_add_pd(_mm_set1_pd(1.0 / 7), _mm_div_pd(t2, _mm_set1_pd(9)));
  p = _mm_add_pd(_mm_set1_pd(1.0 / 5), _mm_mul_pd(t2, p));
  p = _mm_add_pd(_mm_set1_pd(1.0 / 3), _mm_mul_pd(t2, p));
  p = _mm_add_pd(one, _mm_mul_pd(t2, p));
  const __m128d log = _mm_add_pd(
      _mm_mul_pd(_mm_cvtepi32_pd(e), _mm_set1_pd(0.6931471805599453)),
      _mm_mul_pd(_mm_mul_pd(_mm_set1_pd(2.0), t), p));
  _mm_storeu_pd(gain, log);
}
#endif

// One language share of an unknown word from the n-gram tier, with its
// affinity gain (the reference path, which scores every occurrence afresh).
struct NgramShare {
  std::uint32_t language = 0;
  double share = 0;
  double gain = 0;
};

// A candidate and one value (a share or an affinity gain) for it.
struct LanguageValue {
  std::uint32_t language;
  double value;
};

// A tier-2 posting of a word decoded once per text: its weight and
// AffinityGain(weight).
struct DecodedPosting {
  std::uint32_t language;
  double weight;
  double gain;
};

// What a word is in the dictionary (MemoSlot::kind).
enum class WordKind : std::uint8_t { kUnknown, kCommon, kPure, kShared };

// What one distinct word of a text gave (a key is a view into the text): its
// evidence ready to be added for each occurrence, decoded and with its
// affinity gains computed once.
struct MemoSlot {
  std::uint32_t gen = 0;
  std::uint32_t size = 0;
  std::uint64_t hash = 0;
  const char* data = nullptr;
  WordKind kind = WordKind::kUnknown;
  bool ngram_scored = false;  // NgramShares counted it (++n_ngram)
  // kUnknown: the n-gram tier has been asked (NgramSharesMemo). A word first
  // met after the tier stopped is asked when a new paragraph opens it again
  // (NgramOpen), as the reference scores that occurrence.
  bool ngram_tried = false;
  // kPure: the language. kShared: Scratch::postings[begin, begin + count).
  // kUnknown and kCommon scored by the n-gram tier: Scratch::ngram_shares
  // [begin, begin + count) (every share, for Evidence::ngram) and
  // Scratch::ngram_gains [gain_begin, gain_begin + gain_count) (the gains
  // that are not 0: adding a 0 gain to a sum that is never -0 changes no bit).
  std::uint32_t language = 0;
  std::uint32_t begin = 0;
  std::uint32_t count = 0;
  std::uint32_t gain_begin = 0;
  std::uint32_t gain_count = 0;
};

// A trigram of the n-gram tier (its UTF-8, at most 12 bytes, zero-padded to 16:
// words hold no NUL) with its postings decoded once into languages and
// weight * -floor (Scratch::contribution_*): trigrams repeat far more than
// words, and each costs a dictionary probe and tens of postings.
struct TrigramSlot {
  std::uint32_t gen = 0;
  std::uint32_t count = 0;
  std::uint64_t hash = 0;
  std::uint64_t key[2] = {0, 0};
  std::uint32_t begin = 0;  // into Scratch::contribution_*
  // Every posting has a weight above 0: `languages` (one bit per language, of
  // at most 256: 8 bits in the file) then tells which languages it makes
  // non-zero.
  bool positive = false;
  // Also its languages ascend (as `mailwave dict build` writes them): its
  // new languages, in posting order, are then the set bits in order.
  bool ascending = false;
  std::uint64_t languages[4] = {0, 0, 0, 0};
};

// What the n-gram tier made of one word (NgramSharesMemo), kept from text to
// text with the trigram memo: its bytes (Scratch::word_keys [key_begin,
// key_begin + key_size)) and, when it could be scored, its shares and gains
// (Scratch::kept_shares and kept_gains), as a MemoSlot holds them per text.
struct SharesSlot {
  std::uint32_t gen = 0;
  std::uint64_t hash = 0;
  std::uint32_t key_begin = 0;
  std::uint32_t key_size = 0;
  bool scored = false;
  std::uint32_t begin = 0;
  std::uint32_t count = 0;
  std::uint32_t gain_begin = 0;
  std::uint32_t gain_count = 0;
};

// The most trigrams of a word NgramShares scores: one per byte of its padded
// copy at most.
constexpr std::int32_t kMaxTrigrams = 256;

// Per-thread memory of Collect, reused from text to text.
struct Scratch {
  ScratchTable<MemoSlot> words;
  ScratchTable<TrigramSlot> trigrams;
  Buffer<DecodedPosting> postings;     // MemoSlot of a kShared word
  Buffer<LanguageValue> ngram_shares;  // MemoSlot of an unknown word
  Buffer<LanguageValue> ngram_gains;   // likewise
  // TrigramSlot: language and weight * -floor of each posting, apart so that
  // the trigrams of a 60 KB text (about 50 k postings) stay in the L2 cache.
  Buffer<std::uint8_t> contribution_language;
  Buffer<double> contribution_weight;
  // PrepareTrigrams: the postings of one word's trigrams (kMaxTrigrams once
  // used).
  std::vector<PostingList> trigram_postings;
  // The model whose trigrams `trigrams` and contribution_* hold (Model::id;
  // 0: none). What a trigram decodes to depends on the model alone, so the
  // trigram memo outlives the text: the next text of the same model starts
  // with the trigrams earlier texts met (most of a language's common ones),
  // and decodes only the new ones. It is started afresh when the model
  // changes or it passes half its kept bound.
  std::uint64_t trigram_model = 0;
  // Likewise kept: the n-gram shares of each word the tier scored (repeated
  // words, names and tokens recur from message to message, and every copy of
  // a wave repeats them all).
  ScratchTable<SharesSlot> word_shares;
  Buffer<char> word_keys;
  Buffer<LanguageValue> kept_shares;
  Buffer<LanguageValue> kept_gains;

  void Reset(std::size_t text_bytes, std::uint64_t model_id) {
    // About one distinct word per 16 bytes of short text, fewer in long
    // text, and 4-6 distinct trigrams per distinct word: the trigram table is
    // sized so that a message-sized text does not grow it (a doubling
    // rehashes every slot: 3% of the time on 4 KB texts at a slot per 8
    // bytes).
    const auto size_for = [&](std::size_t per_slot) {
      std::size_t capacity = 64;
      while (capacity < text_bytes / per_slot &&
             capacity < ScratchTable<MemoSlot>::kMaxKeptSlots) {
        capacity *= 2;
      }
      return capacity;
    };
    words.Reset(size_for(8));
    postings.clear();
    ngram_shares.clear();
    ngram_gains.clear();
    const auto half_full = [](const auto& buffer) {
      return 2 * buffer.size() * sizeof(*buffer.data()) <= kMaxKeptVectorBytes;
    };
    const bool keep =
        model_id == trigram_model && trigrams.capacity() > 0 &&
        word_shares.capacity() > 0 && half_full(contribution_weight) &&
        half_full(word_keys) && half_full(kept_shares) &&
        half_full(kept_gains) &&
        4 * trigrams.used() <= ScratchTable<TrigramSlot>::kMaxKeptSlots &&
        4 * word_shares.used() <= ScratchTable<SharesSlot>::kMaxKeptSlots;
    if (!keep) {
      trigrams.Reset(size_for(2));
      contribution_language.clear();
      contribution_weight.clear();
      word_shares.Reset(size_for(16));
      word_keys.clear();
      kept_shares.clear();
      kept_gains.clear();
      trigram_model = model_id;
    }
  }

  // Ends a text: what a huge text made grow beyond its cap is given back, so
  // that an idle Scratch holds at most kMaxKeptBytes of heap (HeldBytes).
  void Trim() {
    words.Trim();
    TrimVector(&postings);
    TrimVector(&ngram_shares);
    TrimVector(&ngram_gains);
    // What is kept for the model goes whole or stays whole, whichever of
    // its parts passed its cap: the slots of the two tables index the five
    // arrays.
    if (trigrams.OverKept() || word_shares.OverKept() ||
        OverCap(contribution_language) || OverCap(contribution_weight) ||
        OverCap(word_keys) || OverCap(kept_shares) || OverCap(kept_gains)) {
      trigrams.Free();
      word_shares.Free();
      contribution_language.Trim(0);
      contribution_weight.Trim(0);
      word_keys.Trim(0);
      kept_shares.Trim(0);
      kept_gains.Trim(0);
      trigram_model = 0;  // the next text starts them all afresh
    }
  }

  std::size_t HeldBytes() const {
    return words.HeldBytes() + trigrams.HeldBytes() + BytesOf(postings) +
           BytesOf(ngram_shares) + BytesOf(ngram_gains) +
           BytesOf(contribution_language) + BytesOf(contribution_weight) +
           word_shares.HeldBytes() + BytesOf(word_keys) + BytesOf(kept_shares) +
           BytesOf(kept_gains) + BytesOf(trigram_postings);
  }

  // Each vector of per-text evidence keeps at most this much: the largest,
  // the n-gram shares, takes up to about a quarter of it for a 4 KB text of
  // mostly unknown words (zu), so that texts up to about 100 KB keep theirs.
  static constexpr std::size_t kMaxKeptVectorBytes = std::size_t{1} << 20;
  static constexpr std::size_t kMaxKeptBytes =
      ScratchTable<MemoSlot>::kMaxKeptBytes +
      ScratchTable<TrigramSlot>::kMaxKeptBytes +
      ScratchTable<SharesSlot>::kMaxKeptBytes + 8 * kMaxKeptVectorBytes +
      kMaxTrigrams * sizeof(PostingList);

 private:
  template <typename V>
  static std::size_t BytesOf(const V& v) {
    return v.capacity() * sizeof(*v.data());
  }
  template <typename T>
  static void TrimVector(Buffer<T>* v) {
    v->Trim(kMaxKeptVectorBytes);
  }
  template <typename T>
  static bool OverCap(const Buffer<T>& v) {
    return v.capacity() * sizeof(T) > kMaxKeptVectorBytes;
  }
};

// The memo hash of a trigram's key.
std::uint64_t TrigramHash(const std::uint64_t key[2]) {
  std::uint64_t h =
      (key[0] ^ (key[1] * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 29);
}

// The memo key and hash of the trigram of `size` bytes at `at`: its bytes,
// zero-padded to 16. On a little-endian CPU read as two 8-byte words and
// masked (a memcpy of a variable size is a call). REQUIRES: size <= 16, and
// 16 bytes readable at `at`.
void TrigramKey16(const char* at, std::size_t size, std::uint64_t key[2],
                  std::uint64_t* hash) {
  if constexpr (std::endian::native == std::endian::little) {
    std::uint64_t w[2];
    std::memcpy(w, at, 16);
    const auto mask = [](std::size_t bytes) {
      return bytes >= 8 ? ~std::uint64_t{0}
                        : (std::uint64_t{1} << (8 * bytes)) - 1;
    };
    key[0] = w[0] & mask(size);
    key[1] = size > 8 ? w[1] & mask(size - 8) : 0;
    *hash = TrigramHash(key);
  } else {
    key[0] = key[1] = 0;
    std::memcpy(key, at, size);
    *hash = TrigramHash(key);
  }
}

TrigramSlot* FindTrigramSlot(Scratch* scratch, const std::uint64_t key[2],
                             std::uint64_t hash, bool* fresh) {
  TrigramSlot* s = scratch->trigrams.Find(
      hash,
      [&](const TrigramSlot& t) {
        return t.key[0] == key[0] && t.key[1] == key[1];
      },
      fresh);
  if (*fresh) {
    s->key[0] = key[0];
    s->key[1] = key[1];
  }
  return s;
}

// Decodes the postings of a fresh trigram slot into Scratch::contribution_*:
// the weight of each is Posting::weight * -floor, as the reference path
// computes it (NgramShares).
void FillTrigram(Scratch* scratch, TrigramSlot* s, const PostingList& p,
                 double floor) {
  const std::uint32_t n = p.size();
  s->begin = static_cast<std::uint32_t>(scratch->contribution_weight.size());
  s->count = n;
  std::uint8_t* language = scratch->contribution_language.Extend(n);
  double* weight = scratch->contribution_weight.Extend(n);
  // A weight is above 0 exactly when its posting is tier 1 or its weight16 is
  // not 0 (-floor > 0): tested on the integers, apart from the divisions.
  std::uint32_t zero = 0;
  std::uint32_t previous = 0;
  bool ascending = true;
  std::uint64_t languages[4] = {0, 0, 0, 0};
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t v = p.encoded(k);
    // A language index is 8 bits in the file (format.h).
    const std::uint32_t l = (v >> 16) & 0xffu;
    language[k] = static_cast<std::uint8_t>(l);
    languages[l >> 6] |= std::uint64_t{1} << (l & 63);
    zero |= (v & (PostingList::kPureBit | 0xffffu)) == 0 ? 1u : 0u;
    ascending = ascending && (k == 0 || previous < l);
    previous = l;
  }
  std::uint32_t k = 0;
#if defined(__SSE2__)
  // Posting::weight is weight16 / 65535, or 1 for a tier-1 posting, which is
  // 65535 / 65535 exactly: two divisions at a time, the same bits.
  for (; k + 1 < n; k += 2) {
    const std::uint32_t v0 = p.encoded(k), v1 = p.encoded(k + 1);
    const double n0 = (v0 & PostingList::kPureBit) ? 65535.0 : (v0 & 0xffffu);
    const double n1 = (v1 & PostingList::kPureBit) ? 65535.0 : (v1 & 0xffffu);
    _mm_storeu_pd(weight + k, _mm_mul_pd(_mm_div_pd(_mm_set_pd(n1, n0),
                                                    _mm_set1_pd(65535.0)),
                                         _mm_set1_pd(-floor)));
  }
#endif
  for (; k < n; ++k) weight[k] = p[k].weight * -floor;
  s->positive = zero == 0;
  s->ascending = zero == 0 && ascending;
  std::memcpy(s->languages, languages, sizeof languages);
}

// Calls `f(trigram)` for each character trigram of `padded` (n bytes), in
// order; returns their number.
template <typename F>
std::int32_t ForEachTrigram(const char* padded, std::int32_t n, F f) {
  const auto* s = reinterpret_cast<const std::uint8_t*>(padded);
  std::int32_t starts[4] = {0, 0, 0, 0};
  std::int32_t count = 0, trigrams = 0;
  for (std::int32_t k = 0; k <= n;) {
    starts[count % 4] = k;
    ++count;
    if (count >= 4) {
      const std::int32_t a = starts[(count - 4) % 4];
      f(std::string_view(padded + a, k - a));
      ++trigrams;
    }
    if (k == n) break;
    U8_FWD_1(s, k, n);
  }
  return trigrams;
}

// Finds or enters the trigrams of one word (`padded`, n <= kMaxTrigrams bytes,
// REQUIRES: 16 more bytes readable after them) in the memo and stores their
// slots in text order in `slots`; returns their
// number. The cache misses are overlapped: first every memo slot is hinted,
// then the dictionary probes of the new trigrams are started together (bucket
// indices, then entries, then out-of-line postings), then resolved in order,
// so that `contribution_*` receives the trigrams in order of first use.
std::int32_t PrepareTrigrams(Scratch* scratch, const char* padded,
                             std::int32_t n, const Model& model, double floor,
                             TrigramSlot** slots) {
  struct Pending {
    std::uint64_t key[2];
    std::uint64_t hash;
    std::uint64_t probe;     // Model::KeyHash of the dictionary key, when fresh
    std::uint16_t at, size;  // the trigram in `padded`
    bool fresh;
  };
  Pending p[kMaxTrigrams];
  std::int32_t count = 0;
  ForEachTrigram(padded, n, [&](std::string_view trigram) {
    Pending& q = p[count++];
    // At most 3 code points of at most 4 bytes (U8_FWD_1 steps over no more).
    assert(trigram.size() <= 12);
    q.at = static_cast<std::uint16_t>(trigram.data() - padded);
    q.size = static_cast<std::uint16_t>(trigram.size());
    TrigramKey16(padded + q.at, q.size, q.key, &q.hash);
    scratch->trigrams.Prefetch(q.hash);
  });
  scratch->trigrams.Reserve(static_cast<std::size_t>(count));
  for (std::int32_t i = 0; i < count; ++i) {
    slots[i] = FindTrigramSlot(scratch, p[i].key, p[i].hash, &p[i].fresh);
    if (p[i].fresh) {
      // Only new trigrams need the dictionary: most repeat within a text.
      char key[17];
      key[0] = internal::kNgramPrefix;
      std::memcpy(key + 1, padded + p[i].at, 16);  // the bytes after: unused
      p[i].probe = Model::KeyHash(std::string_view(key, p[i].size + 1u));
      model.PrefetchBucket(p[i].probe);
    }
  }
  for (std::int32_t i = 0; i < count; ++i) {
    if (p[i].fresh) model.PrefetchEntries(p[i].probe);
  }
  std::vector<PostingList>& postings = scratch->trigram_postings;
  if (postings.size() < static_cast<std::size_t>(count)) {
    postings.resize(kMaxTrigrams);
  }
  for (std::int32_t i = 0; i < count; ++i) {
    if (p[i].fresh) {
      postings[i] = model.LookupHashed(p[i].probe);
      postings[i].Prefetch();
    }
  }
  for (std::int32_t i = 0; i < count; ++i) {
    if (p[i].fresh) FillTrigram(scratch, slots[i], postings[i], floor);
  }
  return count;
}

MemoSlot* FindWord(Scratch* scratch, std::string_view word, std::uint64_t hash,
                   bool* fresh) {
  MemoSlot* s = scratch->words.Find(
      hash,
      [&](const MemoSlot& m) {
        return m.size == word.size() &&
               std::memcmp(m.data, word.data(), word.size()) == 0;
      },
      fresh);
  if (*fresh) {
    s->data = word.data();
    s->size = static_cast<std::uint32_t>(word.size());
  }
  return s;
}

// A word waiting in Tally::pending: its dictionary probe and memo slot are
// being loaded into the cache meanwhile.
struct PendingWord {
  std::string_view word;
  int script = 0;
  bool lookup = false;     // not decided by its script: memo and dictionary
  std::uint64_t hash = 0;  // Model::KeyHash(word) when `lookup`
};

// Words between the first cache hint for a word (its memo slot and dictionary
// bucket index) and its scoring, and between the second (its dictionary
// entries, which need the bucket index) and its scoring. A cache miss costs
// about as much as scoring a few words, and the two misses of a probe are
// dependent, so each hint gets half of the lag.
constexpr std::size_t kLookAhead = 16;
constexpr std::size_t kEntriesLookAhead = 8;

struct Tally {
  const Model* model;
  NgramLimits ngram_limits = NgramLimits::None();
  std::size_t languages;                 // model languages; direct slots follow
  std::vector<double> pure;              // Xpure_i
  std::vector<double> shared;            // Xovp_i
  std::vector<std::uint32_t> by_script;  // words per UScriptCode
  std::uint32_t n_pure = 0;
  std::uint32_t n_shared = 0;
  std::uint32_t n_unknown = 0;
  std::uint32_t n_common = 0;
  std::uint32_t han = 0;
  std::uint32_t kana = 0;
  std::uint32_t han_simplified = 0;   // Evidence::han_simplified
  std::uint32_t han_traditional = 0;  // Evidence::han_traditional
  // The current line: where the last word ended, its evidence per candidate,
  // its words.
  std::string_view text;
  const char* last_end = nullptr;
  std::vector<double> line;
  std::vector<double> line_affinity;  // Evidence::affinity of the line
  // The candidates `line` holds a value for (TouchLine), and a mark per
  // candidate: FlushLine reads and clears those alone, not all ~100.
  std::vector<std::uint32_t> line_touched;
  std::vector<std::uint8_t> line_marked;
  std::uint32_t line_words = 0;
  std::vector<std::uint32_t> segment_words;  // Evidence::segment_words
  std::vector<std::uint32_t> segment_lines;  // Evidence::segment_lines
  // The current paragraph (lines up to a blank line): its words, and the
  // text's sums when it began (the Evidence fields pure to n_ngram; empty
  // vectors: zeros). Its own evidence is the text's sums at its end less
  // these, computed into `paragraph`: words add nothing per paragraph.
  std::uint32_t paragraph_words = 0;
  // Where the current paragraph's first word begins, and the text of each
  // won paragraph (parallel to `paragraphs`): the variant tier reads a
  // variant's base's paragraphs alone.
  const char* paragraph_begin = nullptr;
  std::vector<std::string_view> paragraph_text;
  bool paragraph_seen = false;  // a paragraph ended before the current one
  Evidence paragraph_start;
  std::uint32_t paragraph_start_han = 0;
  Evidence paragraph;
  bool broken = false;  // a line break was seen between two words
  std::vector<Evidence::Paragraph> paragraphs;  // Evidence::paragraphs
  std::vector<double> ngram;                    // Evidence::ngram
  std::vector<double> affinity;                 // Evidence::affinity
  std::vector<double> ngram_affinity;           // Evidence::ngram_affinity
  std::uint32_t n_ngram = 0;
  std::vector<double> common_ngram;  // Evidence::common_ngram
  std::uint32_t n_common_ngram = 0;
  std::vector<double> delta;  // scratch of NgramShares
  std::vector<std::size_t> touched;
  // What each distinct word of the text gave (words repeat heavily in long
  // text): the dictionary lookup and the n-gram scoring run once per distinct
  // word, and every occurrence then adds the cached evidence in text order, so
  // the sums are the same, to the bit, as scoring every occurrence afresh.
  Scratch* memo = nullptr;  // null: score every occurrence afresh (reference)
  std::vector<NgramShare> own_shares;  // without memo
  // With the memo, words are scored kLookAhead words after SegmentWords
  // reports them, in the same order (BufferWord, ScoreWord).
  std::array<PendingWord, kLookAhead> pending;
  std::size_t pushed = 0;  // words reported so far
  std::size_t scored = 0;  // words scored so far
  // Per slot of kDirect: the candidate its script's words count for, -1 until
  // the first such word (DirectCandidate).
  std::array<std::int32_t, kDirect.size()> direct_candidate;
};

// Whether the n-gram tier still scores unknown words (NgramLimits):
// the same test for every occurrence, in text order, with or without the memo.
bool NgramOpen(const Tally* t) {
  const NgramLimits& l = t->ngram_limits;
  if (l.text == 0 && l.paragraph == 0) return true;
  const std::uint32_t evidence = t->n_pure + t->n_shared;
  return evidence < l.text ||
         evidence - (t->paragraph_start.n_pure + t->paragraph_start.n_shared) <
             l.paragraph;
}

// How sharply the n-gram tier prefers the language whose trigrams fit best:
// shares are proportional to exp(kNgramSharpness * mean trigram
// log-probability).
constexpr double kNgramSharpness = 1.5;

// The n-gram tier on one unknown word, the reference way (no memo): records
// its language shares (summing to 1) and their affinity gains in
// t->own_shares; false when it could score nothing.
bool NgramShares(Tally* t, std::string_view word) {
  const Model& m = *t->model;
  const double floor = m.ngram_floor();
  t->own_shares.clear();
  if (floor >= 0) return false;
  char padded[256];
  if (word.size() + 2 > sizeof padded) return false;
  padded[0] = ' ';
  std::memcpy(padded + 1, word.data(), word.size());
  padded[word.size() + 1] = ' ';
  const std::int32_t n = static_cast<std::int32_t>(word.size() + 2);
  const std::int32_t trigrams =
      ForEachTrigram(padded, n, [&](std::string_view trigram) {
        const PostingList p = m.LookupNgram(trigram);
        for (std::uint32_t i = 0; i < p.size(); ++i) {
          const Posting post = p[i];
          if (t->delta[post.language] == 0) {
            t->touched.push_back(post.language);
          }
          t->delta[post.language] += post.weight * -floor;
        }
      });
  if (trigrams == 0 || t->touched.empty()) return false;
  double best = -1e300;
  for (std::size_t i : t->touched) best = std::max(best, t->delta[i]);
  double sum = 0;
  for (std::size_t i : t->touched) {
    t->delta[i] = std::exp(kNgramSharpness * (t->delta[i] - best) / trigrams);
    sum += t->delta[i];
  }
  for (std::size_t i : t->touched) {
    const double share = t->delta[i] / sum;
    t->own_shares.push_back(
        {static_cast<std::uint32_t>(i), share, AffinityGain(share)});
    t->delta[i] = 0;
  }
  t->touched.clear();
  return true;
}

// NgramShares for the memo, for a fresh `slot`: the same shares and gains to
// the bit (the same operations on each value in the same order), stored in
// Scratch::ngram_shares and ngram_gains. Each trigram's postings are decoded
// once per text (PrepareTrigrams), a language's first positive weight is
// found with a bit mask, and the divisions of the shares and gains go two at
// a time; only gains above 0 are computed and kept.
void ComputeNgramShares(Tally* t, std::string_view word, MemoSlot* slot) {
  const Model& m = *t->model;
  const double floor = m.ngram_floor();
  if (floor >= 0) return;
  // The word as the reference pads it (256 bytes at most), then 16 zero
  // bytes: PrepareTrigrams reads each trigram as two whole words.
  char padded[256 + 16];
  if (word.size() + 2 > 256) return;
  padded[0] = ' ';
  std::memcpy(padded + 1, word.data(), word.size());
  padded[word.size() + 1] = ' ';
  const std::int32_t n = static_cast<std::int32_t>(word.size() + 2);
  std::memset(padded + n, 0, 16);
  Scratch* memo = t->memo;
  TrigramSlot* slots[kMaxTrigrams];
  const std::int32_t trigrams =
      PrepareTrigrams(memo, padded, n, m, floor, slots);
  // The languages whose delta is not 0 (one bit each): the weights are never
  // negative, so a delta is 0 exactly until a positive weight was added to it.
  std::uint64_t nonzero[4] = {0, 0, 0, 0};
  // A language can enter `touched` twice only through the second branch (a
  // weight of 0 leaves its delta at 0); the shares then take the plain loop.
  bool plain = false;
  const std::uint8_t* languages = memo->contribution_language.data();
  const double* weights = memo->contribution_weight.data();
  double* delta = t->delta.data();
  for (std::int32_t k = 0; k < trigrams; ++k) {
    const TrigramSlot* cached = slots[k];
    const std::uint8_t* language = languages + cached->begin;
    const double* weight = weights + cached->begin;
    if (cached->positive) {
      // The same `touched` order as the test below, without a branch per
      // posting: a language is new when its bit is not yet set.
      std::uint64_t fresh[4];
      std::uint64_t any = 0;
      for (int w = 0; w < 4; ++w) {
        fresh[w] = cached->languages[w] & ~nonzero[w];
        any |= fresh[w];
        nonzero[w] |= cached->languages[w];
      }
      if (cached->ascending) {
        for (std::uint32_t w = 0; w < 4; ++w) {
          for (std::uint64_t f = fresh[w]; f != 0; f &= f - 1) {
            t->touched.push_back(
                64 * w + static_cast<std::uint32_t>(__builtin_ctzll(f)));
          }
        }
        any = 0;
      }
      for (std::uint32_t i = 0; any != 0 && i < cached->count; ++i) {
        const std::uint32_t l = language[i];
        const std::uint64_t bit = std::uint64_t{1} << (l & 63);
        if (fresh[l >> 6] & bit) {
          t->touched.push_back(l);
          fresh[l >> 6] &= ~bit;
          any = fresh[0] | fresh[1] | fresh[2] | fresh[3];
        }
      }
      for (std::uint32_t i = 0; i < cached->count; ++i) {
        delta[language[i]] += weight[i];
      }
    } else {
      plain = true;
      for (std::uint32_t i = 0; i < cached->count; ++i) {
        const std::uint32_t l = language[i];
        if (delta[l] == 0) t->touched.push_back(l);
        delta[l] += weight[i];
        if (delta[l] != 0) nonzero[l >> 6] |= std::uint64_t{1} << (l & 63);
      }
    }
  }
  if (trigrams == 0 || t->touched.empty()) return;
  const std::size_t count = t->touched.size();
  const std::size_t* touched = t->touched.data();
  const std::size_t begin = memo->ngram_shares.size();
  LanguageValue* shares = memo->ngram_shares.Extend(count);
  if (plain) {
    // As the reference, step by step: a repeated language's exp is taken
    // again and its second share is 0.
    double best = -1e300;
    for (std::size_t k = 0; k < count; ++k) {
      best = std::max(best, delta[touched[k]]);
    }
    double sum = 0;
    for (std::size_t k = 0; k < count; ++k) {
      const std::size_t i = touched[k];
      delta[i] = std::exp(kNgramSharpness * (delta[i] - best) / trigrams);
      sum += delta[i];
    }
    for (std::size_t k = 0; k < count; ++k) {
      shares[k] = {static_cast<std::uint32_t>(touched[k]),
                   delta[touched[k]] / sum};
      delta[touched[k]] = 0;
    }
  } else {
    // Each language once (so at most 256): the exps go to a local array in
    // `touched` order, and the maximum (exact in any order) takes two chains.
    assert(count <= 256);
    double best0 = -1e300, best1 = -1e300;
    std::size_t k = 0;
    for (; k + 1 < count; k += 2) {
      best0 = std::max(best0, delta[touched[k]]);
      best1 = std::max(best1, delta[touched[k + 1]]);
    }
    if (k < count) best0 = std::max(best0, delta[touched[k]]);
    const double best = std::max(best0, best1);
    // The exps' arguments first (two divisions at a time where SSE2 has
    // them: the same IEEE operations), then the exps and their sum in order.
    double e[256];
    k = 0;
#if defined(__SSE2__)
    for (; k + 1 < count; k += 2) {
      double& d0 = delta[touched[k]];
      double& d1 = delta[touched[k + 1]];
      _mm_storeu_pd(e + k,
                    _mm_div_pd(_mm_mul_pd(_mm_set1_pd(kNgramSharpness),
                                          _mm_sub_pd(_mm_set_pd(d1, d0),
                                                     _mm_set1_pd(best))),
                               _mm_set1_pd(static_cast<double>(trigrams))));
      d0 = 0;
      d1 = 0;
    }
#endif
    for (; k < count; ++k) {
      double& d = delta[touched[k]];
      e[k] = kNgramSharpness * (d - best) / trigrams;
      d = 0;
    }
    double sum = 0;
    for (k = 0; k < count; ++k) {
      e[k] = std::exp(e[k]);
      sum += e[k];
    }
    k = 0;
#if defined(__SSE2__)
    for (; k + 1 < count; k += 2) {
      double share[2];
      _mm_storeu_pd(share, _mm_div_pd(_mm_loadu_pd(e + k), _mm_set1_pd(sum)));
      shares[k] = {static_cast<std::uint32_t>(touched[k]), share[0]};
      shares[k + 1] = {static_cast<std::uint32_t>(touched[k + 1]), share[1]};
    }
#endif
    for (; k < count; ++k) {
      shares[k] = {static_cast<std::uint32_t>(touched[k]), e[k] / sum};
    }
  }
  t->touched.clear();
  // The gains above 0: those of the shares above kAffinityFloor (written
  // without a branch: which shares pass is unpredictable).
  const std::size_t gain_begin = memo->ngram_gains.size();
  LanguageValue* kept = memo->ngram_gains.Extend(count);
  std::size_t gain_count = 0;
  for (std::size_t k = 0; k < count; ++k) {
    kept[gain_count] = shares[k];
    gain_count += shares[k].value > kAffinityFloor ? 1 : 0;
  }
  memo->ngram_gains.Truncate(gain_begin + gain_count);
  LanguageValue* gains = kept;
  std::size_t k = 0;
#if defined(__SSE2__)
  for (; k + 1 < gain_count; k += 2) {
    const double share[2] = {gains[k].value, gains[k + 1].value};
    double gain[2];
    Gains2(share, gain);
    gains[k].value = gain[0];
    gains[k + 1].value = gain[1];
  }
#endif
  for (; k < gain_count; ++k) gains[k].value = AffinityGain(gains[k].value);
  slot->begin = static_cast<std::uint32_t>(begin);
  slot->count = static_cast<std::uint32_t>(count);
  slot->gain_begin = static_cast<std::uint32_t>(gain_begin);
  slot->gain_count = static_cast<std::uint32_t>(gain_count);
  slot->ngram_scored = true;
}

// Copies the shares and gains `from` indexes in `from_shares`/`from_gains` to
// the end of `to_shares`/`to_gains`, and points `to` at the copies: a word's
// n-gram evidence between the text's memo (MemoSlot) and what is kept for
// the model (SharesSlot), in either direction.
template <typename From, typename To>
void CopyShares(const From& from, const Buffer<LanguageValue>& from_shares,
                const Buffer<LanguageValue>& from_gains, To* to,
                Buffer<LanguageValue>* to_shares,
                Buffer<LanguageValue>* to_gains) {
  to->begin = to_shares->Append(from_shares.data() + from.begin, from.count);
  to->count = from.count;
  to->gain_begin =
      to_gains->Append(from_gains.data() + from.gain_begin, from.gain_count);
  to->gain_count = from.gain_count;
}

// NgramShares with the memo, for a fresh `slot`: ComputeNgramShares, or what
// it gave for the same word in an earlier text of this model (the same values,
// copied).
void NgramSharesMemo(Tally* t, std::string_view word, MemoSlot* slot) {
  // Too long for the tier (ComputeNgramShares scores nothing): not kept.
  if (word.size() + 2 > 256) return;
  Scratch* memo = t->memo;
  bool fresh = false;
  SharesSlot* kept = memo->word_shares.Find(
      slot->hash,
      [&](const SharesSlot& s) {
        return s.key_size == word.size() &&
               std::memcmp(memo->word_keys.data() + s.key_begin, word.data(),
                           word.size()) == 0;
      },
      &fresh);
  if (!fresh) {
    if (!kept->scored) return;
    CopyShares(*kept, memo->kept_shares, memo->kept_gains, slot,
               &memo->ngram_shares, &memo->ngram_gains);
    slot->ngram_scored = true;
    return;
  }
  kept->key_begin = memo->word_keys.Append(word.data(), word.size());
  kept->key_size = static_cast<std::uint32_t>(word.size());
  ComputeNgramShares(t, word, slot);  // touches no kept word slot
  kept->scored = slot->ngram_scored;
  if (!kept->scored) return;
  CopyShares(*slot, memo->ngram_shares, memo->ngram_gains, kept,
             &memo->kept_shares, &memo->kept_gains);
}

// Notes that the line holds a value for candidate `i` (Tally::line_touched).
void TouchLine(Tally* t, std::size_t i) {
  if (t->line_marked[i] == 0) {
    t->line_marked[i] = 1;
    t->line_touched.push_back(static_cast<std::uint32_t>(i));
  }
}

// A tier-1 word of candidate `i` (a pure dictionary word, a word of a script
// that decides its language, a word with a marker letter).
void CountPure(Tally* t, std::size_t i) {
  t->pure[i] += 1;
  TouchLine(t, i);
  t->line[i] += 1;
  t->affinity[i] += kPureAffinity;
  t->line_affinity[i] += kPureAffinity;
  ++t->n_pure;
}

// The language a word no list has is written in by its marker letters
// (Model::LetterLanguage: letters only one list writes, such as Urdu's ے),
// or -1: none, or letters of two languages.
int MarkedLanguage(const Model& model, std::string_view word) {
  if (model.letters().empty()) return -1;
  const auto* s = reinterpret_cast<const std::uint8_t*>(word.data());
  const auto n = static_cast<std::int32_t>(word.size());
  int found = -1;
  for (std::int32_t k = 0; k < n;) {
    if (s[k] < 0x80) {  // ASCII letters mark no language
      ++k;
      continue;
    }
    UChar32 c;
    U8_NEXT(s, k, n, c);
    const int l = c < 0 ? -1 : model.LetterLanguage(static_cast<char32_t>(c));
    if (l < 0) continue;
    if (found >= 0 && found != l) return -1;
    found = l;
  }
  return found;
}

// The candidate a word of a script that decides `code` alone counts for: the
// model's own entry when the model has a word list for that language in
// another script (Mongolian: a Cyrillic list, and the Mongolian script), so
// that one language is one candidate and a text in both scripts is not
// "mn+mn"; else the direct slot.
std::size_t DirectCandidate(Tally* t, int slot) {
  std::int32_t& c = t->direct_candidate[slot];
  if (c < 0) {
    const int i = t->model->FindLanguage(kDirect[slot]);
    c = i >= 0 && !t->model->languages()[i].script_decided
            ? i
            : static_cast<std::int32_t>(t->languages) + slot;
  }
  return static_cast<std::size_t>(c);
}

// A paragraph wins nothing unless it has this many words (a greeting, a
// signature), this many of them giving evidence (not common words: English
// has many), and its winner scores at least kParagraphMinScore on it: a block
// of names, a signature or a mailing-list footer (a few words of many lists,
// unknown words) wins nothing. Chosen with langid_eval --split tune (bilingual
// paragraph samples named) and langid_mail (English mail named "en", as
// messages): 8 words, 5 giving evidence, score 5: 92.7% and 99.11%; 5 and 5:
// 92.9% and 99.00%; 5 and 8: 92.4% and 99.23%; score 0: 93.0% and 98.94%;
// score 10: 91.1% and 99.31%.
constexpr std::uint32_t kMinParagraphWords = 8;
constexpr std::uint32_t kMinParagraphEvidenceWords = 5;
// The default min_score: a paragraph must be one that would be named alone.
constexpr double kParagraphMinScore = 5.0;
// Paragraphs are won as Decide picks the best with the default constants
// (Collect has no Options, as for lines).
constexpr Options kSegmentOptions{};

// The line's winner is chosen as Decide chooses the best language, on the
// line's sums: the candidates within kLineCloseRatio (Options::close_ratio's
// default) of the highest sum compete on the line's affinity, so that a line
// of Danish is not won by Norwegian for a few shared words.
constexpr double kLineCloseRatio = 0.3;

// The line's winner among the candidates it touched (`touched`, ascending):
// the highest sum of tier-1 and tier-2 weights, or a candidate within
// kLineCloseRatio of it with a higher affinity. The same pick as a scan of
// every candidate: one the line never touched has a sum of 0, below any
// positive best sum, and with no positive sum the line counts for no one.
std::size_t SegmentWinner(const std::vector<double>& sums,
                          const std::vector<double>& affinity,
                          const std::vector<std::uint32_t>& touched) {
  std::size_t best = touched[0];
  for (std::uint32_t i : touched) {
    if (sums[i] > sums[best]) best = i;
  }
  std::size_t pick = best;
  for (std::uint32_t i : touched) {
    if (affinity[i] > affinity[pick] &&
        sums[i] >= kLineCloseRatio * sums[best]) {
      pick = i;
    }
  }
  return pick;
}

void FlushLine(Tally* t) {
  std::vector<std::uint32_t>& touched = t->line_touched;
  if (t->line_words >= kMinSegmentWords && !touched.empty()) {
    std::sort(touched.begin(), touched.end());
    const std::size_t pick = SegmentWinner(t->line, t->line_affinity, touched);
    if (t->line[pick] > 0) {
      t->segment_words[pick] += t->line_words;
      ++t->segment_lines[pick];
    }
  }
  t->paragraph_words += t->line_words;
  for (std::uint32_t i : touched) {
    t->line[i] = 0.0;
    t->line_affinity[i] = 0.0;
    t->line_marked[i] = 0;
  }
  touched.clear();
  t->line_words = 0;
}

// `*out` = `total` less `start` (empty: zeros), element by element.
void Difference(const std::vector<double>& total,
                const std::vector<double>& start, std::vector<double>* out) {
  out->assign(total.begin(), total.end());
  for (std::size_t i = 0; i < start.size() && i < out->size(); ++i) {
    (*out)[i] -= start[i];
  }
}

// The paragraph's own evidence (Tally::paragraph) from the text's sums.
void ParagraphEvidence(Tally* t) {
  const Evidence& s = t->paragraph_start;
  Evidence& p = t->paragraph;
  Difference(t->pure, s.pure, &p.pure);
  Difference(t->shared, s.shared, &p.shared);
  Difference(t->ngram, s.ngram, &p.ngram);
  Difference(t->affinity, s.affinity, &p.affinity);
  Difference(t->ngram_affinity, s.ngram_affinity, &p.ngram_affinity);
  p.n_pure = t->n_pure - s.n_pure;
  p.n_shared = t->n_shared - s.n_shared;
  p.n_unknown = t->n_unknown - s.n_unknown;
  p.n_ngram = t->n_ngram - s.n_ngram;
  // Han words join the text's sums at its end (zh, or ja in a text with
  // kana); here they count for zh, as in the line sums, and CollectImpl moves
  // the winners.
  const std::uint32_t han = t->han - t->paragraph_start_han;
  if (han > 0) {
    const std::size_t zh = t->languages + DirectSlot("zh");
    p.pure[zh] += han;
    p.affinity[zh] += han * kPureAffinity;
    p.n_pure += han;
  }
}

// Ends a paragraph; `last`: the text ends with it. A text of one paragraph
// records none (one paragraph makes neither a bilingual verdict nor two that
// agree), and costs nothing here.
void FlushParagraph(Tally* t, bool last) {
  FlushLine(t);
  if (!(last && !t->paragraph_seen) &&
      t->paragraph_words >= kMinParagraphWords) {
    ParagraphEvidence(t);
    const Formula f(t->paragraph, kSegmentOptions);
    std::size_t pick = f.size(), second = f.size();
    if (f.valid()) f.Rank(&pick, &second);
    const Evidence& q = t->paragraph;
    const std::uint32_t evidence_words = q.n_pure + q.n_shared + q.n_unknown;
    if (pick != f.size() && f.Score(pick) >= kParagraphMinScore &&
        evidence_words >= kMinParagraphEvidenceWords) {
      Evidence::Paragraph won;
      won.words = t->paragraph_words;
      won.winner = static_cast<std::uint32_t>(pick);
      won.close =
          second != f.size() &&
                  f.Score(second) >= kSegmentOptions.close_ratio * f.Score(pick)
              ? static_cast<std::uint32_t>(second)
              : won.winner;
      t->paragraphs.push_back(won);
      t->paragraph_text.emplace_back(
          t->paragraph_begin,
          static_cast<std::size_t>(t->last_end - t->paragraph_begin));
    }
  }
  if (last) return;
  t->paragraph_seen = true;
  Evidence& s = t->paragraph_start;
  s.pure.assign(t->pure.begin(), t->pure.end());
  s.shared.assign(t->shared.begin(), t->shared.end());
  s.ngram.assign(t->ngram.begin(), t->ngram.end());
  s.affinity.assign(t->affinity.begin(), t->affinity.end());
  s.ngram_affinity.assign(t->ngram_affinity.begin(), t->ngram_affinity.end());
  s.n_pure = t->n_pure;
  s.n_shared = t->n_shared;
  s.n_unknown = t->n_unknown;
  s.n_ngram = t->n_ngram;
  t->paragraph_start_han = t->han;
  t->paragraph_words = 0;
}

// The end of a text. A text of one line records no line or paragraph: one
// line or paragraph cannot make a bilingual verdict, which needs two.
void FlushText(Tally* t) {
  if (t->broken) FlushParagraph(t, true);
}

// Fills a fresh memo slot: what the dictionary and the n-gram tier say of
// `word` (`hash` is Model::KeyHash(word)), decoded once for every occurrence.
void Remember(Tally* t, std::string_view word, std::uint64_t hash,
              bool no_evidence_yet, MemoSlot* slot) {
  const PostingList p = t->model->LookupHashed(hash);
  if (p.common()) {
    slot->kind = WordKind::kCommon;
    if (no_evidence_yet) NgramSharesMemo(t, word, slot);
  } else if (p.empty()) {
    if (const int marked = MarkedLanguage(*t->model, word); marked >= 0) {
      slot->kind = WordKind::kPure;
      slot->language = static_cast<std::uint32_t>(marked);
    } else {
      slot->kind = WordKind::kUnknown;  // ScoreRemembered asks the n-gram tier
    }
  } else if (p.size() == 1 && p[0].pure) {
    slot->kind = WordKind::kPure;
    slot->language = p[0].language;
  } else {
    slot->kind = WordKind::kShared;
    slot->begin = static_cast<std::uint32_t>(t->memo->postings.size());
    slot->count = p.size();
    DecodedPosting* decoded = t->memo->postings.Extend(p.size());
    for (std::uint32_t i = 0; i < p.size(); ++i) {
      const Posting post = p[i];
      decoded[i] = {post.language, post.weight, AffinityGain(post.weight)};
    }
  }
}

// Adds `n` remembered per-language values to `sums`, in order.
void AddValues(std::vector<double>* sums, const LanguageValue* v,
               std::uint32_t n) {
  for (std::uint32_t k = 0; k < n; ++k) (*sums)[v[k].language] += v[k].value;
}

// ScoreWord's dictionary part with the memo: the same sums as the reference
// code at the end of ScoreWord, in the same order.
void ScoreRemembered(Tally* t, std::string_view word, std::uint64_t hash,
                     bool no_evidence_yet) {
  bool fresh = false;
  MemoSlot* slot = FindWord(t->memo, word, hash, &fresh);
  if (fresh) Remember(t, word, hash, no_evidence_yet, slot);
  const Scratch& memo = *t->memo;
  switch (slot->kind) {
    case WordKind::kCommon:
      ++t->n_common;
      if (no_evidence_yet && slot->ngram_scored) {
        if (t->common_ngram.empty()) {
          t->common_ngram.assign(t->pure.size(), 0.0);
        }
        AddValues(&t->common_ngram, memo.ngram_shares.data() + slot->begin,
                  slot->count);
        ++t->n_common_ngram;
      }
      return;
    case WordKind::kUnknown: {
      ++t->n_unknown;
      const bool open = NgramOpen(t);
      if (open && !slot->ngram_tried) {
        slot->ngram_tried = true;
        NgramSharesMemo(t, word, slot);
      }
      if (slot->ngram_scored && open) {
        AddValues(&t->ngram, memo.ngram_shares.data() + slot->begin,
                  slot->count);
        AddValues(&t->ngram_affinity,
                  memo.ngram_gains.data() + slot->gain_begin, slot->gain_count);
        ++t->n_ngram;
      }
      return;
    }
    case WordKind::kPure:
      CountPure(t, slot->language);
      return;
    case WordKind::kShared: {
      const DecodedPosting* p = memo.postings.data() + slot->begin;
      for (std::uint32_t k = 0; k < slot->count; ++k) {
        t->shared[p[k].language] += p[k].weight;
        TouchLine(t, p[k].language);
        t->line[p[k].language] += p[k].weight;
        t->affinity[p[k].language] += p[k].gain;
        t->line_affinity[p[k].language] += p[k].gain;
      }
      ++t->n_shared;
      return;
    }
  }
}

// Scores one word: `hash` is Model::KeyHash(word) when there is a memo.
void ScoreWord(Tally* t, std::string_view word, int script,
               std::uint64_t hash) {
  if (t->last_end != nullptr && word.data() > t->last_end) {
    // Between two words: a line break ends a line, two end a paragraph.
    const char* nl = static_cast<const char*>(
        std::memchr(t->last_end, '\n', word.data() - t->last_end));
    if (nl != nullptr) {
      t->broken = true;
      if (std::memchr(nl + 1, '\n', word.data() - nl - 1) != nullptr) {
        FlushParagraph(t, false);
        t->paragraph_begin = word.data();
      } else {
        FlushLine(t);
      }
    }
  }
  t->last_end = word.data() + word.size();
  ++t->line_words;
  if (script >= 0 && static_cast<std::size_t>(script) < t->by_script.size()) {
    ++t->by_script[script];
  }
  if (script == USCRIPT_HAN) {
    ++t->han;  // zh or ja: decided once the whole text is seen
    internal::CountHanVariants(word, &t->han_simplified, &t->han_traditional);
    TouchLine(t, t->languages + kZhSlot);
    t->line[t->languages + kZhSlot] += 1;
    t->line_affinity[t->languages + kZhSlot] += kPureAffinity;
    return;
  }
  if (script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA) ++t->kana;
  const int direct = DirectSlotOfScript(script);
  if (direct >= 0) {
    CountPure(t, DirectCandidate(t, direct));
    return;
  }
  // Common words count for no language unless no other word has given
  // evidence yet (Evidence::common_ngram): then their trigrams are scored.
  const bool no_evidence_yet = t->n_pure + t->n_shared + t->n_unknown == 0;
  if (t->memo) {
    ScoreRemembered(t, word, hash, no_evidence_yet);
    return;
  }
  const PostingList postings = t->model->Lookup(word);
  if (const int marked = postings.empty() && !postings.common()
                             ? MarkedLanguage(*t->model, word)
                             : -1;
      marked >= 0) {
    CountPure(t, static_cast<std::size_t>(marked));
    return;
  }
  bool ngram_scored = false;
  if (postings.empty() && (!postings.common() || no_evidence_yet) &&
      NgramOpen(t)) {
    ngram_scored = NgramShares(t, word);
  }
  if (postings.common()) {
    ++t->n_common;
    if (no_evidence_yet && ngram_scored) {
      if (t->common_ngram.empty()) t->common_ngram.assign(t->pure.size(), 0.0);
      for (const NgramShare& s : t->own_shares) {
        t->common_ngram[s.language] += s.share;
      }
      ++t->n_common_ngram;
    }
    return;
  }
  if (postings.empty()) {
    ++t->n_unknown;
    if (ngram_scored) {
      for (const NgramShare& s : t->own_shares) {
        t->ngram[s.language] += s.share;
        t->ngram_affinity[s.language] += s.gain;
      }
      ++t->n_ngram;
    }
    return;
  }
  if (postings.size() == 1 && postings[0].pure) {
    CountPure(t, postings[0].language);
    return;
  }
  for (std::uint32_t i = 0; i < postings.size(); ++i) {
    const Posting p = postings[i];
    t->shared[p.language] += p.weight;
    TouchLine(t, p.language);
    t->line[p.language] += p.weight;
    const double gain = AffinityGain(p.weight);
    t->affinity[p.language] += gain;
    t->line_affinity[p.language] += gain;
  }
  ++t->n_shared;
}

// WordSink of the reference path (no memo): scores each word at once.
void CountWord(void* context, std::string_view word, int script) {
  ScoreWord(static_cast<Tally*>(context), word, script, 0);
}

void ScorePending(Tally* t) {
  const PendingWord& w = t->pending[t->scored % kLookAhead];
  ScoreWord(t, w.word, w.script, w.hash);
  ++t->scored;
}

// WordSink with the memo: queues the word and hints its memo slot and its
// dictionary probe to the cache, then scores the word queued kLookAhead words
// earlier. Scoring stays in text order, so the evidence is the same.
void BufferWord(void* context, std::string_view word, int script) {
  auto* t = static_cast<Tally*>(context);
  PendingWord& w = t->pending[t->pushed % kLookAhead];
  w.word = word;
  w.script = script;
  w.lookup = script != USCRIPT_HAN && DirectSlotOfScript(script) < 0;
  if (w.lookup) {
    w.hash = Model::KeyHash(word);
    t->memo->words.Prefetch(w.hash);
    t->model->PrefetchBucket(w.hash);
  }
  ++t->pushed;
  if (t->pushed > kEntriesLookAhead) {
    const PendingWord& e =
        t->pending[(t->pushed - 1 - kEntriesLookAhead) % kLookAhead];
    if (e.lookup) t->model->PrefetchEntries(e.hash);
  }
  if (t->pushed - t->scored == kLookAhead) ScorePending(t);
}

}  // namespace

std::string_view ScriptLanguage(std::string_view script) {
  const int code =
      u_getPropertyValueEnum(UCHAR_SCRIPT, std::string(script).c_str());
  if (code == UCHAR_INVALID_CODE) return {};
  return internal::DirectLanguage(code);
}

std::string_view CandidateCode(const Model& model, std::size_t i) {
  const std::size_t n = model.languages().size();
  if (i < n) return model.languages()[i].code;
  return i - n < kDirect.size() ? kDirect[i - n] : std::string_view();
}

namespace {

// The memos come from a bounded pool, not one per thread: the milter runs a
// thread per busy connection (mw/pool.h).
Pool<Scratch>& ScratchPool() {
  static Pool<Scratch> pool(DefaultPoolIdle(),
                            [] { return std::make_unique<Scratch>(); });
  return pool;
}

Evidence CollectImpl(std::string_view text, const Model& model, bool memoise,
                     NgramLimits ngram_limits) {
  std::string mapped;
  if (HasC1(text)) {
    mapped = MapC1Controls(text);
    text = mapped;
  }
  // URLs and e-mail addresses are no language's words (a link in an English
  // mail would otherwise read as a paragraph of Portuguese).
  std::string blanked = BlankAddresses(text);
  if (!blanked.empty()) text = blanked;
  Tally t;
  t.model = &model;
  t.ngram_limits = ngram_limits;
  t.paragraph_begin = text.data();
  t.direct_candidate.fill(-1);
  std::optional<Pool<Scratch>::Lease> scratch;
  if (memoise) {
    scratch.emplace(ScratchPool().Acquire());
    (*scratch)->Reset(text.size(), model.id());
    t.memo = scratch->get();
  }
  t.languages = model.languages().size();
  t.pure.assign(t.languages + kDirect.size(), 0.0);
  t.shared.assign(t.languages + kDirect.size(), 0.0);
  t.by_script.assign(USCRIPT_CODE_LIMIT, 0);
  t.line.assign(t.pure.size(), 0.0);
  t.line_affinity.assign(t.pure.size(), 0.0);
  t.line_marked.assign(t.pure.size(), 0);
  t.segment_words.assign(t.pure.size(), 0);
  t.segment_lines.assign(t.pure.size(), 0);
  t.ngram.assign(t.pure.size(), 0.0);
  t.affinity.assign(t.pure.size(), 0.0);
  t.ngram_affinity.assign(t.pure.size(), 0.0);
  t.delta.assign(t.pure.size(), 0.0);
  if (t.memo) {
    internal::SegmentWords(text, BufferWord, &t);
    while (t.scored < t.pushed) ScorePending(&t);
    // Before the memo goes back to the pool: an idle one stays within its
    // bound (internal::ScratchKeptBound) whatever this text was.
    t.memo->Trim();
    t.memo = nullptr;
  } else {
    internal::SegmentWords(text, CountWord, &t);
  }
  FlushText(&t);
  if (t.han > 0) {
    // Japanese writes Han with kana; Han alone is Chinese. Per text, not per
    // paragraph: a Japanese mail has paragraphs of kanji alone (an address, a
    // company's name), so a Chinese paragraph beside a Japanese one is read as
    // Japanese.
    const std::size_t ja = t.languages + DirectSlot("ja");
    const std::size_t zh = t.languages + DirectSlot("zh");
    t.pure[t.kana > 0 ? ja : zh] += t.han;
    t.affinity[t.kana > 0 ? ja : zh] += t.han * kPureAffinity;
    t.n_pure += t.han;
    if (t.kana > 0) {
      t.segment_words[ja] += t.segment_words[zh];
      t.segment_words[zh] = 0;
      t.segment_lines[ja] += t.segment_lines[zh];
      t.segment_lines[zh] = 0;
      for (Evidence::Paragraph& p : t.paragraphs) {
        if (p.winner == zh) p.winner = static_cast<std::uint32_t>(ja);
        if (p.close == zh) p.close = static_cast<std::uint32_t>(ja);
      }
    }
  }
  Evidence e;
  e.pure = std::move(t.pure);
  e.shared = std::move(t.shared);
  e.segment_words = std::move(t.segment_words);
  e.segment_lines = std::move(t.segment_lines);
  e.paragraphs = std::move(t.paragraphs);
  e.ngram = std::move(t.ngram);
  e.affinity = std::move(t.affinity);
  e.ngram_affinity = std::move(t.ngram_affinity);
  e.n_ngram = t.n_ngram;
  e.common_ngram = std::move(t.common_ngram);
  e.n_common_ngram = t.n_common_ngram;
  e.n_pure = t.n_pure;
  e.n_shared = t.n_shared;
  e.n_unknown = t.n_unknown;
  e.n_common = t.n_common;
  e.han_simplified = t.han_simplified;
  e.han_traditional = t.han_traditional;
  if (!model.variants().empty() || !model.pairs().empty()) {
    e.variant.assign(e.pure.size(), 0.0);
    const double strongest =
        internal::StrongestEvidence(e.pure, e.shared, e.ngram);
    // A variant's text is read where its base can be named; a close pair's
    // where either of the two can.
    const auto read = [&](std::uint32_t v, std::uint32_t a, std::uint32_t b) {
      // In a text of paragraphs in two languages, the other language's words
      // would only add noise: the paragraphs a or b wins (or nearly) are
      // read; in a text where they win none, the whole text when one is a
      // contender (elsewhere neither can be named).
      std::vector<std::string_view> parts;
      for (std::size_t i = 0; i < e.paragraphs.size(); ++i) {
        const auto& p = e.paragraphs[i];
        if (p.winner == a || p.close == a || p.winner == b || p.close == b) {
          parts.push_back(t.paragraph_text[i]);
        }
      }
      if (parts.empty()) {
        if (!internal::ReadForVariant(e.pure, e.shared, e.ngram, a,
                                      internal::kVariantReadShare, strongest) &&
            (a == b || !internal::ReadForVariant(e.pure, e.shared, e.ngram, b,
                                                 internal::kVariantReadShare,
                                                 strongest))) {
          return;
        }
        parts.push_back(text);
      }
      e.variant[v] = internal::VariantScore(parts, model, v);
    };
    for (const std::uint32_t v : model.variants()) {
      const auto base =
          static_cast<std::uint32_t>(model.languages()[v].variant_of);
      read(v, base, base);
    }
    for (const std::uint32_t v : model.pairs()) {
      const int with = model.languages()[v].pair_with;
      // Told from a variant (Swedish from Nynorsk): only where the variant's
      // base has a share of the evidence, as Nynorsk's text shares words with
      // Bokmål.
      const int base = model.languages()[with].variant_of;
      if (base >= 0 &&
          !internal::ReadForVariant(
              e.pure, e.shared, e.ngram, static_cast<std::size_t>(base),
              internal::kPairOfVariantReadShare, strongest)) {
        continue;
      }
      read(v, v, static_cast<std::uint32_t>(with));
    }
  }
  for (std::size_t s = 0; s < t.by_script.size(); ++s) {
    if (t.by_script[s] != 0) {
      e.scripts.emplace_back(
          std::string(internal::ScriptName(static_cast<int>(s))),
          t.by_script[s]);
    }
  }
  std::stable_sort(
      e.scripts.begin(), e.scripts.end(),
      [](const auto& a, const auto& b) { return a.second > b.second; });
  return e;
}

}  // namespace

// Every text takes the memo, however short: its look-ahead prefetching of
// dictionary entries pays even where no word repeats (a one-line text of
// ~40 bytes: 12-15% faster than scoring each word afresh, langid_speed
// --chunk 40; when the memo began at 1 KB it was the other way round).
Evidence Collect(std::string_view text, const Model& model,
                 NgramLimits limits) {
  return CollectImpl(text, model, true, limits);
}

Evidence TEST_CollectEveryWord(std::string_view text, const Model& model,
                               NgramLimits limits) {
  return CollectImpl(text, model, false, limits);
}

namespace internal {

std::size_t ScratchKeptBound() { return Scratch::kMaxKeptBytes; }

std::size_t ScratchIdleBound() { return DefaultPoolIdle(); }

ScratchUsage TEST_ScratchUsage() {
  // The idle memos are borrowed and given back (REQUIRES: no Collect runs
  // meanwhile, or it would build a memo of its own and the count be off).
  Pool<Scratch>& pool = ScratchPool();
  std::vector<Pool<Scratch>::Lease> leases;
  for (std::size_t n = pool.idle(); n > 0; --n) {
    leases.push_back(pool.Acquire());
  }
  ScratchUsage usage;
  usage.idle = leases.size();
  for (const Pool<Scratch>::Lease& lease : leases) {
    const std::size_t held = lease->HeldBytes();
    usage.total_held_bytes += held;
    usage.max_held_bytes = std::max(usage.max_held_bytes, held);
  }
  return usage;
}

}  // namespace internal

}  // namespace mw::langid
