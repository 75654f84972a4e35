// Per-pair comparison cores: block-list similarity, edit distance, Hamming
// distance.
//
// These are small inline functions over plain arrays so that the CPU comparator
// and a later CUDA kernel share one definition (they use no allocation, no
// exceptions and no library calls); the one exception is the CPU-only batch
// MyersDistances, defined in myers.cc. Fingerprint-level logic (which block
// lists to compare, thresholds) lives in fingerprint.h.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_CORE_H_
#define MW_FINGERPRINT_CORE_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace mw::fingerprint {

// One block of a block list as the comparison sees it: the first 32 bits of the
// block's SHA-1 (big-endian, in the high half of `key`; the low half is zero,
// see BlockKeyOf) and the block's position in the message. A message's keys
// are sorted by (key, pos), so equal blocks are adjacent and, among equal
// blocks, in message order.
//
// 32 bits, not 64, because the stored form keeps every block's key (half of a
// stored fingerprint was block keys): two different blocks of two messages
// share a key with probability 2^-32, so two messages of 50 blocks each share
// one by accident once in about 1.7 million comparisons, and one shared block
// moves a similarity by at most 1/M. Every comparison uses these keys, fresh
// or stored, so a stored fingerprint compares exactly as a fresh one.
struct BlockKey {
  std::uint64_t key = 0;
  std::uint32_t pos = 0;
  std::uint32_t len = 1;  // the block's length in bytes (its weight)
  friend bool operator==(const BlockKey&, const BlockKey&) = default;
};

inline bool operator<(const BlockKey& a, const BlockKey& b) {
  return a.key != b.key ? a.key < b.key : a.pos < b.pos;
}

// The key of a block whose SHA-1 starts with the 8 bytes `prefix` read
// big-endian: its first 32 bits, in the high half.
inline constexpr std::uint64_t BlockKeyOf(std::uint64_t prefix) {
  return prefix & 0xffffffff00000000ull;
}

// Position-weighted block similarity of two messages with m = x.size() and n =
// y.size() blocks.
//
//   Sim(X, Y) = Σ_(i,j) matched (M − |i − j|) / M²,   M = max(m, n)
//
// Repeated blocks: a block that occurs p times in X and q times in Y
// contributes min(p, q) matches, pairing its k-th occurrence in X with its k-th
// occurrence in Y. Every position is in at most one match, so Sim ≤ min(m, n)·M
// / M² ≤ 1 (the published formula, which pairs every occurrence with every
// occurrence, reached 2.02 on the dev corpus).
//
// Normalisation: the published method divides by m·n; dividing by M² is the
// same when m = n and equals the published score times min(m, n)/max(m, n)
// otherwise. That factor is what stops a short message whose sentences are all
// contained in a long one (a quoted reply, a digest) from scoring as a
// duplicate of it: its score is at most the fraction of the long message it
// covers.
//
// REQUIRES: x and y sorted by (key, pos) (operator<). Cost O(m + n) (a merge);
// 0 when either is empty.
inline double BlockSimilarity(std::span<const BlockKey> x,
                              std::span<const BlockKey> y) {
  const std::size_t m = x.size();
  const std::size_t n = y.size();
  if (m == 0 || n == 0) return 0.0;
  const std::int64_t big_m = static_cast<std::int64_t>(m > n ? m : n);
  std::int64_t sum = 0;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < m && j < n) {
    if (x[i].key < y[j].key) {
      ++i;
    } else if (y[j].key < x[i].key) {
      ++j;
    } else {
      // Equal keys: walk both runs in step, pairing k-th with k-th occurrence.
      const std::uint64_t k = x[i].key;
      while (i < m && j < n && x[i].key == k && y[j].key == k) {
        const std::int64_t d = static_cast<std::int64_t>(x[i].pos) - y[j].pos;
        sum += big_m - (d < 0 ? -d : d);
        ++i;
        ++j;
      }
      while (i < m && x[i].key == k) ++i;
      while (j < n && y[j].key == k) ++j;
    }
  }
  return static_cast<double>(sum) /
         (static_cast<double>(big_m) * static_cast<double>(big_m));
}

// BlockSimilarity with each block weighted by its length in bytes:
//
//   Simw(X, Y) = Σ_(i,j) matched min(len_i, len_j) · (M − |i − j|) / M / L,
//   L = max(Σ len over X, Σ len over Y)
//
// with the same pairing of repeated blocks. Equal to BlockSimilarity when all
// blocks have the same length and m = n; in [0, 1]. Long blocks carry the
// content of a message, short ones
// ("thanks!", "-- john", a list footer line) are what unrelated messages share,
// so this weighting keeps templated messages with different content apart.
// REQUIRES: x and y sorted by (key, pos). Cost O(m + n).
inline double WeightedBlockSimilarity(std::span<const BlockKey> x,
                                      std::span<const BlockKey> y) {
  const std::size_t m = x.size();
  const std::size_t n = y.size();
  if (m == 0 || n == 0) return 0.0;
  const std::int64_t big_m = static_cast<std::int64_t>(m > n ? m : n);
  std::uint64_t len_x = 0;
  std::uint64_t len_y = 0;
  for (const BlockKey& b : x) len_x += b.len;
  for (const BlockKey& b : y) len_y += b.len;
  const std::uint64_t big_l = len_x > len_y ? len_x : len_y;
  if (big_l == 0) return 0.0;
  double sum = 0;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < m && j < n) {
    if (x[i].key < y[j].key) {
      ++i;
    } else if (y[j].key < x[i].key) {
      ++j;
    } else {
      const std::uint64_t k = x[i].key;
      while (i < m && j < n && x[i].key == k && y[j].key == k) {
        const std::int64_t d = static_cast<std::int64_t>(x[i].pos) - y[j].pos;
        const std::uint32_t w = x[i].len < y[j].len ? x[i].len : y[j].len;
        sum += static_cast<double>(w) *
               static_cast<double>(big_m - (d < 0 ? -d : d));
        ++i;
        ++j;
      }
      while (i < m && x[i].key == k) ++i;
      while (j < n && y[j].key == k) ++j;
    }
  }
  return sum / (static_cast<double>(big_m) * static_cast<double>(big_l));
}

// Order-insensitive containment of the smaller message in the larger one: the
// share of the smaller message's blocks that the larger one also has, in any
// order and at any distance,
//
//   Cont(X, Y) = min( |X ∩ Y| / min(m, n),  Σ_(i,j) matched min(len_i, len_j)
//                     / min(L_x, L_y) ),   L = Σ len over a list,
//
// with X ∩ Y the multiset intersection (a block that occurs p times in X and q
// times in Y counts min(p, q) times, paired k-th with k-th as in
// BlockSimilarity). Both shares must be high: the counted share alone lets a
// few long blocks go missing, the byte share alone a template of short lines
// decide. 0 when max(L_x, L_y) > max_length_ratio · min(L_x, L_y): a short
// message quoted in a long reply or digest is contained in it but is not a
// copy of it. This is what survives text inserted between many lines (every
// line of the original is still there, but the position weighting of
// BlockSimilarity and its division by the larger count punish the shifts); in
// [0, 1], 1 when one multiset contains the other.
// REQUIRES: x and y sorted by (key, pos). Cost O(m + n).
inline double BlockContainment(std::span<const BlockKey> x,
                               std::span<const BlockKey> y,
                               double max_length_ratio) {
  const std::size_t m = x.size();
  const std::size_t n = y.size();
  if (m == 0 || n == 0) return 0.0;
  std::uint64_t len_x = 0;
  std::uint64_t len_y = 0;
  for (const BlockKey& b : x) len_x += b.len;
  for (const BlockKey& b : y) len_y += b.len;
  const std::uint64_t small_l = len_x < len_y ? len_x : len_y;
  const std::uint64_t big_l = len_x > len_y ? len_x : len_y;
  if (small_l == 0 || static_cast<double>(big_l) >
                          max_length_ratio * static_cast<double>(small_l)) {
    return 0.0;
  }
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < m && j < n) {
    if (x[i].key < y[j].key) {
      ++i;
    } else if (y[j].key < x[i].key) {
      ++j;
    } else {
      const std::uint64_t k = x[i].key;
      while (i < m && j < n && x[i].key == k && y[j].key == k) {
        ++count;
        bytes += x[i].len < y[j].len ? x[i].len : y[j].len;
        ++i;
        ++j;
      }
      while (i < m && x[i].key == k) ++i;
      while (j < n && y[j].key == k) ++j;
    }
  }
  const double counted =
      static_cast<double>(count) / static_cast<double>(m < n ? m : n);
  const double weighed =
      static_cast<double>(bytes) / static_cast<double>(small_l);
  return counted < weighed ? counted : weighed;
}

// Levenshtein distance (unit cost insert, delete, substitute) between a and b
// with Myers' bit-parallel algorithm (Myers 1999, in Hyyrö's formulation): one
// 64-bit word holds a whole DP column of `a`, so the cost is O(|a| + |b|) word
// operations. REQUIRES: a.size() <= 64 (CTPH signatures are at most 64
// symbols). Any byte values. CPU-only (myers_pair.cc): where the CPU has
// AVX-512 (F, BW, VL, VBMI, BITALG; checked at run time) and 1 <= |b| <= 64,
// the two halves of b run at once, one from each end (see myers_pair.cc);
// otherwise internal::MyersDistanceScalar. Both give the same answers.
std::uint32_t MyersDistance(std::string_view a, std::string_view b);

namespace internal {
// The one-chain implementation behind MyersDistance (its portable path, and
// the baseline of its tests and benchmarks): one column per text symbol, each
// a chain of about nine dependent operations. REQUIRES: a.size() <= 64.
inline std::uint32_t MyersDistanceScalar(std::string_view a,
                                         std::string_view b) {
  const std::size_t m = a.size();
  if (m == 0) return static_cast<std::uint32_t>(b.size());
  if (b.empty()) return static_cast<std::uint32_t>(m);
  // Match masks per byte value; only the entries a and b use are initialised.
  std::uint64_t peq[256];
  for (const char c : a) peq[static_cast<unsigned char>(c)] = 0;
  for (const char c : b) peq[static_cast<unsigned char>(c)] = 0;
  for (std::size_t i = 0; i < m; ++i) {
    peq[static_cast<unsigned char>(a[i])] |= std::uint64_t{1} << i;
  }
  std::uint64_t pv = ~std::uint64_t{0};
  std::uint64_t mv = 0;
  const std::uint64_t high = std::uint64_t{1} << (m - 1);
  std::uint32_t score = static_cast<std::uint32_t>(m);
  for (const char c : b) {
    const std::uint64_t eq = peq[static_cast<unsigned char>(c)];
    const std::uint64_t xv = eq | mv;
    const std::uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
    std::uint64_t ph = mv | ~(xh | pv);
    std::uint64_t mh = pv & xh;
    // Branch-free: the sign of the bottom cell's change is data, not control.
    score += static_cast<std::uint32_t>((ph & high) != 0);
    score -= static_cast<std::uint32_t>((mh & high) != 0);
    // Global alignment: row 0 of the DP grows by one per column, so a 1 enters
    // at the bottom.
    ph = (ph << 1) | 1;
    mh <<= 1;
    pv = mh | ~(xv | ph);
    mv = ph & xv;
  }
  return score;
}

// The AVX-512 implementation behind MyersDistance. Returns false, and writes
// nothing, where the CPU lacks it or the input is outside what it takes (a or
// b empty, b longer than 64). REQUIRES: a.size() <= 64.
bool MyersDistanceAvx512(std::string_view a, std::string_view b,
                         std::uint32_t* distance);
}  // namespace internal

// MyersDistance(pattern, texts[k]) into out[k] for every k: the store's case,
// one query signature against many candidates. CPU-only (myers.cc): the match
// masks are built once, and several texts advance together so that their
// independent dependency chains overlap (one chain alone is about nine
// dependent operations per symbol, which bounds a single pair to ~64 x 9
// cycles). Where the CPU has AVX2 (checked at run time) twelve texts advance
// per step in three vectors of four; elsewhere four in scalar registers. Both
// give exactly MyersDistance's answers. REQUIRES: pattern.size() <= 64;
// out.size()
// >= texts.size(). Texts may have any length.
void MyersDistances(std::string_view pattern,
                    std::span<const std::string_view> texts,
                    std::span<std::uint32_t> out);

namespace internal {
// The two implementations behind MyersDistances, for tests and benchmarks.
// MyersDistancesAvx2 returns false, and writes nothing, where the CPU has no
// AVX2.
void MyersDistancesPortable(std::string_view pattern,
                            std::span<const std::string_view> texts,
                            std::span<std::uint32_t> out);
bool MyersDistancesAvx2(std::string_view pattern,
                        std::span<const std::string_view> texts,
                        std::span<std::uint32_t> out);
}  // namespace internal

// edit_rate = d / (|a| + |b|) with d the Levenshtein distance; 0 for identical
// strings, at most 1 (0 when both are empty). REQUIRES: a.size() <= 64.
inline double EditRate(std::string_view a, std::string_view b) {
  const std::size_t total = a.size() + b.size();
  if (total == 0) return 0.0;
  return static_cast<double>(MyersDistance(a, b)) / static_cast<double>(total);
}

// Number of differing bits of two SimHashes.
inline std::uint32_t Hamming(std::uint64_t a, std::uint64_t b) {
  return static_cast<std::uint32_t>(std::popcount(a ^ b));
}

}  // namespace mw::fingerprint

#endif  // MW_FINGERPRINT_CORE_H_
