#include "fingerprint/simhash.h"

// XXH3 inlined from the header (same algorithm, same hashes as the library):
// most words and every shingle are short, where the call costs as much as the
// hash.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "byte_order.h"
#include "cpu.h"
#include "scan.h"
#include "utf8.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define MW_SIMHASH_X86 1
#endif

namespace mw::fingerprint {
namespace {

constexpr std::size_t kShingleWords = 3;

// Hash of a shingle: XXH3 over the words' own XXH3 hashes, so each word is
// hashed once. The hashes are hashed as little-endian bytes, whatever the
// host, so that SimHashes compare across machines (a stored fingerprint); on a
// little-endian host that is their memory as it is. REQUIRES: count <=
// kShingleWords.
std::uint64_t ShingleHash(const std::uint64_t* word_hashes, std::size_t count) {
  if constexpr (std::endian::native == std::endian::little) {
    return XXH3_64bits(word_hashes, count * sizeof(std::uint64_t));
  }
  unsigned char bytes[kShingleWords * sizeof(std::uint64_t)];
  for (std::size_t i = 0; i < count; ++i)
    internal::StoreLe64(word_hashes[i], bytes + i * sizeof(std::uint64_t));
  return XXH3_64bits(bytes, count * sizeof(std::uint64_t));
}

// kSpread[x] has byte k equal to bit k of x.
constexpr std::array<std::uint64_t, 256> kSpread = [] {
  std::array<std::uint64_t, 256> t{};
  for (unsigned x = 0; x < 256; ++x) {
    for (unsigned k = 0; k < 8; ++k) {
      if ((x >> k) & 1) t[x] |= std::uint64_t{1} << (8 * k);
    }
  }
  return t;
}();

// Sorts `keys` ascending, as std::sort would (they are plain integers): an LSD
// radix sort, a byte per pass, skipping the passes where every key has the
// same byte. `scratch` is the second buffer, REQUIRES: scratch.size() >=
// keys.size(); its contents are lost. Shingle hashes are many and random,
// where this takes a third of std::sort's time.
void SortHashes(std::vector<std::uint64_t>& keys,
                std::vector<std::uint64_t>& scratch) {
  const std::size_t n = keys.size();
  if (n < 256) {
    std::sort(keys.begin(), keys.end());
    return;
  }
  std::array<std::array<std::uint32_t, 256>, 8> count{};
  for (const std::uint64_t k : keys) {
    for (int b = 0; b < 8; ++b) ++count[b][(k >> (8 * b)) & 0xff];
  }
  std::uint64_t* src = keys.data();
  std::uint64_t* dst = scratch.data();
  for (int b = 0; b < 8; ++b) {
    std::array<std::uint32_t, 256>& c = count[b];
    if (c[(src[0] >> (8 * b)) & 0xff] == n) continue;
    std::uint32_t sum = 0;
    for (std::uint32_t& v : c) {
      const std::uint32_t here = v;
      v = sum;
      sum += here;
    }
    for (std::size_t i = 0; i < n; ++i)
      dst[c[(src[i] >> (8 * b)) & 0xff]++] = src[i];
    std::swap(src, dst);
  }
  if (src != keys.data()) std::copy(src, src + n, keys.data());
}

// What a byte is to the word splitter: an ASCII letter or digit
// (internal::IsWordChar below 0x80), another ASCII character, or part of a
// multi-byte character, to be decoded.
enum ByteKind : std::uint8_t { kAsciiSeparator, kAsciiWord, kMultiByte };
constexpr std::array<ByteKind, 256> kByteKind = [] {
  std::array<ByteKind, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      (c >= 'A' && c <= 'Z');
    t[c] = c >= 0x80 ? kMultiByte : word ? kAsciiWord : kAsciiSeparator;
  }
  return t;
}();

// ones[b] += the number of hashes in h[0..n) with bit b set, as the plain
// loop over the bits would count them. Three ways, picked at run time: with
// AVX-512BW a hash is a mask that adds one to the byte counters of its set
// bits (two instructions), with AVX2 its bytes are spread to 64 byte lanes
// and compared with each lane's bit, elsewhere a table spreads each byte's
// bits to the bytes of a word. Byte counters are added into `ones` every 255
// hashes, before they can overflow.
void CountBitsPortable(const std::uint64_t* h, std::size_t n,
                       std::uint32_t* ones) {
  for (std::size_t i = 0; i < n;) {
    const std::size_t end = std::min(n, i + 255);
    std::uint64_t lanes[8] = {};  // lanes[j] byte k counts bit 8j + k
    for (; i < end; ++i) {
#pragma GCC unroll 8
      for (int b = 0; b < 8; ++b) lanes[b] += kSpread[(h[i] >> (8 * b)) & 0xff];
    }
    for (int j = 0; j < 8; ++j) {
      for (int k = 0; k < 8; ++k)
        ones[8 * j + k] += (lanes[j] >> (8 * k)) & 0xff;
    }
  }
}

#ifdef MW_SIMHASH_X86
__attribute__((target("avx2"))) void CountBitsAvx2(const std::uint64_t* h,
                                                   std::size_t n,
                                                   std::uint32_t* ones) {
  // Lane byte k of `lo` takes byte k / 8 of the hash (bits 0-31), of `hi`
  // byte 4 + k / 8 (bits 32-63); `bit` selects bit k % 8 of it.
  const __m256i spread_lo =
      _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,  //
                       2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i spread_hi = _mm256_add_epi8(spread_lo, _mm256_set1_epi8(4));
  const __m256i bit = _mm256_set1_epi64x(0x8040201008040201LL);
  for (std::size_t i = 0; i < n;) {
    const std::size_t end = std::min(n, i + 255);
    __m256i lo = _mm256_setzero_si256();
    __m256i hi = _mm256_setzero_si256();
    for (; i < end; ++i) {
      const __m256i v = _mm256_set1_epi64x(static_cast<long long>(h[i]));
      const __m256i a =
          _mm256_and_si256(_mm256_shuffle_epi8(v, spread_lo), bit);
      const __m256i b =
          _mm256_and_si256(_mm256_shuffle_epi8(v, spread_hi), bit);
      // -1 where the bit is set.
      lo = _mm256_sub_epi8(lo, _mm256_cmpeq_epi8(a, bit));
      hi = _mm256_sub_epi8(hi, _mm256_cmpeq_epi8(b, bit));
    }
    alignas(32) std::uint8_t bytes[64];
    _mm256_store_si256(reinterpret_cast<__m256i*>(bytes), lo);
    _mm256_store_si256(reinterpret_cast<__m256i*>(bytes + 32), hi);
    for (int b = 0; b < 64; ++b) ones[b] += bytes[b];
  }
}

__attribute__((target("avx512f,avx512bw"))) void CountBitsAvx512(
    const std::uint64_t* h, std::size_t n, std::uint32_t* ones) {
  const __m512i one = _mm512_set1_epi8(1);
  for (std::size_t i = 0; i < n;) {
    const std::size_t end = std::min(n, i + 255);
    __m512i counts = _mm512_setzero_si512();
    for (; i < end; ++i) {
      counts = _mm512_mask_add_epi8(counts, static_cast<__mmask64>(h[i]),
                                    counts, one);
    }
    alignas(64) std::uint8_t bytes[64];
    _mm512_store_si512(bytes, counts);
    for (int b = 0; b < 64; ++b) ones[b] += bytes[b];
  }
}
#endif

enum class BitCounter { kPortable, kAvx2, kAvx512 };

BitCounter BestBitCounter() {
  if (internal::Cpu().avx512bw) return BitCounter::kAvx512;
  if (internal::Cpu().avx2) return BitCounter::kAvx2;
  return BitCounter::kPortable;
}

void CountBits(BitCounter how, const std::uint64_t* h, std::size_t n,
               std::uint32_t* ones) {
  switch (how) {
#ifdef MW_SIMHASH_X86
    case BitCounter::kAvx512:
      CountBitsAvx512(h, n, ones);
      return;
    case BitCounter::kAvx2:
      CountBitsAvx2(h, n, ones);
      return;
#endif
    default:
      CountBitsPortable(h, n, ones);
  }
}

// The SimHash's 64 votes as its definition adds them: every distinct shingle
// votes on every bit with weight 1 + ln(count). The weight-1 part is counted
// per bit (CountBits); the ln(count) part, for the few repeated shingles, is
// added in floating point, two bits per vector addition: the same IEEE
// additions in the same order as one bit at a time, as long as the repeated
// shingles come in ascending hash order.
class Votes {
 public:
  // The weight-1 votes of distinct shingles.
  void AddDistinct(const std::uint64_t* h, std::size_t n, BitCounter how) {
    CountBits(how, h, n, ones_.data());
    distinct_ += static_cast<std::uint32_t>(n);
  }

  // The ln(count) part of a shingle seen `count` > 1 times. REQUIRES: called
  // in ascending order of h (floating-point addition is not associative).
  void AddRepeated(std::uint64_t h, std::size_t count) {
    const double w = std::log(static_cast<double>(count));
    const Pair sign[4] = {{-w, -w}, {w, -w}, {-w, w}, {w, w}};
    for (int k = 0; k < 32; ++k) extra_[k] += sign[(h >> (2 * k)) & 3];
  }

  std::uint64_t SimHash() const {
    std::uint64_t simhash = 0;
    for (int b = 0; b < 64; ++b) {
      const double vote = 2.0 * ones_[b] - static_cast<double>(distinct_) +
                          extra_[b / 2][b % 2];
      if (vote > 0) simhash |= std::uint64_t{1} << b;
    }
    return simhash;
  }

 private:
  // extra_[k][0] and extra_[k][1] are bits 2k and 2k + 1.
  using Pair = double __attribute__((vector_size(16)));
  Pair extra_[32] = {};
  std::array<std::uint32_t, 64> ones_{};
  std::uint32_t distinct_ = 0;
};

// Words per shingle: the shingles are every run of kShingleWords words, or
// one of all words when there are fewer. REQUIRES: word_hashes not empty.
std::size_t ShingleWidth(const std::vector<std::uint64_t>& word_hashes) {
  return std::min(kShingleWords, word_hashes.size());
}

// The hashes of the shingles of `word_hashes`, in text order.
std::vector<std::uint64_t> ShingleHashes(
    const std::vector<std::uint64_t>& word_hashes) {
  const std::size_t width = ShingleWidth(word_hashes);
  std::vector<std::uint64_t> hashes(word_hashes.size() - width + 1);
  for (std::size_t s = 0; s < hashes.size(); ++s)
    hashes[s] = ShingleHash(word_hashes.data() + s, width);
  return hashes;
}

// The votes with the distinct shingles found by a hash table (open
// addressing, linear probing, at most half full): one pass, no sort of all
// shingles. The table holds only the hashes (0 marks an empty slot; a shingle
// hash of 0 is tracked apart), one cache line per probe, fetched a few
// shingles ahead (a long message's table is past the first-level cache, and
// its slots are random); a shingle seen again goes to `again`, and only that
// list, short, is sorted to count the repeats and add their floating-point
// part in ascending order. The shingle hashes are XXH3 outputs, so their low
// bits spread them over the table; a text crafted to pile them up makes a
// probe run past kMaxProbe, and the caller falls back to VoteSorted. Returns
// false then.
bool VoteWithTable(const std::vector<std::uint64_t>& word_hashes,
                   Votes& votes) {
  constexpr std::size_t kMaxProbe = 64;
  constexpr std::size_t kAhead = 16;
  std::vector<std::uint64_t> hashes = ShingleHashes(word_hashes);
  const std::size_t shingles = hashes.size();
  const std::size_t capacity =
      std::max<std::size_t>(64, std::bit_ceil(2 * shingles));
  const std::size_t mask = capacity - 1;
  std::vector<std::uint64_t> table(capacity);
  std::vector<std::uint64_t> again;  // one entry per repeated occurrence
  // The distinct shingles are moved to the front of `hashes` as they come
  // (never past the one being read).
  std::size_t distinct = 0;
  bool zero_seen = false;
  for (std::size_t s = 0; s < shingles; ++s) {
    if (s + kAhead < shingles)
      __builtin_prefetch(table.data() + (hashes[s + kAhead] & mask));
    const std::uint64_t h = hashes[s];
    bool seen;
    if (h == 0) {
      seen = zero_seen;
      zero_seen = true;
    } else {
      std::size_t slot = h & mask;
      std::size_t probe = 0;
      while (table[slot] != 0 && table[slot] != h) {
        if (++probe == kMaxProbe) return false;
        slot = (slot + 1) & mask;
      }
      seen = table[slot] != 0;
      table[slot] = h;
    }
    if (seen) {
      again.push_back(h);
    } else {
      hashes[distinct++] = h;
    }
  }
  votes.AddDistinct(hashes.data(), distinct, BestBitCounter());
  std::sort(again.begin(), again.end());
  for (std::size_t i = 0; i < again.size();) {
    std::size_t j = i + 1;
    while (j < again.size() && again[j] == again[i]) ++j;
    votes.AddRepeated(again[i], 1 + (j - i));  // the first occurrence too
    i = j;
  }
  return true;
}

// The same votes with the shingle hashes sorted, equal ones adjacent: the
// plain way, and the bound on the table's worst case.
void VoteSorted(const std::vector<std::uint64_t>& word_hashes, Votes& votes) {
  std::vector<std::uint64_t> hashes = ShingleHashes(word_hashes);
  std::vector<std::uint64_t> scratch(hashes.size());
  SortHashes(hashes, scratch);
  // The distinct hashes go to `scratch` (no longer needed), in order.
  std::size_t distinct = 0;
  for (std::size_t i = 0; i < hashes.size();) {
    std::size_t j = i + 1;
    while (j < hashes.size() && hashes[j] == hashes[i]) ++j;
    scratch[distinct++] = hashes[i];
    if (j - i > 1) votes.AddRepeated(hashes[i], j - i);
    i = j;
  }
  votes.AddDistinct(scratch.data(), distinct, BestBitCounter());
}

// The SimHash of the shingles of `word_hashes` (REQUIRES: not empty); with
// `sorted`, by VoteSorted alone.
std::uint64_t VoteOnShingles(const std::vector<std::uint64_t>& word_hashes,
                             bool sorted) {
  Votes votes;
  if (sorted || !VoteWithTable(word_hashes, votes)) {
    votes = Votes();
    VoteSorted(word_hashes, votes);
  }
  return votes.SimHash();
}

}  // namespace

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  std::size_t start = std::string_view::npos;
  for (std::size_t i = 0; i < text.size();) {
    std::size_t len;
    const char32_t c = internal::DecodeUtf8(text, i, &len);
    if (internal::IsWordChar(c)) {
      if (internal::IsUnspacedScript(c)) {
        if (start != std::string_view::npos)
          words.push_back(text.substr(start, i - start));
        start = std::string_view::npos;
        words.push_back(text.substr(i, len));
      } else if (start == std::string_view::npos) {
        start = i;
      }
    } else if (start != std::string_view::npos) {
      words.push_back(text.substr(start, i - start));
      start = std::string_view::npos;
    }
    i += len;
  }
  if (start != std::string_view::npos) words.push_back(text.substr(start));
  return words;
}

WordBag ComputeWordBag(std::string_view text) {
  WordBag bag;
  for (const std::string_view w : Words(text)) {
    bag.hash += XXH3_64bits(w.data(), w.size());  // commutative: order-free
    ++bag.words;
  }
  return bag;
}

std::uint64_t ComputeSimHash(std::string_view text) {
  return ComputeWordHashes(text).simhash;
}

namespace {

// One step of the word splitter at text[i] (the per-character path): an
// ASCII run in one scan, else one decoded character. `start` is the open
// word's first byte, npos outside a word; `end_word` closes it at a byte.
template <typename EndWord>
inline std::size_t WordStep(std::string_view text, std::size_t i,
                            std::size_t& start, EndWord&& end_word) {
  const ByteKind k = kByteKind[static_cast<unsigned char>(text[i])];
  if (k == kAsciiWord) {
    if (start == std::string_view::npos) start = i;
    return internal::SkipAsciiAlnum(text, i + 1);
  }
  if (k == kAsciiSeparator) {
    if (start != std::string_view::npos) end_word(i);
    return internal::SkipAsciiSeparators(text, i + 1);
  }
  std::size_t len;
  const char32_t c = internal::DecodeUtf8(text, i, &len);
  if (internal::IsWordChar(c)) {
    if (internal::IsUnspacedScript(c)) {
      if (start != std::string_view::npos) end_word(i);
      start = i;
      end_word(i + len);
    } else if (start == std::string_view::npos) {
      start = i;
    }
  } else if (start != std::string_view::npos) {
    end_word(i);
  }
  return i + len;
}

// flatten: XXH3 of each word (short, of any length) is otherwise a call per
// word, which the length dispatch inside makes cost as much as the hash.
__attribute__((flatten)) WordHashes WordHashesOf(std::string_view text,
                                                 bool sorted) {
  WordHashes out;

  // Hash each word as it is found (the same words as Words(), without keeping
  // them).
  std::vector<std::uint64_t> word_hashes;
  word_hashes.reserve(text.size() / 5 + 1);
  std::size_t start = std::string_view::npos;
  std::vector<std::uint8_t> word_lengths;
  word_lengths.reserve(text.size() / 5 + 1);
  const auto end_word = [&](std::size_t end) {
    word_hashes.push_back(XXH3_64bits(text.data() + start, end - start));
    word_lengths.push_back(
        static_cast<std::uint8_t>(std::min<std::size_t>(end - start, 255)));
    start = std::string_view::npos;
  };
  const std::size_t n = text.size();
  std::size_t i = 0;
#ifdef MW_SCAN_SSE2
  // Sixty-four bytes at a time while they are all ASCII (most mail): one mask
  // of the letters and digits, whose rising edges start words and falling
  // edges end them, so a word costs a bit scan rather than a mispredicted
  // branch at each end of it. A block with a byte >= 0x80 goes through the
  // per-character path to its end (or a little past, to the end of the run
  // or character that straddles it).
  while (i + 64 <= n) {
    const internal::Masks64 m = internal::ClassifyAscii64(text.data() + i);
    if (m.high != 0) {
      const std::size_t limit = i + 64;
      while (i < limit) i = WordStep(text, i, start, end_word);
      continue;
    }
    // Bit k of `edges`: byte k starts or ends a run of letters and digits
    // (against the byte before it; the open word stands for it at k = 0).
    const std::uint64_t before =
        (m.word << 1) | (start != std::string_view::npos ? 1 : 0);
    std::uint64_t starts = m.word & ~before;
    std::uint64_t ends = before & ~m.word;
    if (start != std::string_view::npos && ends != 0) {
      end_word(i + static_cast<std::size_t>(std::countr_zero(ends)));
      ends &= ends - 1;
    }
    // Starts and ends alternate: each start's end is the lowest one left, or
    // past this block.
    while (starts != 0) {
      start = i + static_cast<std::size_t>(std::countr_zero(starts));
      starts &= starts - 1;
      if (ends == 0) break;
      end_word(i + static_cast<std::size_t>(std::countr_zero(ends)));
      ends &= ends - 1;
    }
    i += 64;
  }
#endif
  while (i < n) i = WordStep(text, i, start, end_word);
  if (start != std::string_view::npos) end_word(n);
  // The word bag sums the same word hashes (ComputeWordBag hashes the words
  // of Words(), which are these).
  for (const std::uint64_t h : word_hashes) out.word_bag.hash += h;
  out.word_bag.words = static_cast<std::uint32_t>(word_hashes.size());
  out.sketch = ComputeSketch(word_hashes);
  out.sequence = ComputeWordSequence(word_hashes, word_lengths, 4);
  if (word_hashes.empty()) return out;
  out.simhash = VoteOnShingles(word_hashes, sorted);
  return out;
}

}  // namespace

WordHashes ComputeWordHashes(std::string_view text) {
  return WordHashesOf(text, false);
}

WordHashes TEST_ComputeWordHashesSorted(std::string_view text) {
  return WordHashesOf(text, true);
}

std::vector<std::array<std::uint32_t, 64>> TEST_CountBits(
    const std::vector<std::uint64_t>& hashes) {
  std::vector<std::array<std::uint32_t, 64>> out;
  for (const BitCounter how :
       {BitCounter::kPortable, BitCounter::kAvx2, BitCounter::kAvx512}) {
    if (how == BitCounter::kAvx2 && !internal::Cpu().avx2) continue;
    if (how == BitCounter::kAvx512 && !internal::Cpu().avx512bw) continue;
    out.emplace_back();
    out.back().fill(0);
    CountBits(how, hashes.data(), hashes.size(), out.back().data());
  }
  return out;
}

std::vector<std::uint64_t> SimHashKeys(std::uint64_t simhash, std::uint32_t k) {
  if (k == 0) return {simhash};
  const std::uint32_t bands = k + 1;
  std::vector<std::uint64_t> keys;
  keys.reserve(bands);
  std::uint32_t start = 0;
  for (std::uint32_t b = 0; b < bands; ++b) {
    // Bands of width 64 / bands, the first 64 % bands one bit wider.
    const std::uint32_t width = 64 / bands + (b < 64 % bands ? 1 : 0);
    const std::uint64_t bits =
        (simhash >> start) & ((std::uint64_t{1} << width) - 1);
    // width <= 32 for k >= 1, so the band index fits above the bits.
    keys.push_back((static_cast<std::uint64_t>(b) << 32) | bits);
    start += width;
  }
  return keys;
}

}  // namespace mw::fingerprint
