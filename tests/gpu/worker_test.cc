// The worker (worker.h) with real threads: batching by size and by deadline,
// ordering of window changes before queries, shutdown, and the fall-back to
// the CPU when the engine fails at run time.
#include "gpu/worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gpu/synthetic.h"

namespace mw::gpu {
namespace {

using namespace std::chrono_literals;

std::vector<Signature> Sigs(std::size_t n, std::uint64_t seed) {
  SyntheticOptions o;
  o.near_share = 0.3;
  return SyntheticSignatures(n, seed, o);
}

std::unique_ptr<Engine> Cpu() {
  return std::move(*MakeEngine(Backend::kCpu, 1));
}

// A "device" engine that works until told to fail, as a lost GPU does:
// every call after that returns kUnavailable.
class FlakyEngine final : public Engine {
 public:
  explicit FlakyEngine(std::atomic<bool>* broken)
      : inner_(Cpu()), broken_(broken) {}
  std::string_view Name() const override { return "cuda"; }
  Result<void> Add(std::uint64_t id, const Signature& s) override {
    if (*broken_) return Fail(Error::Unavailable("device lost"));
    return inner_->Add(id, s);
  }
  Result<void> Remove(std::uint64_t id) override {
    if (*broken_) return Fail(Error::Unavailable("device lost"));
    return inner_->Remove(id);
  }
  std::size_t WindowSize() const override { return inner_->WindowSize(); }
  Result<std::vector<WindowMatch>> Query(std::span<const Signature> q, Kind k,
                                         const Thresholds& t) override {
    if (*broken_) return Fail(Error::Unavailable("device lost"));
    return inner_->Query(q, k, t);
  }
  Result<std::vector<Match>> AllPairs(std::span<const Signature> s, Kind k,
                                      const Thresholds& t) override {
    if (*broken_) return Fail(Error::Unavailable("device lost"));
    return inner_->AllPairs(s, k, t);
  }

 private:
  std::unique_ptr<Engine> inner_;
  std::atomic<bool>* broken_;
};

// What a single engine says for query q against the same window.
std::vector<Engine::WindowMatch> Direct(Engine& e, const Signature& q,
                                        Kind kind) {
  auto r = e.Query(std::span<const Signature>(&q, 1), kind, Thresholds{});
  EXPECT_TRUE(r.has_value());
  return *r;
}

TEST(Worker, ManyThreadsGetTheirOwnAnswersInFewBatches) {
  const std::vector<Signature> sigs = Sigs(2000, 31);
  WorkerOptions o;
  o.batch_size = 64;
  o.deadline = 50ms;  // long, so batches fill by size under this load
  Worker w(Cpu(), 1, o);
  auto reference = Cpu();
  for (std::size_t k = 0; k < 1000; ++k) {
    ASSERT_TRUE(w.Add(k, sigs[k]).get());
    ASSERT_TRUE(reference->Add(k, sigs[k]));
  }
  constexpr int kThreads = 8;
  constexpr int kPerThread = 64;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::future<Result<std::vector<Engine::WindowMatch>>>> fs;
      std::vector<std::size_t> which;
      for (int k = 0; k < kPerThread; ++k) {
        const std::size_t q =
            1000 + static_cast<std::size_t>(t * kPerThread + k) % 1000;
        which.push_back(q);
        fs.push_back(w.Submit(sigs[q], Kind::kSimHash, Thresholds{}));
      }
      for (std::size_t k = 0; k < fs.size(); ++k) {
        auto r = fs[k].get();
        if (!r || *r != Direct(*reference, sigs[which[k]], Kind::kSimHash))
          ++wrong;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  // 512 queries in batches of up to 64: far fewer calls than queries.
  EXPECT_LE(w.batches(), 40u);
  EXPECT_GE(w.batches(), 8u);
}

TEST(Worker, ALoneQueryRunsAtTheDeadline) {
  WorkerOptions o;
  o.batch_size = 64;
  o.deadline = 2ms;
  Worker w(Cpu(), 1, o);
  const std::vector<Signature> sigs = Sigs(10, 32);
  ASSERT_TRUE(w.Add(7, sigs[0]).get());
  auto f = w.Submit(sigs[0], Kind::kCtph, Thresholds{});
  // Far below any budget but well above the deadline.
  ASSERT_EQ(f.wait_for(2s), std::future_status::ready);
  auto r = f.get();
  ASSERT_TRUE(r.has_value());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].id, 7u);
  EXPECT_EQ((*r)[0].score, 0.0f);
}

// An engine that takes `delay` per call: queries pile up while it works.
class SlowEngine final : public Engine {
 public:
  explicit SlowEngine(std::chrono::milliseconds delay)
      : inner_(Cpu()), delay_(delay) {}
  std::string_view Name() const override { return "cpu"; }
  Result<void> Add(std::uint64_t id, const Signature& s) override {
    return inner_->Add(id, s);
  }
  Result<void> Remove(std::uint64_t id) override { return inner_->Remove(id); }
  std::size_t WindowSize() const override { return inner_->WindowSize(); }
  Result<std::vector<WindowMatch>> Query(std::span<const Signature> q, Kind k,
                                         const Thresholds& t) override {
    std::this_thread::sleep_for(delay_);
    return inner_->Query(q, k, t);
  }
  Result<std::vector<Match>> AllPairs(std::span<const Signature> s, Kind k,
                                      const Thresholds& t) override {
    return inner_->AllPairs(s, k, t);
  }

 private:
  std::unique_ptr<Engine> inner_;
  std::chrono::milliseconds delay_;
};

// Without a deadline a lone query runs at once, and the queries that arrive
// while the engine is busy go together in the next batch.
TEST(Worker, WithoutADeadlineBatchesWhatArrivesWhileBusy) {
  WorkerOptions o;
  o.batch_size = 64;
  o.deadline = 0ms;
  Worker w(std::make_unique<SlowEngine>(20ms), 1, o);
  const std::vector<Signature> sigs = Sigs(40, 33);
  for (std::size_t k = 0; k < 20; ++k) ASSERT_TRUE(w.Add(k, sigs[k]).get());
  // Alone: one batch, answered after one engine call.
  const auto t0 = std::chrono::steady_clock::now();
  auto first = w.Submit(sigs[0], Kind::kSimHash, Thresholds{});
  ASSERT_EQ(first.wait_for(5s), std::future_status::ready);
  ASSERT_TRUE(first.get().has_value());
  EXPECT_EQ(w.batches(), 1u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  // Thirty more at once: the first may run alone, the rest wait for it and
  // then go together.
  std::vector<std::future<Result<std::vector<Engine::WindowMatch>>>> fs;
  for (std::size_t k = 0; k < 30; ++k) {
    fs.push_back(w.Submit(sigs[k], Kind::kSimHash, Thresholds{}));
  }
  for (auto& f : fs) {
    ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
    ASSERT_TRUE(f.get().has_value());
  }
  EXPECT_LE(w.batches(), 1u + 4u);  // 30 alone would be 31
}

TEST(Worker, AnAddBeforeAQueryIsVisibleToIt) {
  Worker w(Cpu(), 1, WorkerOptions{});
  const std::vector<Signature> sigs = Sigs(200, 33);
  for (std::uint64_t k = 0; k < 200; ++k) {
    // No wait on the Add's future: the order of submission is enough.
    (void)w.Add(k, sigs[k]);
    auto r = w.Submit(sigs[k], Kind::kSketch, Thresholds{}).get();
    ASSERT_TRUE(r.has_value());
    bool found = false;
    for (const auto& m : *r) found = found || m.id == k;
    ASSERT_TRUE(found) << k;
    (void)w.Remove(k);
    auto gone = w.Submit(sigs[k], Kind::kSketch, Thresholds{}).get();
    ASSERT_TRUE(gone.has_value());
    for (const auto& m : *gone) ASSERT_NE(m.id, k);
  }
}

TEST(Worker, MixedKindsInOneBatchAreAnsweredEachByItsKind) {
  WorkerOptions o;
  o.deadline = 20ms;
  Worker w(Cpu(), 1, o);
  auto reference = Cpu();
  const std::vector<Signature> sigs = Sigs(600, 34);
  for (std::size_t k = 0; k < 500; ++k) {
    (void)w.Add(k, sigs[k]);
    ASSERT_TRUE(reference->Add(k, sigs[k]));
  }
  std::vector<std::future<Result<std::vector<Engine::WindowMatch>>>> fs;
  const Kind kinds[] = {Kind::kCtph, Kind::kSimHash, Kind::kSketch};
  for (std::size_t q = 500; q < 560; ++q)
    fs.push_back(w.Submit(sigs[q], kinds[q % 3], Thresholds{}));
  for (std::size_t q = 500; q < 560; ++q) {
    auto r = fs[q - 500].get();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(*r, Direct(*reference, sigs[q], kinds[q % 3]));
  }
}

TEST(Worker, FallsBackToTheCpuWhenTheDeviceIsLost) {
  std::atomic<bool> broken{false};
  std::mutex mu;
  std::vector<std::string> logged;
  WorkerOptions o;
  o.log = [&](std::string_view line) {
    const std::lock_guard<std::mutex> lock(mu);
    logged.emplace_back(line);
  };
  Worker w(std::make_unique<FlakyEngine>(&broken), 1, o);
  auto reference = Cpu();
  const std::vector<Signature> sigs = Sigs(400, 35);
  for (std::size_t k = 0; k < 300; ++k) {
    ASSERT_TRUE(w.Add(k, sigs[k]).get());
    ASSERT_TRUE(reference->Add(k, sigs[k]));
  }
  ASSERT_TRUE(w.Remove(5).get());
  ASSERT_TRUE(reference->Remove(5));
  EXPECT_EQ(w.backend(), "cuda");
  broken = true;
  for (std::size_t q = 300; q < 340; ++q) {
    auto r = w.Submit(sigs[q], Kind::kSimHash, Thresholds{}).get();
    ASSERT_TRUE(r.has_value()) << r.error().message();
    EXPECT_EQ(*r, Direct(*reference, sigs[q], Kind::kSimHash));
  }
  EXPECT_EQ(w.backend(), "cpu");
  // Changes keep working on the CPU engine.
  ASSERT_TRUE(w.Add(1000, sigs[399]).get());
  auto r = w.Submit(sigs[399], Kind::kSimHash, Thresholds{}).get();
  ASSERT_TRUE(r.has_value());
  bool found = false;
  for (const auto& m : *r) found = found || m.id == 1000;
  EXPECT_TRUE(found);
  const std::lock_guard<std::mutex> lock(mu);
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_NE(logged[0].find("device lost"), std::string::npos);
}

TEST(Worker, StoppingFailsQueriesNotYetRun) {
  std::vector<std::future<Result<std::vector<Engine::WindowMatch>>>> fs;
  {
    WorkerOptions o;
    o.batch_size = 1000;
    o.deadline = std::chrono::hours(1);  // never reached
    Worker w(Cpu(), 1, o);
    const std::vector<Signature> sigs = Sigs(10, 36);
    for (const Signature& s : sigs)
      fs.push_back(w.Submit(s, Kind::kSimHash, Thresholds{}));
    // A caller with a budget does not block on them.
    EXPECT_EQ(fs[0].wait_for(5ms), std::future_status::timeout);
  }
  for (auto& f : fs) {
    ASSERT_EQ(f.wait_for(0s), std::future_status::ready);
    auto r = f.get();
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code(), Error::Code::kUnavailable);
  }
}

TEST(Worker, StartWithAutoRunsSomewhere) {
  std::vector<std::string> logged;
  WorkerOptions o;
  o.log = [&](std::string_view line) { logged.emplace_back(line); };
  auto w = Worker::Start(Backend::kAuto, 1, o);
  ASSERT_TRUE(w.has_value());
  if ((*w)->backend() == "cpu") {
    ASSERT_EQ(logged.size(), 1u);  // why auto did not get the GPU
  }
}

}  // namespace
}  // namespace mw::gpu
