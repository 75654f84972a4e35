// The engine's worker: one thread that owns an Engine and serves the
// milter's threads. Queries are micro-batched: a batch runs as one
// Engine::Query when it holds batch_size queries, or `deadline` after its
// first query arrived, whichever comes first. Window changes (Add, Remove)
// run on the same thread, in submission order with the queries.
//
// Ordering: an Add or Remove submitted before a query (from any thread, the
// submissions ordered by the worker's queue) is applied before that query
// runs, so the query sees it. A query may also see changes submitted after
// it but before its batch ran (a message's own Add right after its query,
// for one): callers that must not match themselves filter their own id.
//
// Budgets: Submit never blocks on the engine. A caller with a time budget
// waits with future.wait_for(budget) and, on timeout, goes on without the
// answer (the CPU comparator inline, or no match); the worker completes the
// abandoned future later and nothing else is affected.
//
// Device failure: if the engine fails at run time (a CUDA device lost), the
// worker logs once through `log`, rebuilds a CPU engine from its own host
// copy of the window and answers the failed batch and every later call from
// it. A CPU engine does not fail this way; no host copy is kept for it.
//
// Shutdown: the destructor fails every query not yet run with kUnavailable
// (changes already submitted are applied or dropped; the window dies with
// the worker) and joins the thread. Submissions racing the destructor are a
// caller bug.
//
// Thread-safety: Submit, Add, Remove and backend() may be called from any
// thread concurrently.
#ifndef MW_GPU_WORKER_H_
#define MW_GPU_WORKER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/engine.h"
#include "mw/result.h"

namespace mw::gpu {

struct WorkerOptions {
  // Queries per Engine::Query call at most ([gpu] batch_size).
  std::size_t batch_size = 64;
  // How long the first query of a batch waits for others ([gpu]
  // batch_deadline). 0: no wait; a batch holds the queries that arrived
  // while the engine ran the one before (an idle worker answers at once, a
  // busy one batches as deep as the load), which a single stream of
  // messages would otherwise pay for with the whole deadline each.
  std::chrono::microseconds deadline{0};
  // Called once when the worker falls back to the CPU (and with the reason
  // of a kAuto fallback at start); may be empty. Runs on the worker thread.
  std::function<void(std::string_view)> log;
};

class Worker {
 public:
  // A worker around MakeEngine(backend, threads): fails as MakeEngine does
  // (kCuda without a device); a kAuto fallback is logged.
  static Result<std::unique_ptr<Worker>> Start(Backend backend,
                                               unsigned threads,
                                               WorkerOptions options);
  // A worker around `engine` (tests give one that fails). REQUIRES: engine
  // non-null. `threads` is for the CPU engine of a fallback.
  Worker(std::unique_ptr<Engine> engine, unsigned threads,
         WorkerOptions options);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // The window matches of one query (Match::query is 0), in id order.
  std::future<Result<std::vector<Engine::WindowMatch>>> Submit(
      const Signature& query, Kind kind, const Thresholds& thresholds);

  std::future<Result<void>> Add(std::uint64_t id, const Signature& sig);
  std::future<Result<void>> Remove(std::uint64_t id);

  // "cpu" or "cuda": the engine now in use.
  std::string backend() const;

  // Engine::Query calls made so far (tests check the batching with it).
  std::uint64_t batches() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mw::gpu

#endif  // MW_GPU_WORKER_H_
