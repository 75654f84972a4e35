#include "cpu_run.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdint>
#include <thread>
#include <type_traits>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MW_GPU_HAVE_V3 1
#include <immintrin.h>
#endif

namespace mw::gpu::internal {
namespace {

// need[s]: the fewest matching bins with which SketchDecide passes a pair of
// s bins set, kSketchBins + 1 where none does. The estimate m / s is
// monotone in m (a correctly rounded division), so "m >= need[s]" is
// SketchDecide's answer, without a division per pair. Built only for sketch
// runs (the default is unused).
struct SketchNeed {
  SketchNeed() = default;
  explicit SketchNeed(const PairParams& p) {
    for (std::uint32_t s = 0; s <= kSketchBins; ++s) {
      need[s] = kSketchBins + 1;
      float score = 0;
      for (std::uint32_t m = 0; m <= s; ++m) {
        if (SketchDecide(m, s, p, &score)) {
          need[s] = static_cast<std::uint16_t>(m);
          break;
        }
      }
    }
  }
  std::uint16_t need[kSketchBins + 1] = {};
};

struct QueryLaunch {
  SoaView queries;
  SoaView window;
  PairParams params;
  Output out;
  std::uint64_t grid_x;  // window tiles
  std::uint64_t grid_y;  // queries
  SketchNeed sketch;
};

struct AllPairsLaunch {
  SoaView set;
  PairParams params;
  Output out;
  SketchNeed sketch;
};

// The block loops, compiled twice: once for the baseline x86-64 and once for
// x86-64-v3 (AVX2, BMI2, POPCNT), picked at run time; the bodies inline into
// each, so the popcounts of the filters and of SimHash become one instruction
// where the CPU has it. Blocks are visited window tile by window tile, each
// tile against every query in turn, so a tile stays in cache across queries
// (the grid is the CUDA one; only the visiting order differs).
#define MW_GPU_BLOCK_LOOPS(SUFFIX, ATTR)                                      \
  template <unsigned kKind>                                                   \
  ATTR void QueryBlocks##SUFFIX(const QueryLaunch& l, std::uint64_t b0,       \
                                std::uint64_t b1) {                           \
    const Dim block_dim{kTile, 1};                                            \
    for (std::uint64_t b = b0; b < b1; ++b) {                                 \
      const Dim block{static_cast<std::uint32_t>(b / l.grid_y),               \
                      static_cast<std::uint32_t>(b % l.grid_y)};              \
      for (std::uint32_t tx = 0; tx < kTile; ++tx)                            \
        QueryBody<kKind>(l.queries, l.window, l.params, l.out, block,         \
                         Dim{tx, 0}, block_dim);                              \
    }                                                                         \
  }                                                                           \
  template <unsigned kKind>                                                   \
  ATTR void AllPairsBlocks##SUFFIX(const AllPairsLaunch& l, std::uint64_t b0, \
                                   std::uint64_t b1) {                        \
    const Dim block_dim{kTile, 1};                                            \
    for (std::uint64_t b = b0; b < b1; ++b) {                                 \
      const Dim block{static_cast<std::uint32_t>(b), 0};                      \
      for (std::uint32_t tx = 0; tx < kTile; ++tx)                            \
        AllPairsBody<kKind>(l.set, l.params, l.out, block, Dim{tx, 0},        \
                            block_dim);                                       \
    }                                                                         \
  }

MW_GPU_BLOCK_LOOPS(Base, )
#if defined(MW_GPU_HAVE_V3)
#define MW_GPU_V3 __attribute__((target("avx2,bmi,bmi2,popcnt,lzcnt")))
#define MW_GPU_V4                                           \
  __attribute__((                                           \
      target("avx2,bmi,bmi2,popcnt,lzcnt,avx512f,avx512bw," \
             "avx512vpopcntdq")))
MW_GPU_BLOCK_LOOPS(V3, MW_GPU_V3)
#endif
#undef MW_GPU_BLOCK_LOOPS

#if defined(MW_GPU_HAVE_V3)
// SimHash and sketch a tile row at a time: slot i of `a` against the slots
// [j0, j1) of `b`, the pairs the threads of one block compare. The vectors
// only count; what they count is what the bodies' pair functions count
// (popcount of XOR; SketchCounts' bins), and every decision is made by those
// functions (SimHashPair through EvalPair; SketchWordsComparable and
// SketchDecide), so a row gives the bodies' matches and scores.

// The pair (i, j) whose popcount a vector found within the limit, decided and
// scored by the bodies' own function.
inline void SimHashPass(const SoaView& a, std::uint32_t i, const SoaView& b,
                        std::uint64_t j, const PairParams& p,
                        const Output& out) {
  float score = 0;
  const auto jj = static_cast<std::uint32_t>(j);
  if (EvalPair<kKindSimHash>(a, i, b, jj, p, &score)) Emit(out, i, jj, score);
}

// SimHashPass for lane k of the vector at j for each bit k of `pass`.
inline void SimHashPasses(const SoaView& a, std::uint32_t i, const SoaView& b,
                          std::uint64_t j, unsigned pass, const PairParams& p,
                          const Output& out) {
  for (; pass != 0; pass &= pass - 1)
    SimHashPass(a, i, b, j + static_cast<unsigned>(__builtin_ctz(pass)), p,
                out);
}

// The vector lanes' limit: a popcount is at most 64, so a larger distance
// passes every pair, as it does in SimHashPair.
inline std::uint64_t SimHashLimit(const PairParams& p) {
  return p.simhash_distance < 64 ? p.simhash_distance : 64;
}

// Popcount of each 64-bit lane without VPOPCNTQ: nibble lookups, summed per
// lane by PSADBW (Mula, Kurz and Lemire 2018).
MW_GPU_V3 inline __m256i Popcount64x4(__m256i x) {
  const __m256i lut =
      _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1,
                       2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low = _mm256_set1_epi8(0x0f);
  const __m256i lo = _mm256_shuffle_epi8(lut, _mm256_and_si256(x, low));
  const __m256i hi =
      _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(x, 4), low));
  return _mm256_sad_epu8(_mm256_add_epi8(lo, hi), _mm256_setzero_si256());
}

MW_GPU_V3 void SimHashRowV3(const SoaView& a, std::uint32_t i, const SoaView& b,
                            std::uint64_t j0, std::uint64_t j1,
                            const PairParams& p, const Output& out) {
  const __m256i x = _mm256_set1_epi64x(static_cast<long long>(a.simhash[i]));
  const __m256i limit =
      _mm256_set1_epi64x(static_cast<long long>(SimHashLimit(p)));
  std::uint64_t j = j0;
  for (; j + 4 <= j1; j += 4) {
    const __m256i y =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.simhash + j));
    const __m256i over =
        _mm256_cmpgt_epi64(Popcount64x4(_mm256_xor_si256(x, y)), limit);
    const unsigned pass =
        ~static_cast<unsigned>(_mm256_movemask_pd(_mm256_castsi256_pd(over))) &
        0xFu;
    SimHashPasses(a, i, b, j, pass, p, out);
  }
  for (; j < j1; ++j) SimHashPass(a, i, b, j, p, out);
}

MW_GPU_V4 void SimHashRowV4(const SoaView& a, std::uint32_t i, const SoaView& b,
                            std::uint64_t j0, std::uint64_t j1,
                            const PairParams& p, const Output& out) {
  const __m512i x = _mm512_set1_epi64(static_cast<long long>(a.simhash[i]));
  const __m512i limit =
      _mm512_set1_epi64(static_cast<long long>(SimHashLimit(p)));
  for (std::uint64_t j = j0; j < j1; j += 8) {
    // The lanes past j1 are masked: neither loaded nor passed.
    const std::uint64_t left = j1 - j;
    const __mmask8 live =
        left >= 8 ? __mmask8{0xFF} : static_cast<__mmask8>((1u << left) - 1);
    const __m512i y = _mm512_maskz_loadu_epi64(live, b.simhash + j);
    const __m512i d = _mm512_popcnt_epi64(_mm512_xor_si512(x, y));
    const unsigned pass = _mm512_mask_cmple_epu64_mask(live, d, limit);
    SimHashPasses(a, i, b, j, pass, p, out);
  }
}

// SketchCounts of two kSketchBins-bin sketches. CMPEQ/MOVEMASK give two bits
// a 16-bit bin, hence the halving.
MW_GPU_V3 inline void SketchCountsV3(const std::uint16_t* a,
                                     const std::uint16_t* b,
                                     std::uint32_t* matches,
                                     std::uint32_t* slots) {
  const __m256i zero = _mm256_setzero_si256();
  unsigned m = 0;
  unsigned s = 0;
  for (unsigned k = 0; k < kSketchBins; k += 16) {
    const __m256i x =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + k));
    const __m256i y =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + k));
    const __m256i equal = _mm256_cmpeq_epi16(x, y);
    const __m256i x_empty = _mm256_cmpeq_epi16(x, zero);
    const __m256i both_empty = _mm256_cmpeq_epi16(_mm256_or_si256(x, y), zero);
    m += static_cast<unsigned>(__builtin_popcount(static_cast<unsigned>(
        _mm256_movemask_epi8(_mm256_andnot_si256(x_empty, equal)))));
    s += static_cast<unsigned>(__builtin_popcount(
        ~static_cast<unsigned>(_mm256_movemask_epi8(both_empty))));
  }
  *matches = m / 2;
  *slots = s / 2;
}

MW_GPU_V4 inline void SketchCountsV4(const std::uint16_t* a,
                                     const std::uint16_t* b,
                                     std::uint32_t* matches,
                                     std::uint32_t* slots) {
  unsigned m = 0;
  unsigned s = 0;
  for (unsigned k = 0; k < kSketchBins; k += 32) {
    const __m512i x = _mm512_loadu_si512(a + k);
    const __m512i y = _mm512_loadu_si512(b + k);
    const __m512i either = _mm512_or_si512(x, y);
    const __mmask32 hit =
        _mm512_cmpeq_epi16_mask(x, y) & _mm512_test_epi16_mask(x, x);
    m += static_cast<unsigned>(__builtin_popcount(hit));
    s += static_cast<unsigned>(
        __builtin_popcount(_mm512_test_epi16_mask(either, either)));
  }
  *matches = m;
  *slots = s;
}

// The row of a kind (SimHash or sketch) and the block loops over rows,
// compiled for each vector level. Query blocks are visited in the order of
// the body loops above; an AllPairs block finds its tile once.
#define MW_GPU_ROW_LOOPS(SUFFIX, ATTR)                                         \
  template <unsigned kKind>                                                    \
  ATTR void Row##SUFFIX(const SoaView& a, std::uint32_t i, const SoaView& b,   \
                        std::uint64_t j0, std::uint64_t j1,                    \
                        const PairParams& p, const SketchNeed& need,           \
                        const Output& out) {                                   \
    static_assert(kKind == kKindSimHash || kKind == kKindSketch);              \
    if constexpr (kKind == kKindSimHash) {                                     \
      SimHashRow##SUFFIX(a, i, b, j0, j1, p, out);                             \
    } else {                                                                   \
      const std::uint16_t* x =                                                 \
          a.sketch + static_cast<std::uint64_t>(i) * kSketchBins;              \
      for (std::uint64_t j = j0; j < j1; ++j) {                                \
        if (!SketchWordsComparable(a.words[i], b.words[j], p)) continue;       \
        std::uint32_t matches = 0;                                             \
        std::uint32_t slots = 0;                                               \
        SketchCounts##SUFFIX(x, b.sketch + j * kSketchBins, &matches, &slots); \
        if (matches < need.need[slots]) continue;                              \
        float score = 0;                                                       \
        if (SketchDecide(matches, slots, p, &score))                           \
          Emit(out, i, static_cast<std::uint32_t>(j), score);                  \
      }                                                                        \
    }                                                                          \
  }                                                                            \
  template <unsigned kKind>                                                    \
  ATTR void QueryRows##SUFFIX(const QueryLaunch& l, std::uint64_t b0,          \
                              std::uint64_t b1) {                              \
    for (std::uint64_t b = b0; b < b1; ++b) {                                  \
      /* Block (x, q): query q against window tile x, as QueryBody. */         \
      const std::uint64_t j0 = (b / l.grid_y) * kTile;                         \
      const std::uint64_t j1 =                                                 \
          std::min<std::uint64_t>(j0 + kTile, l.window.n);                     \
      Row##SUFFIX<kKind>(l.queries, static_cast<std::uint32_t>(b % l.grid_y),  \
                         l.window, j0, j1, l.params, l.sketch, l.out);         \
    }                                                                          \
  }                                                                            \
  template <unsigned kKind>                                                    \
  ATTR void AllPairsRows##SUFFIX(const AllPairsLaunch& l, std::uint64_t b0,    \
                                 std::uint64_t b1) {                           \
    const std::uint64_t t = TilesPerSide(l.set.n);                             \
    for (std::uint64_t b = b0; b < b1; ++b) {                                  \
      std::uint64_t ti = 0;                                                    \
      std::uint64_t tj = 0;                                                    \
      TileOf(b, t, &ti, &tj);                                                  \
      for (std::uint32_t tx = 0; tx < kTile; ++tx) {                           \
        std::uint64_t i = 0;                                                   \
        std::uint64_t j0 = 0;                                                  \
        std::uint64_t j1 = 0;                                                  \
        if (!AllPairsRow(l.set.n, ti, tj, Dim{tx, 0}, Dim{kTile, 1}, &i, &j0,  \
                         &j1))                                                 \
          break;                                                               \
        Row##SUFFIX<kKind>(l.set, static_cast<std::uint32_t>(i), l.set, j0,    \
                           j1, l.params, l.sketch, l.out);                     \
      }                                                                        \
    }                                                                          \
  }

MW_GPU_ROW_LOOPS(V3, MW_GPU_V3)
MW_GPU_ROW_LOOPS(V4, MW_GPU_V4)
#undef MW_GPU_ROW_LOOPS
#endif  // MW_GPU_HAVE_V3

// Calls fn(b0, b1) over [0, blocks) in chunks taken by `threads` threads.
template <typename Fn>
void ParallelBlocks(std::uint64_t blocks, std::uint64_t chunk, unsigned threads,
                    const Fn& fn) {
  if (blocks == 0) return;
  const std::uint64_t chunks = (blocks + chunk - 1) / chunk;
  const unsigned n =
      static_cast<unsigned>(std::min<std::uint64_t>(threads, chunks));
  std::atomic<std::uint64_t> next{0};
  const auto work = [&] {
    for (;;) {
      const std::uint64_t c = next.fetch_add(1, std::memory_order_relaxed);
      if (c >= chunks) return;
      fn(c * chunk, std::min(blocks, (c + 1) * chunk));
    }
  };
  if (n <= 1) {
    work();
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(n - 1);
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

// kKind's block loops at `isa` over `blocks` blocks in chunks of `chunk`:
// rows in vectors for SimHash and sketch, else the bodies (compiled for AVX2
// above the baseline).
#if defined(MW_GPU_HAVE_V3)
#define MW_GPU_DISPATCH(LOOPS, ROWS, LAUNCH, BLOCKS, CHUNK)                   \
  do {                                                                        \
    const auto run = [&](auto loop) {                                         \
      ParallelBlocks(                                                         \
          BLOCKS, CHUNK, threads,                                             \
          [&](std::uint64_t b0, std::uint64_t b1) { loop(LAUNCH, b0, b1); }); \
    };                                                                        \
    if constexpr (kKind != kKindCtph) {                                       \
      if (isa == Isa::kAvx512) return run(ROWS##V4<kKind>);                   \
      if (isa == Isa::kAvx2) return run(ROWS##V3<kKind>);                     \
    }                                                                         \
    if (isa != Isa::kBaseline) return run(LOOPS##V3<kKind>);                  \
    return run(LOOPS##Base<kKind>);                                           \
  } while (false)
#else
#define MW_GPU_DISPATCH(LOOPS, ROWS, LAUNCH, BLOCKS, CHUNK)  \
  do {                                                       \
    (void)isa;                                               \
    ParallelBlocks(BLOCKS, CHUNK, threads,                   \
                   [&](std::uint64_t b0, std::uint64_t b1) { \
                     LOOPS##Base<kKind>(LAUNCH, b0, b1);     \
                   });                                       \
  } while (false)
#endif

template <unsigned kKind>
void RunQuery(const QueryLaunch& l, unsigned threads, Isa isa) {
  MW_GPU_DISPATCH(QueryBlocks, QueryRows, l, l.grid_x * l.grid_y, 64);
}

template <unsigned kKind>
void RunAllPairs(const AllPairsLaunch& l, unsigned threads, Isa isa) {
  MW_GPU_DISPATCH(AllPairsBlocks, AllPairsRows, l, TriangleTiles(l.set.n), 4);
}
#undef MW_GPU_DISPATCH

// fn(std::integral_constant<unsigned, K>) for the kind code `kind`; a code
// that is neither CTPH nor SimHash runs as the sketch.
template <typename Fn>
void WithKind(unsigned kind, const Fn& fn) {
  switch (kind) {
    case kKindCtph:
      fn(std::integral_constant<unsigned, kKindCtph>{});
      break;
    case kKindSimHash:
      fn(std::integral_constant<unsigned, kKindSimHash>{});
      break;
    default:
      fn(std::integral_constant<unsigned, kKindSketch>{});
      break;
  }
}

}  // namespace

Isa BestIsa() {
#if defined(MW_GPU_HAVE_V3)
  // __builtin_cpu_supports also checks that the OS saves the vector state.
  static const Isa best = [] {
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2") ||
        !__builtin_cpu_supports("popcnt"))
      return Isa::kBaseline;
    if (__builtin_cpu_supports("avx512f") &&
        __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vpopcntdq"))
      return Isa::kAvx512;
    return Isa::kAvx2;
  }();
  return best;
#else
  return Isa::kBaseline;
#endif
}

unsigned ResolveThreads(unsigned threads) {
  if (threads != 0) return threads;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

unsigned long long RunQueryGrid(unsigned kind, const SoaView& queries,
                                const SoaView& window, const PairParams& p,
                                const Output& out, unsigned threads, Isa isa) {
  assert(isa <= BestIsa());
  const QueryLaunch l{queries,
                      window,
                      p,
                      out,
                      TilesPerSide(window.n),
                      queries.n,
                      kind == kKindSketch ? SketchNeed(p) : SketchNeed()};
  threads = ResolveThreads(threads);
  WithKind(kind,
           [&](auto k) { RunQuery<decltype(k)::value>(l, threads, isa); });
  return *out.count;
}

unsigned long long RunAllPairsGrid(unsigned kind, const SoaView& set,
                                   const PairParams& p, const Output& out,
                                   unsigned threads, Isa isa) {
  assert(isa <= BestIsa());
  const AllPairsLaunch l{set, p, out,
                         kind == kKindSketch ? SketchNeed(p) : SketchNeed()};
  threads = ResolveThreads(threads);
  WithKind(kind,
           [&](auto k) { RunAllPairs<decltype(k)::value>(l, threads, isa); });
  return *out.count;
}

namespace {

template <typename Run>
std::vector<PairMatch> Collect(unsigned long long capacity, const Run& run) {
  std::vector<PairMatch> buf(capacity);
  for (;;) {
    unsigned long long count = 0;
    const Output out{buf.data(), buf.size(), &count};
    run(out);
    if (count <= buf.size()) {
      buf.resize(count);
      return buf;
    }
    // Overflow: the count is exact, so one more run fits.
    buf.assign(count, PairMatch{});
  }
}

}  // namespace

std::vector<PairMatch> CollectQuery(unsigned kind, const SoaView& queries,
                                    const SoaView& window, const PairParams& p,
                                    unsigned threads,
                                    unsigned long long capacity, Isa isa) {
  return Collect(capacity, [&](const Output& out) {
    RunQueryGrid(kind, queries, window, p, out, threads, isa);
  });
}

std::vector<PairMatch> CollectAllPairs(unsigned kind, const SoaView& set,
                                       const PairParams& p, unsigned threads,
                                       unsigned long long capacity, Isa isa) {
  return Collect(capacity, [&](const Output& out) {
    RunAllPairsGrid(kind, set, p, out, threads, isa);
  });
}

}  // namespace mw::gpu::internal
