// The kernels' bodies: functions of explicit block and thread indices over
// the structure-of-arrays layout, shared by the CUDA kernels (kernels.cu,
// which pass blockIdx/threadIdx/blockDim) and the CPU backend (cpu_engine.cc,
// which walks the same grid with threads). Both therefore run the same code
// on the same pairs; only the order in which matches land in the output
// differs, and the engines sort it away.
//
// Grids (block dimension kTile threads in x):
//   Query:    grid (ceil(window / kTile), queries); thread (bx, tx) of grid
//             row by compares query `by` with window slot bx * kTile + tx.
//   AllPairs: grid (tiles of the upper triangle, 1); tile t is the (ti, tj)
//             with ti <= tj in row-major order over ceil(n / kTile) tiles a
//             side; thread tx compares row i = ti * kTile + tx with every
//             j > i of column tile tj.
// Matches are compacted through one atomic counter: a match takes the next
// index and is written when it is below the capacity. The counter goes on
// counting past it, so the caller learns the exact size it needs
// (overflow) and runs again; no match is lost silently.
//
// Thread-safety: the bodies of one launch may run concurrently; they share
// only the atomic counter and write disjoint output slots.
#ifndef MW_GPU_SRC_KERNELS_H_
#define MW_GPU_SRC_KERNELS_H_

#include <cmath>
#include <cstdint>

#include "pair.h"

namespace mw::gpu::internal {

inline constexpr unsigned kTile = 64;

// Kind codes, as engine.h's Kind.
inline constexpr unsigned kKindCtph = 1;
inline constexpr unsigned kKindSimHash = 2;
inline constexpr unsigned kKindSketch = 4;

struct Dim {
  std::uint32_t x = 0;
  std::uint32_t y = 0;
};

// A set of signatures in fixed-width slots (see window.h for the owner).
// Slot k's CTPH bytes are ctph[k * kCtphSlot ..], its 2-gram summary
// grams[k * kGramWords ..], its sketch sketch[k * kSketchBins ..].
struct SoaView {
  std::uint32_t n = 0;
  const std::uint32_t* block = nullptr;
  const std::uint8_t* len = nullptr;
  const std::uint8_t* len2 = nullptr;
  const std::uint8_t* ctph = nullptr;
  const std::uint8_t* ctph2 = nullptr;
  const std::uint64_t* grams = nullptr;
  const std::uint64_t* grams2 = nullptr;
  const std::uint8_t* extra = nullptr;
  const std::uint8_t* extra2 = nullptr;
  const std::uint64_t* simhash = nullptr;
  const std::uint32_t* words = nullptr;
  const std::uint16_t* sketch = nullptr;
};

struct PairMatch {
  std::uint32_t query;  // query index, or i of all-pairs
  std::uint32_t item;   // window slot, or j of all-pairs
  float score;
};

struct Output {
  PairMatch* matches = nullptr;
  unsigned long long capacity = 0;
  unsigned long long* count = nullptr;  // starts at 0
};

MW_HD_INLINE void Emit(const Output& out, std::uint32_t q, std::uint32_t item,
                       float score) {
#if defined(__CUDA_ARCH__)
  const unsigned long long at = atomicAdd(out.count, 1ull);
#else
  const unsigned long long at =
      __atomic_fetch_add(out.count, 1ull, __ATOMIC_RELAXED);
#endif
  if (at < out.capacity) {
    out.matches[at].query = q;
    out.matches[at].item = item;
    out.matches[at].score = score;
  }
}

MW_HD_INLINE CtphSide Side1(const SoaView& v, std::uint32_t k) {
  return {v.ctph + static_cast<std::uint64_t>(k) * kCtphSlot, v.len[k],
          v.grams + static_cast<std::uint64_t>(k) * kGramWords, v.extra[k]};
}
MW_HD_INLINE CtphSide Side2(const SoaView& v, std::uint32_t k) {
  return {v.ctph2 + static_cast<std::uint64_t>(k) * kCtphSlot, v.len2[k],
          v.grams2 + static_cast<std::uint64_t>(k) * kGramWords, v.extra2[k]};
}

// Whether slot i of `a` and slot j of `b` are under the threshold of kKind.
// `distance`: CtphPair's (CTPH only).
template <unsigned kKind, typename Distance = ScalarMyers>
MW_HD_INLINE bool EvalPair(const SoaView& a, std::uint32_t i, const SoaView& b,
                           std::uint32_t j, const PairParams& p, float* score,
                           const Distance& distance = Distance{}) {
  if constexpr (kKind == kKindCtph) {
    // The block-size test first: most pairs of a real window stop here.
    const std::uint32_t ba = a.block[i];
    const std::uint32_t bb = b.block[j];
    if (ba != bb && static_cast<std::uint64_t>(ba) * 2 != bb &&
        static_cast<std::uint64_t>(bb) * 2 != ba)
      return false;
    return CtphPair(ba, Side1(a, i), Side2(a, i), bb, Side1(b, j), Side2(b, j),
                    p, score, distance);
  } else if constexpr (kKind == kKindSimHash) {
    return SimHashPair(a.simhash[i], b.simhash[j], p, score);
  } else {
    return SketchPair(a.sketch + static_cast<std::uint64_t>(i) * kSketchBins,
                      a.words[i],
                      b.sketch + static_cast<std::uint64_t>(j) * kSketchBins,
                      b.words[j], p, score);
  }
}

template <unsigned kKind>
MW_HD_INLINE void QueryBody(const SoaView& queries, const SoaView& window,
                            const PairParams& p, const Output& out, Dim block,
                            Dim thread, Dim block_dim) {
  const std::uint64_t slot =
      static_cast<std::uint64_t>(block.x) * block_dim.x + thread.x;
  const std::uint32_t q = block.y;
  if (slot >= window.n || q >= queries.n) return;
  float score = 0;
  if (EvalPair<kKind>(queries, q, window, static_cast<std::uint32_t>(slot), p,
                      &score))
    Emit(out, q, static_cast<std::uint32_t>(slot), score);
}

// Tiles a side for n items, and tiles of the upper triangle (diagonal
// included): the AllPairs grid.
MW_HD_INLINE std::uint64_t TilesPerSide(std::uint32_t n) {
  return (static_cast<std::uint64_t>(n) + kTile - 1) / kTile;
}
MW_HD_INLINE std::uint64_t TriangleTiles(std::uint32_t n) {
  const std::uint64_t t = TilesPerSide(n);
  return t * (t + 1) / 2;
}

// The first linear index of row ti of the upper triangle of t x t tiles.
MW_HD_INLINE std::uint64_t RowStart(std::uint64_t ti, std::uint64_t t) {
  return ti * t - ti * (ti - 1) / 2;  // ti = 0: 0 (the product is 0)
}

// (ti, tj) of linear tile index `linear` over t tiles a side. The float
// estimate is only a start; the integer loops make it exact.
MW_HD_INLINE void TileOf(std::uint64_t linear, std::uint64_t t,
                         std::uint64_t* ti, std::uint64_t* tj) {
  const double b = 2.0 * static_cast<double>(t) + 1.0;
  const double disc = b * b - 8.0 * static_cast<double>(linear);
  double est = (b - (disc > 0 ? ::sqrt(disc) : 0.0)) / 2.0;
  std::uint64_t r = est < 0 ? 0 : static_cast<std::uint64_t>(est);
  if (r >= t) r = t - 1;
  while (r > 0 && RowStart(r, t) > linear) --r;
  while (r + 1 < t && RowStart(r + 1, t) <= linear) ++r;
  *ti = r;
  *tj = r + (linear - RowStart(r, t));
}

// The pairs thread `thread` of AllPairs tile (ti, tj) (TileOf of its block)
// compares: row *i against every j in [*j0, *j1) (possibly empty); false when
// the thread is past the set.
MW_HD_INLINE bool AllPairsRow(std::uint32_t n, std::uint64_t ti,
                              std::uint64_t tj, Dim thread, Dim block_dim,
                              std::uint64_t* i, std::uint64_t* j0,
                              std::uint64_t* j1) {
  *i = ti * block_dim.x + thread.x;
  if (*i >= n) return false;
  *j0 = tj * block_dim.x;
  if (*j0 <= *i) *j0 = *i + 1;
  *j1 = (tj + 1) * block_dim.x;
  if (*j1 > n) *j1 = n;
  return true;
}

template <unsigned kKind>
MW_HD_INLINE void AllPairsBody(const SoaView& set, const PairParams& p,
                               const Output& out, Dim block, Dim thread,
                               Dim block_dim) {
  std::uint64_t ti = 0;
  std::uint64_t tj = 0;
  TileOf(block.x, TilesPerSide(set.n), &ti, &tj);
  std::uint64_t i = 0;
  std::uint64_t j = 0;
  std::uint64_t end = 0;
  if (!AllPairsRow(set.n, ti, tj, thread, block_dim, &i, &j, &end)) return;
  for (; j < end; ++j) {
    float score = 0;
    if (EvalPair<kKind>(set, static_cast<std::uint32_t>(i), set,
                        static_cast<std::uint32_t>(j), p, &score))
      Emit(out, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(j),
           score);
  }
}

}  // namespace mw::gpu::internal

#endif  // MW_GPU_SRC_KERNELS_H_
