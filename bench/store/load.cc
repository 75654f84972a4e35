#include "bench/store/load.h"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "bench/store/synth.h"
#include "pipeline/options.h"
#include "pipeline/store_open.h"
#include "pipeline/verdict.h"
#include "store/redis.h"

namespace mw::bench {

namespace fp = mw::fingerprint;

namespace {

const Clock::time_point kProgramStart = Clock::now();

// Lookups repeated after a Join::seen conflict, as pipeline::CheckAnalysis's
// kMaxStoreRaces (private to pipeline/src/check.cc).
constexpr int kMaxStoreRaces = 2;

float Us(Clock::duration d) {
  return std::chrono::duration<float, std::micro>(d).count();
}

// The first error that any thread met; the others see failed() and stop.
class FirstError {
 public:
  void Set(Error e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error_) error_ = std::move(e);
    failed_ = true;
  }
  bool failed() const { return failed_.load(); }
  std::optional<Error> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::move(error_);
  }

 private:
  std::mutex mu_;
  std::optional<Error> error_;
  std::atomic<bool> failed_{false};
};

Result<std::vector<std::unique_ptr<store::Store>>> OpenHandles(
    const Backend& backend, int n) {
  std::vector<std::unique_ptr<store::Store>> handles;
  for (int i = 0; i < n; ++i) {
    auto h = Open(backend);
    if (!h) return Fail(h.error());
    handles.push_back(std::move(*h));
  }
  return handles;
}

}  // namespace

Result<std::unique_ptr<store::Store>> Open(const Backend& backend) {
  pipeline::StoreOpenOptions so;
  so.log = [name = backend.name](std::string_view line) {
    std::fprintf(stderr, "[%8.3f s] %s store: %.*s\n",
                 Seconds(Clock::now() - kProgramStart), name.c_str(),
                 static_cast<int>(line.size()), line.data());
  };
  if (backend.index_split_entries > 0 &&
      backend.settings.store.backend == "redis") {
    store::RedisOptions ro = pipeline::RedisOptions(backend.settings);
    ro.index_split_entries = backend.index_split_entries;
    ro.prune_on_record = so.prune;
    ro.log = so.log;
    return store::OpenRedis(ro);
  }
  return pipeline::OpenStore(backend.settings, so);
}

Result<FillResult> Fill(const Backend& backend,
                        const std::vector<fp::Fingerprint>& corpus,
                        const FillOptions& options, std::uint64_t serial0) {
  auto handles = OpenHandles(backend, options.clients);
  if (!handles) return Fail(handles.error());
  const fp::Options fo =
      pipeline::FingerprintOptions(backend.settings.fingerprint);
  const store::WaveRule rule = pipeline::WaveRule(backend.settings.wave);
  const std::size_t bases = corpus.size();
  const auto clients = static_cast<std::size_t>(options.clients);
  FirstError error;
  std::atomic<std::uint64_t> done{0};
  std::atomic<std::uint64_t> retries{0};
  const auto start = Clock::now();
  auto fill = [&](std::size_t t) {
    store::Store& db = *(*handles)[t];
    std::mt19937_64 rng(20261124 + t);
    // The cluster each base's first copy started (0: none yet).
    std::vector<store::ClusterId> cluster(bases, 0);
    for (std::uint64_t i = 0; i < options.messages && !error.failed(); ++i) {
      const std::size_t b = i % bases;
      if (b % clients != t) continue;
      const fp::Fingerprint f =
          options.distinct ? corpus[b] : Variant(corpus[b], rng);
      const store::Message m = BenchMessage(
          f,
          options.first_arrival +
              static_cast<store::UnixMillis>(i) * options.spacing.count(),
          serial0 + i, options.own_senders);
      store::Join join;
      if (options.full_path) {
        auto lookup = db.Find(m);
        if (!lookup) {
          error.Set(lookup.error());
          return;
        }
        // One writer per wave: no Join::seen check is needed.
        if (auto match = pipeline::Decide(f, *lookup, fo))
          join.cluster = match->cluster;
      } else if (cluster[b] != 0) {
        join.cluster = cluster[b];
      }
      // Several writers on one SQLite file can outwait its busy timeout, and
      // a Redis call can outlast its command timeout (an append-only file
      // rewrite); the fill is not what is measured, so such a write is
      // retried and counted (a Redis call that timed out may have been
      // stored: the retry then stores the message twice).
      Result<store::Recorded> rec = db.Record(m, join, rule);
      for (int retry = 0; !rec && retry < 50 &&
                          rec.error().code() == Error::Code::kUnavailable;
           ++retry) {
        retries.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        rec = db.Record(m, join, rule);
      }
      if (!rec) {
        error.Set(rec.error());
        return;
      }
      cluster[b] = rec->cluster.id;
      const std::uint64_t n = done.fetch_add(1) + 1;
      if (n % 100'000 == 0) {
        std::fprintf(stderr, "%s: filled %llu (%.0f s)\n", backend.name.c_str(),
                     static_cast<unsigned long long>(n),
                     Seconds(Clock::now() - start));
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < clients; ++t) threads.emplace_back(fill, t);
  for (std::thread& th : threads) th.join();
  if (auto e = error.Take()) return Fail(std::move(*e));
  return FillResult{.seconds = Seconds(Clock::now() - start),
                    .retries = retries.load()};
}

Result<RunResult> Run(const Backend& backend,
                      const std::vector<fp::Fingerprint>& corpus,
                      const RunOptions& options,
                      std::atomic<std::uint64_t>& serial) {
  auto handles =
      OpenHandles(backend, options.shared_handle ? 1 : options.clients);
  if (!handles) return Fail(handles.error());
  const fp::Options fo =
      pipeline::FingerprintOptions(backend.settings.fingerprint);
  const store::WaveRule rule = pipeline::WaveRule(backend.settings.wave);
  const auto clients = static_cast<std::size_t>(options.clients);
  std::vector<std::vector<Op>> ops(clients);
  std::vector<Clock::time_point> ended(clients);
  std::atomic<std::uint64_t> taken{0};
  // Every thread waits for one start so that none runs alone at first.
  const auto start = Clock::now() + std::chrono::milliseconds(50);
  const auto end = start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(options.seconds));
  const auto interval =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
          options.rate > 0 ? static_cast<double>(clients) / options.rate : 0));
  auto client = [&](std::size_t c) {
    store::Store& db = *(*handles)[options.shared_handle ? 0 : c];
    std::mt19937_64 rng(options.seed * 1000 + c);
    // Clients spread over the interval rather than all at its start.
    auto next =
        start + interval * static_cast<long>(c) / static_cast<long>(clients);
    std::this_thread::sleep_until(start);
    for (std::uint64_t k = 0;; ++k) {
      if (options.rate > 0) {
        std::this_thread::sleep_until(next);
        next += interval;
      }
      if (options.seconds > 0 && Clock::now() >= end) break;
      if (options.stop != nullptr && options.stop->load()) break;
      if (options.messages > 0 && taken.fetch_add(1) >= options.messages) break;
      const fp::Fingerprint& base = corpus[rng() % corpus.size()];
      const fp::Fingerprint f =
          k % 2 == 0 ? Variant(base, rng) : Unrelated(base, rng);
      const store::Message m =
          BenchMessage(f, store::NowMillis(), serial.fetch_add(1));
      Op op;
      op.client = static_cast<int>(c);
      const auto t0 = Clock::now();
      op.start_s = Seconds(t0 - start);
      auto time_call = [&op](auto&& call, float* sum) {
        const auto before = Clock::now();
        auto result = call();
        const float us = Us(Clock::now() - before);
        *sum += us;
        op.longest_call_us = std::max(op.longest_call_us, us);
        return result;
      };
      // As pipeline::CheckAnalysis: a message that matched nothing starts a
      // cluster only if nothing recorded since its lookup shares a key with
      // it (Join::seen); on kConflict it is looked up and decided again, and
      // the last attempt records without the check.
      for (int attempt = 0;; ++attempt) {
        auto lookup = time_call([&] { return db.Find(m); }, &op.find_us);
        if (!lookup) {
          op.status = OpStatus::kFindFailed;
          op.code = lookup.error().code();
          break;
        }
        const auto d0 = Clock::now();
        store::Join join;
        if (auto match = pipeline::Decide(f, *lookup, fo)) {
          join.cluster = match->cluster;
        } else if (attempt < kMaxStoreRaces) {
          join.seen = lookup->seen;
        }
        op.decide_us += Us(Clock::now() - d0);
        auto rec =
            time_call([&] { return db.Record(m, join, rule); }, &op.record_us);
        if (!rec && rec.error().code() == Error::Code::kConflict) {
          ++op.conflicts;
          continue;
        }
        if (!rec) {
          op.status = OpStatus::kRecordFailed;
          op.code = rec.error().code();
        }
        break;
      }
      op.total_us = Us(Clock::now() - t0);
      ops[c].push_back(op);
    }
    ended[c] = Clock::now();
  };
  std::vector<std::thread> threads;
  for (std::size_t c = 0; c < clients; ++c) threads.emplace_back(client, c);
  std::thread beside;
  if (options.beside) beside = std::thread(options.beside, start);
  for (std::thread& th : threads) th.join();
  if (beside.joinable()) beside.join();
  RunResult result;
  for (std::size_t c = 0; c < clients; ++c) {
    result.ops.insert(result.ops.end(), ops[c].begin(), ops[c].end());
    result.wall_s = std::max(result.wall_s, Seconds(ended[c] - start));
  }
  return result;
}

}  // namespace mw::bench
