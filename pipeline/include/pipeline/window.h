// The window: the signatures of every recent message, resident in the
// comparison engine (gpu/), so that a message the store's index left without
// a match is still scored against all recent mail.
//
// The index finds messages that share an exact key with a query (a block, a
// SimHash band, a CTPH gram). Spun text and letters-only hash busters share
// none; what links their copies is most of their words (fingerprint/sketch.h),
// which only a comparison against every message finds. The window is that
// comparison: Near() asks the engine's worker (micro-batched, on a CUDA
// device or the CPU) for the stored messages whose word sketch or CTPH
// signature is near, within a time budget; Check() then reads those messages
// from the store (Store::Fetch) and decides as it does for the index's
// candidates.
//
// Contents: loaded from the store at Open (the newest [gpu] window_max
// messages within the retention), then every recorded message is Added; the
// oldest leave when the window is full or older than the retention, which is
// the store's pruning rule, so the window never names a message the store
// has dropped for long (Fetch leaves out any it has).
//
// Failure: a query the engine does not answer within the budget, or answers
// with an error, leaves the message with the index's answer alone, flagged
// in the outcome (never silent); a device lost at run time falls back to the
// CPU inside the worker, said once in the log.
//
// Thread-safety: Near and Add may be called from any number of threads.
#ifndef MW_PIPELINE_WINDOW_H_
#define MW_PIPELINE_WINDOW_H_

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "config/config.h"
#include "fingerprint/fingerprint.h"
#include "gpu/engine.h"
#include "gpu/worker.h"
#include "mw/result.h"
#include "store/store.h"

namespace mw::pipeline {

class Window {
 public:
  // Starts the engine ([gpu] backend, batching, threads) and loads the
  // store's messages that arrived within `settings.store.retention` before
  // `now`, the newest [gpu] window_max of them. Fails when the engine cannot
  // be made ([gpu] backend = "cuda" without a device) or the store cannot be
  // read. `log` receives the lines a postmaster should see (the backend
  // chosen, a fallback to the CPU); may be empty.
  static Result<std::unique_ptr<Window>> Open(
      store::Store& store, const config::Settings& settings,
      store::UnixMillis now, std::function<void(std::string_view)> log);
  ~Window();

  struct Answer {
    std::vector<std::int64_t> ids;  // stored messages near the query
    // No answer within the budget, or the engine failed: `ids` is empty and
    // the caller goes on with the index's answer alone.
    bool missed = false;
    std::string reason;  // why, when missed
  };
  // The stored messages whose word sketches are near `fp`'s under the words
  // path's thresholds of fingerprint `options` (the index already finds what
  // shares a CTPH gram or a SimHash band). Waits at most [gpu] budget.
  Answer Near(const fingerprint::Fingerprint& fp,
              const fingerprint::Options& options);

  // With a store other hosts write to ([store] backend = "redis"): adds what
  // was recorded there since the last call (Store::ForEachNewer), at most
  // four times a second, by the first caller; others go on at once. Each
  // message is added once, whoever recorded it. Without that, a host's window
  // holds only its own messages, and a spun wave sent through two MX hosts
  // makes a cluster on each. A store that cannot be read is tried again a
  // quarter of a second later. Does nothing for a store only this process
  // writes.
  void Follow(store::Store& store);

  // A message the store recorded under `id`: it joins the window, and the
  // messages older than the retention before `arrival`, or beyond
  // window_max, leave it.
  void Add(std::int64_t id, store::UnixMillis arrival,
           const fingerprint::Fingerprint& fp);

  std::size_t size() const;
  std::string backend() const;  // "cpu" or "cuda"

 private:
  Window(std::unique_ptr<gpu::Worker> worker, const config::Settings& settings);
  void EvictLocked(store::UnixMillis arrival);

  std::unique_ptr<gpu::Worker> worker_;
  std::chrono::milliseconds budget_;
  std::chrono::milliseconds retention_;
  std::size_t max_;
  bool follow_;  // the store is shared (Follow reads it)
  mutable std::mutex mu_;
  // Ids in the window by arrival (oldest first), for eviction.
  std::deque<std::pair<store::UnixMillis, std::int64_t>> order_;
  std::unordered_set<std::int64_t> ids_;  // the same ids, to add each once
  // Follow's state: the id to read newer than, and when it may read next.
  std::mutex follow_mu_;
  std::int64_t followed_ = 0;
  std::chrono::steady_clock::time_point next_follow_{};
};

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_WINDOW_H_
