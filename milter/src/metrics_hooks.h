// The milter's metrics (docs/milter.md, "Metrics"): what each end of message
// adds to the Prometheus registry, the store-size gauges, and the server
// that serves them from mailwave-milter.
//
// Thread-safety: the Record/Count members are called from libmilter's
// threads, many at once; they only touch atomics (mw::metrics). RefreshStore
// runs on the metrics thread.
#ifndef MW_MILTER_METRICS_HOOKS_H_
#define MW_MILTER_METRICS_HOOKS_H_

#include <array>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "metrics/registry.h"
#include "metrics/server.h"
#include "mw/result.h"
#include "pipeline/check.h"
#include "store/store.h"

namespace mw::milter {

// Failures of the milter itself, beside the analysis' warnings.
enum class Failure {
  kCallback,  // a callback failed; the message got [milter] on_error
  kEvent,     // a wave event could not be written to [wave] events
  kAction,    // the MTA did not take [wave] action's request (quarantine,
              // reply text)
};

class MilterMetrics {
 public:
  // Registers every series in `registry`, which must outlive this object.
  explicit MilterMetrics(metrics::Registry& registry);

  // A message reached end of message (before anything there can fail).
  void CountMessage() noexcept;
  // pipeline::Check's result for one message, and its wall-clock time. An
  // error (nothing to analyse) counts as verdict "none" and
  // errors{kind="unanalysed"}.
  void RecordCheck(const Result<pipeline::Outcome>& outcome,
                   std::chrono::nanoseconds wall) noexcept;
  void CountFailure(Failure failure) noexcept;
  // A trusted relay's verdict kept, not analysed: verdict "trusted".
  void CountTrusted() noexcept;
  // The engine (engine.h): open connections and messages waiting for or
  // in the worker pool, as they change.
  void SetConnections(std::size_t n) noexcept;
  void SetQueue(std::size_t n) noexcept;
  // How long a message at end of body waited for a pool thread.
  void RecordQueueWait(std::chrono::nanoseconds wait) noexcept;
  // A message answered on_error at once because the queue was longer than
  // the deadline allows.
  void CountShed() noexcept;
  // A message whose analysis missed [milter] deadline (answered on_error).
  void CountDeadlineMiss() noexcept;
  // A connection closed for silence: between messages (idle) or inside one
  // (read).
  void CountTimeout(bool idle) noexcept;
  // A connection closed at once: beyond [milter] max_connections.
  void CountRefusedConnection() noexcept;
  // A message that stopped being kept at [milter] max_buffered.
  void CountBufferFull() noexcept;
  // A connection closed for a malformed packet or broken framing.
  void CountProtocolError() noexcept;
  // Reads store->GetStats() into the store gauges; a failure counts
  // errors{kind="stats"} and keeps the last values. Null: nothing.
  void RefreshStore(store::Store* store) noexcept;

 private:
  metrics::Counter* messages_;
  metrics::Counter* verdict_none_;
  metrics::Counter* verdict_cluster_;
  metrics::Counter* verdict_wave_;
  metrics::Counter* verdict_trusted_;
  metrics::Counter* waves_formed_;
  // Messages with a wave header by kind and reason, in pipeline::WaveReason's
  // order (each reason belongs to one kind).
  std::array<metrics::Counter*, 7> kinds_;
  // [wave] action asked of the MTA: quarantine, reject, tempfail.
  std::array<metrics::Counter*, 3> actions_;
  // One per pipeline::WarningKind, in its order.
  std::array<metrics::Counter*, 9> warning_errors_;
  metrics::Counter* unanalysed_;
  metrics::Counter* callback_errors_;
  metrics::Counter* event_errors_;
  metrics::Counter* action_errors_;
  metrics::Counter* stats_errors_;
  // parse, normalise, langid, fingerprint, lookup, decide, record.
  std::array<metrics::Histogram*, 7> stages_;
  metrics::Histogram* check_;
  metrics::Counter* window_asked_;
  metrics::Counter* window_matched_;
  metrics::Histogram* window_seconds_;
  metrics::Gauge* store_messages_;
  metrics::Gauge* store_clusters_;
  metrics::Gauge* store_waves_;
  metrics::Gauge* store_bytes_;
  metrics::Gauge* store_writable_;
  metrics::Gauge* store_up_;
  metrics::Counter* store_relookups_;
  metrics::Gauge* connections_;
  metrics::Gauge* queue_;
  metrics::Histogram* queue_wait_;
  metrics::Counter* shed_;
  metrics::Counter* deadline_misses_;
  metrics::Counter* idle_timeouts_;
  metrics::Counter* read_timeouts_;
  metrics::Counter* refused_connections_;
  metrics::Counter* buffer_full_;
  metrics::Counter* protocol_errors_;
};

// The process' registry and its MilterMetrics, made on first use.
metrics::Registry& ProcessRegistry();
MilterMetrics& Metrics();

// Starts the metrics thread: serves ProcessRegistry() on `listen` (empty:
// no endpoint) and refreshes the store gauges from the current snapshot's
// store now and every 30 s. A listen that fails (port in use) is logged
// once and the thread runs on without an endpoint. Null only when no
// thread could be started (logged). REQUIRES: `listen` empty or valid
// (metrics::ParseListen), checked by the caller as a configuration error.
std::unique_ptr<metrics::Server> StartMetrics(const std::string& listen);

}  // namespace mw::milter

#endif  // MW_MILTER_METRICS_HOOKS_H_
