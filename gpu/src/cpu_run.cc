#include "cpu_run.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>

namespace mw::gpu::internal {
namespace {

struct QueryLaunch {
  SoaView queries;
  SoaView window;
  PairParams params;
  Output out;
  std::uint64_t grid_x;  // window tiles
  std::uint64_t grid_y;  // queries
};

struct AllPairsLaunch {
  SoaView set;
  PairParams params;
  Output out;
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
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MW_GPU_HAVE_V3 1
MW_GPU_BLOCK_LOOPS(V3, __attribute__((target("avx2,bmi,bmi2,popcnt,lzcnt"))))
#endif
#undef MW_GPU_BLOCK_LOOPS

bool HaveV3() {
#if defined(MW_GPU_HAVE_V3)
  static const bool have = __builtin_cpu_supports("avx2") &&
                           __builtin_cpu_supports("bmi2") &&
                           __builtin_cpu_supports("popcnt");
  return have;
#else
  return false;
#endif
}

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

template <unsigned kKind>
void RunQuery(const QueryLaunch& l, unsigned threads) {
  const std::uint64_t blocks = l.grid_x * l.grid_y;
  if (HaveV3()) {
#if defined(MW_GPU_HAVE_V3)
    ParallelBlocks(blocks, 64, threads,
                   [&](std::uint64_t b0, std::uint64_t b1) {
                     QueryBlocksV3<kKind>(l, b0, b1);
                   });
    return;
#endif
  }
  ParallelBlocks(blocks, 64, threads, [&](std::uint64_t b0, std::uint64_t b1) {
    QueryBlocksBase<kKind>(l, b0, b1);
  });
}

template <unsigned kKind>
void RunAllPairs(const AllPairsLaunch& l, unsigned threads) {
  const std::uint64_t blocks = TriangleTiles(l.set.n);
  if (HaveV3()) {
#if defined(MW_GPU_HAVE_V3)
    ParallelBlocks(blocks, 4, threads, [&](std::uint64_t b0, std::uint64_t b1) {
      AllPairsBlocksV3<kKind>(l, b0, b1);
    });
    return;
#endif
  }
  ParallelBlocks(blocks, 4, threads, [&](std::uint64_t b0, std::uint64_t b1) {
    AllPairsBlocksBase<kKind>(l, b0, b1);
  });
}

}  // namespace

unsigned ResolveThreads(unsigned threads) {
  if (threads != 0) return threads;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

unsigned long long RunQueryGrid(unsigned kind, const SoaView& queries,
                                const SoaView& window, const PairParams& p,
                                const Output& out, unsigned threads) {
  const QueryLaunch l{queries,  window, p, out, TilesPerSide(window.n),
                      queries.n};
  threads = ResolveThreads(threads);
  switch (kind) {
    case kKindCtph:
      RunQuery<kKindCtph>(l, threads);
      break;
    case kKindSimHash:
      RunQuery<kKindSimHash>(l, threads);
      break;
    default:
      RunQuery<kKindSketch>(l, threads);
      break;
  }
  return *out.count;
}

unsigned long long RunAllPairsGrid(unsigned kind, const SoaView& set,
                                   const PairParams& p, const Output& out,
                                   unsigned threads) {
  const AllPairsLaunch l{set, p, out};
  threads = ResolveThreads(threads);
  switch (kind) {
    case kKindCtph:
      RunAllPairs<kKindCtph>(l, threads);
      break;
    case kKindSimHash:
      RunAllPairs<kKindSimHash>(l, threads);
      break;
    default:
      RunAllPairs<kKindSketch>(l, threads);
      break;
  }
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
                                    unsigned long long capacity) {
  return Collect(capacity, [&](const Output& out) {
    RunQueryGrid(kind, queries, window, p, out, threads);
  });
}

std::vector<PairMatch> CollectAllPairs(unsigned kind, const SoaView& set,
                                       const PairParams& p, unsigned threads,
                                       unsigned long long capacity) {
  return Collect(capacity, [&](const Output& out) {
    RunAllPairsGrid(kind, set, p, out, threads);
  });
}

}  // namespace mw::gpu::internal
