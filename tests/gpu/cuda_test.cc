// GPU parity (STYLE.md section 8): the CUDA engine gives the CPU engine's
// answers on the same batches, for every kind and both modes, at the edge
// sizes of the grids (0, 1, a tile of 64 and one either side), past the
// match buffer's first capacity (the overflow re-run), on real mail and on a
// million-signature window, and through the worker's micro-batches. Skipped,
// saying so, where the build has no CUDA backend or the machine no usable
// device.
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "gpu/engine.h"
#include "gpu/synthetic.h"
#include "gpu/worker.h"
#include "tests/gpu/real_signatures.h"

namespace mw::gpu {
namespace {

std::unique_ptr<Engine> CudaOrSkipReason(std::string* reason) {
  auto e = MakeEngine(Backend::kCuda);
  if (!e) {
    *reason = e.error().message();
    return nullptr;
  }
  return std::move(*e);
}

#define MW_REQUIRE_CUDA(engine)                                       \
  std::string reason;                                                 \
  std::unique_ptr<Engine> engine = CudaOrSkipReason(&reason);         \
  if (!engine) {                                                      \
    GTEST_SKIP() << "no CUDA device, GPU parity not run: " << reason; \
  }

constexpr Kind kKinds[] = {Kind::kCtph, Kind::kSimHash, Kind::kSketch};

TEST(Cuda, UnavailableIsAnErrorNotACrash) {
  auto e = MakeEngine(Backend::kCuda);
  if (e) {
    EXPECT_EQ((*e)->Name(), "cuda");
    return;
  }
  EXPECT_EQ(e.error().code(), Error::Code::kUnavailable);
  EXPECT_FALSE(e.error().message().empty());
}

TEST(Cuda, AllPairsSameAsCpu) {
  MW_REQUIRE_CUDA(cuda);
  auto cpu = MakeEngine(Backend::kCpu);
  ASSERT_TRUE(cpu.has_value());
  SyntheticOptions o;
  o.near_share = 0.3;
  const std::vector<Signature> set = SyntheticSignatures(3001, 21, o);
  Thresholds t;
  t.ctph_edit_rate = 0.2;
  t.simhash_distance = 4;
  for (Kind kind : kKinds) {
    auto want = (*cpu)->AllPairs(set, kind, t);
    auto got = cuda->AllPairs(set, kind, t);
    ASSERT_TRUE(want.has_value());
    ASSERT_TRUE(got.has_value()) << got.error().message();
    EXPECT_EQ(*got, *want) << static_cast<int>(kind);
  }
}

TEST(Cuda, WindowSameAsCpuThroughAddRemoveAndGrowth) {
  MW_REQUIRE_CUDA(cuda);
  auto cpu_r = MakeEngine(Backend::kCpu);
  ASSERT_TRUE(cpu_r.has_value());
  Engine& cpu = **cpu_r;
  SyntheticOptions o;
  o.near_share = 0.3;
  const std::vector<Signature> sigs = SyntheticSignatures(5000, 22, o);
  const std::vector<Signature> queries(sigs.end() - 100, sigs.end());
  Thresholds t;
  t.ctph_edit_rate = 0.2;
  t.simhash_distance = 4;
  for (std::size_t k = 0; k < sigs.size(); ++k) {
    ASSERT_TRUE(cuda->Add(k * 3, sigs[k]));
    ASSERT_TRUE(cpu.Add(k * 3, sigs[k]));
    // Queries between changes: the device copy follows the host one.
    if (k % 1500 == 1499) {
      for (Kind kind : kKinds) {
        auto want = cpu.Query(queries, kind, t);
        auto got = cuda->Query(queries, kind, t);
        ASSERT_TRUE(got.has_value()) << got.error().message();
        EXPECT_EQ(*got, *want);
      }
    }
    if (k % 7 == 0) {
      ASSERT_TRUE(cuda->Remove(k * 3 / 2));
      ASSERT_TRUE(cpu.Remove(k * 3 / 2));
    }
  }
  EXPECT_EQ(cuda->WindowSize(), cpu.WindowSize());
  for (Kind kind : kKinds) {
    auto want = cpu.Query(queries, kind, t);
    auto got = cuda->Query(queries, kind, t);
    ASSERT_TRUE(got.has_value()) << got.error().message();
    EXPECT_EQ(*got, *want);
  }
}

std::unique_ptr<Engine> Cpu() { return std::move(*MakeEngine(Backend::kCpu)); }

std::vector<Signature> Near(std::size_t n, std::uint64_t seed) {
  SyntheticOptions o;
  o.near_share = 0.3;
  return SyntheticSignatures(n, seed, o);
}

// Thresholds loose enough that every kind matches at these sizes.
Thresholds Loose() {
  Thresholds t;
  t.ctph_edit_rate = 0.2;
  t.simhash_distance = 4;
  return t;
}

TEST(Cuda, AllPairsAtEdgeSizes) {
  MW_REQUIRE_CUDA(cuda);
  auto cpu = Cpu();
  const std::vector<Signature> pool = Near(4097, 31);
  for (std::size_t n : {0, 1, 2, 63, 64, 65, 127, 128, 129, 4095, 4096, 4097}) {
    const std::span<const Signature> set(pool.data(), n);
    for (Kind kind : kKinds) {
      auto want = cpu->AllPairs(set, kind, Loose());
      auto got = cuda->AllPairs(set, kind, Loose());
      ASSERT_TRUE(want.has_value());
      ASSERT_TRUE(got.has_value()) << got.error().message();
      EXPECT_EQ(*got, *want) << "n " << n << " kind " << int(kind);
    }
  }
}

TEST(Cuda, WindowAtEdgeSizes) {
  MW_REQUIRE_CUDA(probe);
  const std::vector<Signature> pool = Near(1100, 32);
  for (std::size_t n : {0, 1, 63, 64, 65, 1000}) {
    auto cuda_r = MakeEngine(Backend::kCuda);
    ASSERT_TRUE(cuda_r.has_value());
    Engine& cuda = **cuda_r;
    auto cpu = Cpu();
    for (std::size_t k = 0; k < n; ++k) {
      ASSERT_TRUE(cuda.Add(1000 + k, pool[k]));
      ASSERT_TRUE(cpu->Add(1000 + k, pool[k]));
    }
    for (std::size_t q : {0, 1, 63, 64, 65}) {
      // Queries from the end of the pool: near copies of window slots.
      const std::span<const Signature> queries(pool.data() + pool.size() - q,
                                               q);
      for (Kind kind : kKinds) {
        auto want = cpu->Query(queries, kind, Loose());
        auto got = cuda.Query(queries, kind, Loose());
        ASSERT_TRUE(want.has_value());
        ASSERT_TRUE(got.has_value()) << got.error().message();
        EXPECT_EQ(*got, *want)
            << "window " << n << " queries " << q << " kind " << int(kind);
      }
    }
  }
}

// More matches than the device's first output buffer holds (65,536): the
// counter's overflow makes the engine grow the buffer and run again.
TEST(Cuda, OverflowOfTheMatchBufferIsRerun) {
  MW_REQUIRE_CUDA(cuda);
  auto cpu = Cpu();
  const std::vector<Signature> one = Near(1, 33);
  const std::vector<Signature> same(700, one[0]);  // 244,650 pairs
  for (Kind kind : {Kind::kCtph, Kind::kSimHash}) {
    auto want = cpu->AllPairs(same, kind, Loose());
    auto got = cuda->AllPairs(same, kind, Loose());
    ASSERT_TRUE(want.has_value());
    ASSERT_TRUE(got.has_value()) << got.error().message();
    EXPECT_EQ(want->size(), 700u * 699 / 2);
    EXPECT_EQ(*got, *want);
  }
  for (std::uint64_t k = 0; k < 70000; ++k) {
    ASSERT_TRUE(cuda->Add(k, one[0]));
    ASSERT_TRUE(cpu->Add(k, one[0]));
  }
  auto want = cpu->Query(one, Kind::kSimHash, Loose());
  auto got = cuda->Query(one, Kind::kSimHash, Loose());
  ASSERT_TRUE(want.has_value());
  ASSERT_TRUE(got.has_value()) << got.error().message();
  EXPECT_EQ(want->size(), 70000u);
  EXPECT_EQ(*got, *want);
}

// Real signatures: the mail fixtures and (where present) the dev corpus, at
// the default thresholds and at looser and stricter ones.
TEST(Cuda, RealMailSameAsCpu) {
  MW_REQUIRE_CUDA(cuda);
  auto cpu = Cpu();
  std::vector<Signature> set;
  for (const auto& dir : {testing::FixtureDir(), testing::CorpusDir()}) {
    for (const auto& fp : testing::FingerprintsUnder(dir, 5000))
      set.push_back(ToSignature(fp));
  }
  ASSERT_GT(set.size(), 10u);
  std::cout << "real signatures: " << set.size() << '\n';
  for (double rate : {0.1, 0.15, 0.45}) {
    Thresholds t;
    t.ctph_edit_rate = rate;
    t.simhash_distance = static_cast<std::uint32_t>(rate * 40);
    t.sketch_jaccard = 1 - rate * 2;
    for (Kind kind : kKinds) {
      auto want = cpu->AllPairs(set, kind, t);
      auto got = cuda->AllPairs(set, kind, t);
      ASSERT_TRUE(want.has_value());
      ASSERT_TRUE(got.has_value()) << got.error().message();
      EXPECT_EQ(*got, *want) << "rate " << rate << " kind " << int(kind);
      for (std::size_t k = 0; k < set.size(); ++k) {
        ASSERT_TRUE(cuda->Add(k, set[k]));
        ASSERT_TRUE(cpu->Add(k, set[k]));
      }
      const std::span<const Signature> queries(
          set.data(), std::min<std::size_t>(set.size(), 64));
      auto want_w = cpu->Query(queries, kind, t);
      auto got_w = cuda->Query(queries, kind, t);
      ASSERT_TRUE(want_w.has_value());
      ASSERT_TRUE(got_w.has_value()) << got_w.error().message();
      EXPECT_EQ(*got_w, *want_w) << "rate " << rate << " kind " << int(kind);
      for (std::size_t k = 0; k < set.size(); ++k) {
        ASSERT_TRUE(cuda->Remove(k));
        ASSERT_TRUE(cpu->Remove(k));
      }
    }
  }
}

// The bench's sizes: all-pairs of 20,000 and one batch of 64 against a
// window of a million, every kind, default thresholds.
TEST(Cuda, BenchSizesSameAsCpu) {
  MW_REQUIRE_CUDA(cuda);
  auto cpu = Cpu();
  const Thresholds t;
  {
    const std::vector<Signature> set = SyntheticSignatures(20000, 1);
    for (Kind kind : kKinds) {
      auto want = cpu->AllPairs(set, kind, t);
      auto got = cuda->AllPairs(set, kind, t);
      ASSERT_TRUE(want.has_value());
      ASSERT_TRUE(got.has_value()) << got.error().message();
      EXPECT_GT(want->size(), 0u);
      EXPECT_EQ(*got, *want) << int(kind);
    }
  }
  const std::vector<Signature> all = SyntheticSignatures(1000064, 2);
  for (std::size_t k = 0; k < 1000000; ++k) {
    ASSERT_TRUE(cuda->Add(k, all[k]));
    ASSERT_TRUE(cpu->Add(k, all[k]));
  }
  const std::span<const Signature> queries(all.data() + 1000000, 64);
  for (Kind kind : kKinds) {
    auto want = cpu->Query(queries, kind, t);
    auto got = cuda->Query(queries, kind, t);
    ASSERT_TRUE(want.has_value());
    ASSERT_TRUE(got.has_value()) << got.error().message();
    EXPECT_EQ(*got, *want) << int(kind);
  }
}

// The worker on the device: many threads submitting at once (so batches of
// several queries form), window changes in between; every answer is the CPU
// engine's for the same window.
TEST(Cuda, WorkerBatchesGiveTheCpuAnswers) {
  MW_REQUIRE_CUDA(probe);
  auto worker_r = Worker::Start(Backend::kCuda, 0, WorkerOptions{});
  ASSERT_TRUE(worker_r.has_value()) << worker_r.error().message();
  Worker& worker = **worker_r;
  ASSERT_EQ(worker.backend(), "cuda");
  auto cpu = Cpu();
  const std::vector<Signature> sigs = Near(20000, 34);
  std::vector<std::future<Result<void>>> adds;
  for (std::size_t k = 0; k < 19000; ++k) {
    adds.push_back(worker.Add(k, sigs[k]));
    ASSERT_TRUE(cpu->Add(k, sigs[k]));
  }
  for (auto& f : adds) ASSERT_TRUE(f.get());
  const Thresholds t = Loose();
  constexpr int kThreads = 8;
  constexpr std::size_t kPerThread = 125;
  std::vector<std::vector<Engine::WindowMatch>> got(kThreads * kPerThread);
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      for (std::size_t q = 0; q < kPerThread; ++q) {
        const std::size_t k = th * kPerThread + q;
        const Kind kind = kKinds[k % 3];
        auto r = worker.Submit(sigs[19000 + k], kind, t).get();
        if (r) got[k] = std::move(*r);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LT(worker.batches(), kThreads * kPerThread);
  for (std::size_t k = 0; k < got.size(); ++k) {
    const Signature& q = sigs[19000 + k];
    auto want = cpu->Query(std::span<const Signature>(&q, 1), kKinds[k % 3], t);
    ASSERT_TRUE(want.has_value());
    EXPECT_EQ(got[k], *want) << k;
  }
  std::cout << "worker: " << got.size() << " queries in " << worker.batches()
            << " batches\n";
}

// The window's CTPH search runs a kernel of its own (the query's Myers table
// in shared memory): every rate from strict to 1.0 (where every comparable
// pair matches, so every distance is compared), on synthetic signatures and
// on short ones over four letters (repeated symbols, lengths 1 to 64, the
// pattern's top bit at every position).
TEST(Cuda, WindowCtphAtEveryRate) {
  MW_REQUIRE_CUDA(cuda);
  auto cpu = Cpu();
  std::vector<Signature> sigs = Near(3000, 35);
  std::uint64_t x = 88172645463325252ull;
  const auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  for (unsigned k = 0; k < 600; ++k) {
    Signature s;
    s.ctph_block = 3u << 6;
    s.ctph_len = static_cast<std::uint8_t>(1 + k % 64);
    s.ctph2_len = static_cast<std::uint8_t>(next() % 33);
    for (unsigned i = 0; i < s.ctph_len; ++i)
      s.ctph[i] = static_cast<std::uint8_t>('A' + next() % 4);
    for (unsigned i = 0; i < s.ctph2_len; ++i)
      s.ctph2[i] = static_cast<std::uint8_t>('A' + next() % 4);
    sigs.push_back(s);
  }
  for (std::size_t k = 0; k < sigs.size(); ++k) {
    ASSERT_TRUE(cuda->Add(k, sigs[k]));
    ASSERT_TRUE(cpu->Add(k, sigs[k]));
  }
  std::vector<Signature> queries(sigs.end() - 300, sigs.end());
  queries.insert(queries.end(), sigs.begin() + 2900, sigs.begin() + 3000);
  for (double rate : {0.05, 0.15, 0.3, 0.45, 0.7, 1.0}) {
    Thresholds t;
    t.ctph_edit_rate = rate;
    auto want = cpu->Query(queries, Kind::kCtph, t);
    auto got = cuda->Query(queries, Kind::kCtph, t);
    ASSERT_TRUE(want.has_value());
    ASSERT_TRUE(got.has_value()) << got.error().message();
    EXPECT_GT(want->size(), 0u);
    EXPECT_EQ(*got, *want) << "rate " << rate;
  }
}

}  // namespace
}  // namespace mw::gpu
