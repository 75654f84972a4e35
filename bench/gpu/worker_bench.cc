// worker_bench: the latency of the comparison window as the milter sees it
// (gpu/worker.h): C client threads, each a stream of messages, each message
// two queries submitted together (sketch at the default thresholds and CTPH
// at 3 x the default edit rate, as pipeline::Window::Near asks) and waited
// for, against a window of N synthetic signatures, with the worker's
// micro-batching ([gpu] batch_size, batch_deadline).
//
//   build/bin/worker_bench [--backend auto|cpu|cuda] [--window N]
//       [--clients C] [--seconds S] [--batch-size B] [--deadline-us D]
//       [--threads T]
//
// Prints one JSON line: messages, messages per second, the latency of a
// message (both answers in) at p50, p99 and max in milliseconds, the engine
// calls made and the mean queries per call.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "gpu/engine.h"
#include "gpu/synthetic.h"
#include "gpu/worker.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string backend = "auto";
  std::size_t window = 200000;  // [gpu] window_max's default
  unsigned clients = 20;
  double seconds = 5;
  std::size_t batch_size = 64;
  long deadline_us = 0;
  unsigned threads = 0;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "worker_bench: %s\nusage: worker_bench [--backend B] "
               "[--window N] [--clients C] [--seconds S] [--batch-size B] "
               "[--deadline-us D] [--threads T]\n",
               why);
  std::exit(2);
}

Args Parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string o = argv[i];
    if (i + 1 >= argc) Usage(("missing value: " + o).c_str());
    const char* v = argv[++i];
    if (o == "--backend") {
      a.backend = v;
    } else if (o == "--window") {
      a.window = std::strtoull(v, nullptr, 10);
    } else if (o == "--clients") {
      a.clients = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
    } else if (o == "--seconds") {
      a.seconds = std::strtod(v, nullptr);
    } else if (o == "--batch-size") {
      a.batch_size = std::strtoull(v, nullptr, 10);
    } else if (o == "--deadline-us") {
      a.deadline_us = std::strtol(v, nullptr, 10);
    } else if (o == "--threads") {
      a.threads = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
    } else {
      Usage(("unknown option: " + o).c_str());
    }
  }
  if (a.clients == 0 || a.batch_size == 0 || a.seconds <= 0)
    Usage("--clients, --batch-size and --seconds must be positive");
  return a;
}

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const std::size_t k =
      std::min(v.size() - 1, static_cast<std::size_t>(p * v.size()));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k),
                   v.end());
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = Parse(argc, argv);
  auto backend = mw::gpu::ParseBackend(a.backend);
  if (!backend) Usage(backend.error().message().c_str());
  mw::gpu::WorkerOptions options;
  options.batch_size = a.batch_size;
  options.deadline = std::chrono::microseconds(a.deadline_us);
  std::string fallback;
  options.log = [&](std::string_view m) { fallback = std::string(m); };
  auto worker_r = mw::gpu::Worker::Start(*backend, a.threads, options);
  if (!worker_r) {
    std::fprintf(stderr, "worker_bench: %s\n",
                 worker_r.error().message().c_str());
    return 1;
  }
  mw::gpu::Worker& worker = **worker_r;

  // The queries come after the window in one synthetic stream, so some are
  // near copies of window signatures (and match), as real waves do.
  constexpr std::size_t kQueries = 8192;
  const std::vector<mw::gpu::Signature> all =
      mw::gpu::SyntheticSignatures(a.window + kQueries, 7);
  const auto t_add = Clock::now();
  std::future<mw::Result<void>> last;
  for (std::size_t k = 0; k < a.window; ++k) last = worker.Add(k, all[k]);
  if (a.window > 0 && !last.get()) {
    std::fprintf(stderr, "worker_bench: Add failed\n");
    return 1;
  }
  const double add_seconds =
      std::chrono::duration<double>(Clock::now() - t_add).count();

  mw::gpu::Thresholds sketch_t;
  mw::gpu::Thresholds ctph_t;
  ctph_t.ctph_edit_rate = 3 * ctph_t.ctph_edit_rate;
  // One message first, untimed: a GPU's context and first upload of the
  // window are paid here, not by the first client.
  (void)worker.Submit(all[a.window], mw::gpu::Kind::kCtph, ctph_t).get();
  const std::uint64_t batches0 = worker.batches();

  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> failures{0};
  std::vector<std::vector<double>> latencies(a.clients);
  std::vector<std::thread> clients;
  const auto t0 = Clock::now();
  for (unsigned c = 0; c < a.clients; ++c) {
    clients.emplace_back([&, c] {
      std::size_t next = c;
      while (!stop.load(std::memory_order_relaxed)) {
        const mw::gpu::Signature& q = all[a.window + next % kQueries];
        next += a.clients;
        const auto m0 = Clock::now();
        auto f1 = worker.Submit(q, mw::gpu::Kind::kSketch, sketch_t);
        auto f2 = worker.Submit(q, mw::gpu::Kind::kCtph, ctph_t);
        const bool ok = f1.get().has_value() & f2.get().has_value();
        if (!ok) failures.fetch_add(1);
        latencies[c].push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - m0)
                .count());
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(a.seconds));
  stop = true;
  for (auto& t : clients) t.join();
  const double elapsed =
      std::chrono::duration<double>(Clock::now() - t0).count();
  std::vector<double> all_ms;
  for (auto& v : latencies) all_ms.insert(all_ms.end(), v.begin(), v.end());
  const std::uint64_t calls = worker.batches() - batches0;
  nlohmann::ordered_json j;
  j["backend"] = worker.backend();
  j["window"] = a.window;
  j["clients"] = a.clients;
  j["batch_size"] = a.batch_size;
  j["deadline_us"] = a.deadline_us;
  j["messages"] = all_ms.size();
  j["messages_per_second"] = static_cast<double>(all_ms.size()) / elapsed;
  j["p50_ms"] = Percentile(all_ms, 0.50);
  j["p99_ms"] = Percentile(all_ms, 0.99);
  j["max_ms"] =
      all_ms.empty() ? 0.0 : *std::max_element(all_ms.begin(), all_ms.end());
  j["engine_calls"] = calls;
  j["queries_per_call"] = calls > 0 ? 2.0 * static_cast<double>(all_ms.size()) /
                                          static_cast<double>(calls)
                                    : 0.0;
  j["add_seconds"] = add_seconds;
  j["failures"] = failures.load();
  if (!fallback.empty()) j["log"] = fallback;
  std::printf("%s\n", j.dump().c_str());
  return failures.load() == 0 ? 0 : 1;
}
