// The per-pair comparisons both backends run: plain functions over plain
// arrays, compiled as host code for the CPU backend and as device code by nvcc
// (MW_HD). Nothing here allocates, throws, calls a library or dispatches on
// the CPU, and only <cstdint> is included, so nvcc sees no std:: machinery.
//
// Each function gives exactly the answer of its reference in fingerprint/:
//   MyersDistance  - internal::MyersDistanceScalar (global Levenshtein);
//   CtphLevel      - EditRate(x, y) <= rate, with the filters in front;
//   CtphPair       - CtphEditRate(a, b) <= rate (the block-size rule);
//   SimHashPair    - Hamming(a, b) <= distance;
//   SketchPair     - SketchJaccard >= jaccard with the word-count filters.
// The filters (length, 2-gram count) only reject pairs that the plain rule
// rejects too; docs/gpu.md gives the proofs, tests/gpu/pair_test.cc checks
// them exhaustively on random and real signatures.
//
// Thread-safety: pure functions.
#ifndef MW_GPU_SRC_PAIR_H_
#define MW_GPU_SRC_PAIR_H_

#include <cstdint>

#if defined(__CUDACC__)
#define MW_HD __host__ __device__
#define MW_HD_INLINE __host__ __device__ __forceinline__
#else
#define MW_HD
#define MW_HD_INLINE inline __attribute__((always_inline))
#endif

namespace mw::gpu::internal {

inline constexpr unsigned kCtphSlot = 64;     // bytes per CTPH signature slot
inline constexpr unsigned kSketchBins = 128;  // uint16 bins per sketch slot
// The 2-gram summary of a signature: a 256-bit set of hashed 2-grams.
inline constexpr unsigned kGramWords = 4;
inline constexpr unsigned kGramBits = 64 * kGramWords;
// kmax tables cover totals la + lb up to 2 * kCtphSlot.
inline constexpr unsigned kMaxTotal = 2 * kCtphSlot;

MW_HD_INLINE unsigned Popcount64(std::uint64_t x) {
#if defined(__CUDA_ARCH__)
  return static_cast<unsigned>(__popcll(x));
#else
  return static_cast<unsigned>(__builtin_popcountll(x));
#endif
}

// The bucket of the 2-gram (c1, c2) in the 2-gram summary.
MW_HD_INLINE unsigned GramBucket(std::uint8_t c1, std::uint8_t c2) {
  const std::uint32_t g = (static_cast<std::uint32_t>(c1) << 8) | c2;
  return (g * 0x9E3779B1u) >> (32 - 8);  // 8 = log2(kGramBits)
}
static_assert(kGramBits == 256, "GramBucket takes the top 8 bits");

// The 2-gram summary of s[0..len): the set of buckets hit (`bits`, kGramWords
// words) and `extra`, the 2-grams that fell into an already-set bucket, that is
// (len - 1) - popcount(bits) for len >= 1 (0 for len <= 1).
MW_HD_INLINE void GramSummary(const std::uint8_t* s, unsigned len,
                              std::uint64_t* bits, std::uint8_t* extra) {
  for (unsigned w = 0; w < kGramWords; ++w) bits[w] = 0;
  unsigned grams = 0;
  for (unsigned i = 1; i < len; ++i) {
    const unsigned b = GramBucket(s[i - 1], s[i]);
    bits[b >> 6] |= std::uint64_t{1} << (b & 63);
    ++grams;
  }
  unsigned set = 0;
  for (unsigned w = 0; w < kGramWords; ++w) set += Popcount64(bits[w]);
  *extra = static_cast<std::uint8_t>(grams - set);
}

// One text column of Myers' bit-parallel recurrence (Hyyrö's formulation):
// eq is the match mask of the column's symbol in the pattern, high the
// pattern's last bit. Shared by every MyersDistance form, so they agree bit
// for bit.
MW_HD_INLINE void MyersColumn(std::uint64_t eq, std::uint64_t high,
                              std::uint64_t* pv, std::uint64_t* mv,
                              unsigned* score) {
  const std::uint64_t xv = eq | *mv;
  const std::uint64_t xh = (((eq & *pv) + *pv) ^ *pv) | eq;
  std::uint64_t ph = *mv | ~(xh | *pv);
  std::uint64_t mh = *pv & xh;
  *score += static_cast<unsigned>((ph & high) != 0);
  *score -= static_cast<unsigned>((mh & high) != 0);
  ph = (ph << 1) | 1;
  mh <<= 1;
  *pv = mh | ~(xv | ph);
  *mv = ph & xv;
}

// Levenshtein distance of a[0..la) and b[0..lb) by Myers' bit-parallel
// algorithm, the same recurrence as
// fingerprint::internal::MyersDistanceScalar. REQUIRES: la <= 64.
MW_HD_INLINE unsigned MyersDistance(const std::uint8_t* a, unsigned la,
                                    const std::uint8_t* b, unsigned lb) {
  if (la == 0) return lb;
  if (lb == 0) return la;
  // Match masks; only the entries of symbols in a or b are initialised.
  // (2 KB a thread: on a GPU that is local memory, which the window's CTPH
  // kernel avoids with one table per block in shared memory; kernels.cu.)
  std::uint64_t peq[256];
  for (unsigned i = 0; i < la; ++i) peq[a[i]] = 0;
  for (unsigned j = 0; j < lb; ++j) peq[b[j]] = 0;
  for (unsigned i = 0; i < la; ++i) peq[a[i]] |= std::uint64_t{1} << i;
  std::uint64_t pv = ~std::uint64_t{0};
  std::uint64_t mv = 0;
  const std::uint64_t high = std::uint64_t{1} << (la - 1);
  unsigned score = la;
  for (unsigned j = 0; j < lb; ++j)
    MyersColumn(peq[b[j]], high, &pv, &mv, &score);
  return score;
}

// The thresholds as the kernels take them (a plain struct passed by value).
struct PairParams {
  // kmax[t]: the largest edit distance d with double(d) / double(t) <=
  // ctph_edit_rate, -1 where there is none; t = la + lb in [0, kMaxTotal].
  // Built by MakePairParams so that "d <= kmax[t]" is exactly the reference's
  // floating-point test "EditRate <= ctph_edit_rate".
  std::int16_t kmax[kMaxTotal + 1];
  std::uint32_t simhash_distance;
  double sketch_jaccard;
  double sketch_length_ratio;
  std::uint32_t sketch_min_words;
};

// One CTPH signature level of a pair: the bytes, the length and the 2-gram
// summary of each side.
struct CtphSide {
  const std::uint8_t* s;
  unsigned len;
  const std::uint64_t* grams;
  unsigned extra;
};

// Whether EditRate(x, y) <= the rate of `p`, the distance in *d when so.
// Filters, each of which rejects only pairs with d > k = kmax[lx + ly]:
//   length: d >= |lx - ly|;
//   2-grams: within k edits the two strings share at least
//     max(lx, ly) - 1 - 2k 2-grams (an edit destroys at most two of the
//     longer string's 2-grams), and the shared 2-grams (as multisets) are at
//     most popcount(gx & gy) + min(ex, ey) (docs/gpu.md).
// Empty signatures are never comparable (CtphEditRate's rule).
// The edit distance of a level that passed the filters: MyersDistance of the
// two sides. A kernel may pass its own (same answer, other memory), which is
// called with x from the pair's first side.
struct ScalarMyers {
  MW_HD_INLINE unsigned operator()(const CtphSide& x, const CtphSide& y) const {
    return MyersDistance(x.s, x.len, y.s, y.len);
  }
};

template <typename Distance = ScalarMyers>
MW_HD_INLINE bool CtphLevel(const CtphSide& x, const CtphSide& y,
                            const PairParams& p, unsigned* d,
                            const Distance& distance = Distance{}) {
  if (x.len == 0 || y.len == 0) return false;
  const int k = p.kmax[x.len + y.len];
  if (k < 0) return false;
  const int diff = static_cast<int>(x.len) - static_cast<int>(y.len);
  if (diff > k || -diff > k) return false;
  const int longer = static_cast<int>(x.len > y.len ? x.len : y.len);
  const int need = longer - 1 - 2 * k;
  if (need > 0) {
    unsigned common = x.extra < y.extra ? x.extra : y.extra;
    for (unsigned w = 0; w < kGramWords; ++w)
      common += Popcount64(x.grams[w] & y.grams[w]);
    if (static_cast<int>(common) < need) return false;
  }
  const unsigned dist = distance(x, y);
  if (static_cast<int>(dist) > k) return false;
  *d = dist;
  return true;
}

// The edit rate d / t as the reference computes it, narrowed to float.
MW_HD_INLINE float EditRateScore(unsigned d, unsigned t) {
  return static_cast<float>(static_cast<double>(d) / static_cast<double>(t));
}

// Whether CtphEditRate(a, b) <= the rate of `p`, the rate in *score when so.
// a1/a2 are a's signatures at B and 2B (block_a = B; 0: no signature).
// `distance` as CtphLevel's; its x is always a1 or a2.
template <typename Distance = ScalarMyers>
MW_HD_INLINE bool CtphPair(std::uint32_t block_a, const CtphSide& a1,
                           const CtphSide& a2, std::uint32_t block_b,
                           const CtphSide& b1, const CtphSide& b2,
                           const PairParams& p, float* score,
                           const Distance& distance = Distance{}) {
  if (block_a == 0 || block_b == 0) return false;
  unsigned d = 0;
  if (block_a == block_b) {
    // min(r1, r2) <= rate iff either level passes; a level that fails has a
    // rate above the threshold, so above the other's.
    bool any = false;
    float best = 0;
    if (CtphLevel(a1, b1, p, &d, distance)) {
      best = EditRateScore(d, a1.len + b1.len);
      any = true;
    }
    if (CtphLevel(a2, b2, p, &d, distance)) {
      const float r = EditRateScore(d, a2.len + b2.len);
      if (!any || r < best) best = r;
      any = true;
    }
    if (any) *score = best;
    return any;
  }
  if (static_cast<std::uint64_t>(block_a) * 2 == block_b) {
    if (!CtphLevel(a2, b1, p, &d, distance)) return false;
    *score = EditRateScore(d, a2.len + b1.len);
    return true;
  }
  if (static_cast<std::uint64_t>(block_b) * 2 == block_a) {
    if (!CtphLevel(a1, b2, p, &d, distance)) return false;
    *score = EditRateScore(d, a1.len + b2.len);
    return true;
  }
  return false;
}

MW_HD_INLINE bool SimHashPair(std::uint64_t a, std::uint64_t b,
                              const PairParams& p, float* score) {
  const unsigned d = Popcount64(a ^ b);
  if (d > p.simhash_distance) return false;
  *score = static_cast<float>(d);
  return true;
}

// The word-count filters of SketchPair: both at least sketch_min_words, the
// larger at most sketch_length_ratio times the smaller.
MW_HD_INLINE bool SketchWordsComparable(std::uint32_t words_a,
                                        std::uint32_t words_b,
                                        const PairParams& p) {
  if (words_a < p.sketch_min_words || words_b < p.sketch_min_words)
    return false;
  const std::uint32_t lo = words_a < words_b ? words_a : words_b;
  const std::uint32_t hi = words_a < words_b ? words_b : words_a;
  return !(static_cast<double>(hi) >
           p.sketch_length_ratio * static_cast<double>(lo));
}

// fingerprint::ScoreSketches over kSketchBins bins: the bins equal and set in
// both (*matches) and the bins set in either (*slots).
// On a device, a and b must be 16-byte aligned (sketch slots are 256 bytes
// from a cudaMalloc base): the bins come eight at a time in 16-byte loads
// and two at a time through the 16-bit SIMD compares, each bin that counts
// setting 16 bits of a mask (hence the / 16), so the counts are the loop's.
MW_HD_INLINE void SketchCounts(const std::uint16_t* a, const std::uint16_t* b,
                               std::uint32_t* matches, std::uint32_t* slots) {
  std::uint32_t m = 0;
  std::uint32_t s = 0;
#if defined(__CUDA_ARCH__)
  const uint4* va = reinterpret_cast<const uint4*>(a);
  const uint4* vb = reinterpret_cast<const uint4*>(b);
  const auto count = [&](unsigned x, unsigned y) {
    m += __popc(__vcmpeq2(x, y) & __vcmpne2(x, 0u));
    s += __popc(__vcmpne2(x | y, 0u));
  };
#pragma unroll 4
  for (unsigned k = 0; k < kSketchBins / 8; ++k) {
    const uint4 x = __ldg(va + k);
    const uint4 y = __ldg(vb + k);
    count(x.x, y.x);
    count(x.y, y.y);
    count(x.z, y.z);
    count(x.w, y.w);
  }
  m /= 16;
  s /= 16;
#else
  for (unsigned i = 0; i < kSketchBins; ++i) {
    m += static_cast<std::uint32_t>(a[i] == b[i] && a[i] != 0);
    s += static_cast<std::uint32_t>((a[i] | b[i]) != 0);
  }
#endif
  *matches = m;
  *slots = s;
}

// The Jaccard estimate matches / slots (0 for two empty sketches) against
// sketch_jaccard, the estimate in *score when it passes.
MW_HD_INLINE bool SketchDecide(std::uint32_t matches, std::uint32_t slots,
                               const PairParams& p, float* score) {
  const double j =
      slots == 0 ? 0.0
                 : static_cast<double>(matches) / static_cast<double>(slots);
  if (!(j >= p.sketch_jaccard)) return false;
  *score = static_cast<float>(j);
  return true;
}

// The three above in order: the word filters, the counts, the decision.
MW_HD_INLINE bool SketchPair(const std::uint16_t* a, std::uint32_t words_a,
                             const std::uint16_t* b, std::uint32_t words_b,
                             const PairParams& p, float* score) {
  if (!SketchWordsComparable(words_a, words_b, p)) return false;
  std::uint32_t matches = 0;
  std::uint32_t slots = 0;
  SketchCounts(a, b, &matches, &slots);
  return SketchDecide(matches, slots, p, score);
}

}  // namespace mw::gpu::internal

#endif  // MW_GPU_SRC_PAIR_H_
