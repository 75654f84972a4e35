#include "metrics_hooks.h"

#include <syslog.h>

#include <stdexcept>
#include <string_view>
#include <utility>

#include "log.h"
#include "snapshot.h"

namespace mw::milter {

namespace {

// Registration fails only on a programming error (a bad name, a family
// registered twice); tests/milter/metrics_hooks_test.cc registers them all.
template <typename T>
T* Must(Result<T*> r) {
  if (!r) throw std::logic_error(r.error().message());
  return *r;
}

constexpr std::string_view kStages[] = {"parse",       "normalise", "langid",
                                        "fingerprint", "lookup",    "decide",
                                        "record"};

constexpr pipeline::WarningKind kWarnings[] = {
    pipeline::WarningKind::kLimit,    pipeline::WarningKind::kBudget,
    pipeline::WarningKind::kParser,   pipeline::WarningKind::kCharset,
    pipeline::WarningKind::kEncoding, pipeline::WarningKind::kPart,
    pipeline::WarningKind::kDegraded, pipeline::WarningKind::kStore,
    pipeline::WarningKind::kWindow,
};

// Each reason with the kind it gives (pipeline::DecideKind).
constexpr std::pair<pipeline::WaveKind, pipeline::WaveReason> kKinds[] = {
    {pipeline::WaveKind::kBulk, pipeline::WaveReason::kAllowed},
    {pipeline::WaveKind::kBulk, pipeline::WaveReason::kHam},
    {pipeline::WaveKind::kSpread, pipeline::WaveReason::kSpam},
    {pipeline::WaveKind::kBulk, pipeline::WaveReason::kAuthenticated},
    {pipeline::WaveKind::kSpread, pipeline::WaveReason::kUnauthenticated},
    {pipeline::WaveKind::kSpread, pipeline::WaveReason::kSenders},
    {pipeline::WaveKind::kSpread, pipeline::WaveReason::kNetworks},
};

constexpr pipeline::Action kActions[] = {pipeline::Action::kQuarantine,
                                         pipeline::Action::kReject,
                                         pipeline::Action::kTempfail};

constexpr auto kGaugeInterval = std::chrono::seconds(30);

}  // namespace

MilterMetrics::MilterMetrics(metrics::Registry& r) {
  messages_ = Must(r.AddCounter("mailwave_messages_total",
                                "Messages that reached end of message."));
  constexpr std::string_view kVerdicts =
      "Messages by verdict: none (no earlier duplicate, or not analysed), "
      "cluster (duplicates earlier mail), wave (its cluster is a wave), "
      "trusted (a trusted relay's verdict kept).";
  verdict_none_ = Must(r.AddCounter("mailwave_verdicts_total", kVerdicts,
                                    {{"verdict", "none"}}));
  verdict_cluster_ = Must(r.AddCounter("mailwave_verdicts_total", kVerdicts,
                                       {{"verdict", "cluster"}}));
  verdict_wave_ = Must(r.AddCounter("mailwave_verdicts_total", kVerdicts,
                                    {{"verdict", "wave"}}));
  verdict_trusted_ = Must(r.AddCounter("mailwave_verdicts_total", kVerdicts,
                                       {{"verdict", "trusted"}}));
  waves_formed_ =
      Must(r.AddCounter("mailwave_waves_formed_total",
                        "Clusters that became a wave (one per cluster)."));
  constexpr std::string_view kKindHelp =
      "Messages with a wave header by its kind (bulk: wanted, spread: not) "
      "and why (allow, ham, auth; spam, unauth, senders, networks).";
  static_assert(std::size(kKinds) == std::tuple_size_v<decltype(kinds_)>);
  for (std::size_t i = 0; i < std::size(kKinds); ++i) {
    kinds_[i] = Must(r.AddCounter(
        "mailwave_kinds_total", kKindHelp,
        {{"kind", std::string(pipeline::WaveKindName(kKinds[i].first))},
         {"why", std::string(pipeline::WaveReasonName(kKinds[i].second))}}));
  }
  constexpr std::string_view kActionHelp =
      "Messages of a spread wave whose end of message asked the MTA for "
      "[wave] action: quarantine (hold queue), reject (550), tempfail (451).";
  static_assert(std::size(kActions) == std::tuple_size_v<decltype(actions_)>);
  for (std::size_t i = 0; i < std::size(kActions); ++i) {
    actions_[i] = Must(r.AddCounter(
        "mailwave_actions_total", kActionHelp,
        {{"action", std::string(pipeline::ActionName(kActions[i]))}}));
  }
  constexpr std::string_view kErrors =
      "Messages with a warning of this kind in their analysis, or failures "
      "of the milter (callback, event, action, unanalysed, stats).";
  static_assert(std::size(kWarnings) ==
                std::tuple_size_v<decltype(warning_errors_)>);
  for (std::size_t i = 0; i < std::size(kWarnings); ++i) {
    warning_errors_[i] = Must(r.AddCounter(
        "mailwave_errors_total", kErrors,
        {{"kind", std::string(pipeline::WarningName(kWarnings[i]))}}));
  }
  unanalysed_ = Must(
      r.AddCounter("mailwave_errors_total", kErrors, {{"kind", "unanalysed"}}));
  callback_errors_ = Must(
      r.AddCounter("mailwave_errors_total", kErrors, {{"kind", "callback"}}));
  event_errors_ =
      Must(r.AddCounter("mailwave_errors_total", kErrors, {{"kind", "event"}}));
  action_errors_ = Must(
      r.AddCounter("mailwave_errors_total", kErrors, {{"kind", "action"}}));
  stats_errors_ =
      Must(r.AddCounter("mailwave_errors_total", kErrors, {{"kind", "stats"}}));
  for (std::size_t i = 0; i < std::size(kStages); ++i) {
    stages_[i] = Must(r.AddHistogram(
        "mailwave_stage_cpu_seconds",
        "CPU time of one stage of a message's check (the thread's CPU "
        "clock), for the messages whose check ran the stage.",
        metrics::LatencyBuckets(), {{"stage", std::string(kStages[i])}}));
  }
  check_ = Must(r.AddHistogram(
      "mailwave_check_seconds",
      "Wall-clock time of a message's whole check at end of message, store "
      "included.",
      metrics::LatencyBuckets()));
  constexpr std::string_view kWindow =
      "Messages the index left unmatched that were scored against the "
      "comparison window ([gpu]), and those the window's answer matched.";
  window_asked_ = Must(r.AddCounter("mailwave_window_queries_total", kWindow,
                                    {{"result", "asked"}}));
  window_matched_ = Must(r.AddCounter("mailwave_window_queries_total", kWindow,
                                      {{"result", "matched"}}));
  window_seconds_ = Must(r.AddHistogram(
      "mailwave_window_seconds",
      "Wall-clock time from a message's window query to its answer and the "
      "store reading the messages it named (batching included).",
      metrics::LatencyBuckets()));
  store_messages_ =
      Must(r.AddGauge("mailwave_store_messages", "Messages in the store."));
  store_clusters_ = Must(r.AddGauge("mailwave_store_clusters",
                                    "Clusters of two or more in the store."));
  store_waves_ =
      Must(r.AddGauge("mailwave_store_waves", "Clusters that are waves now."));
  store_bytes_ = Must(r.AddGauge(
      "mailwave_store_bytes",
      "The store's file and its write-ahead log on disk, in bytes."));
  store_writable_ = Must(r.AddGauge(
      "mailwave_store_writable",
      "1 when the store records messages, 0 when its writes are off (full "
      "disk, read-only file)."));
  store_up_ = Must(r.AddGauge(
      "mailwave_store_up",
      "1 when the store answered its last call (a message's lookup or the "
      "size refresh), 0 when it failed (Redis down or slow, SQLite busy): "
      "messages then pass untagged."));
  store_relookups_ = Must(r.AddCounter(
      "mailwave_store_relookups_total",
      "Lookups repeated because another writer recorded a copy between a "
      "message's lookup and its record (docs/store.md)."));
  connections_ = Must(r.AddGauge("mailwave_milter_connections",
                                 "MTA connections open to the milter."));
  queue_ = Must(r.AddGauge(
      "mailwave_milter_queue",
      "Messages at end of body waiting for, or in, the analysis pool."));
  queue_wait_ = Must(r.AddHistogram(
      "mailwave_milter_queue_wait_seconds",
      "Wall-clock time a message at end of body waited for an analysis "
      "thread (the part of the MTA's wait that is not the check itself).",
      metrics::LatencyBuckets()));
  shed_ = Must(r.AddCounter(
      "mailwave_milter_shed_total",
      "Messages answered [milter] on_error at once: the queue was longer "
      "than [milter] deadline allows."));
  deadline_misses_ = Must(
      r.AddCounter("mailwave_milter_deadline_misses_total",
                   "Messages whose analysis missed [milter] deadline (answered "
                   "on_error, the late result dropped)."));
  constexpr std::string_view kTimeouts =
      "Connections closed for silence: idle (between messages, [milter] "
      "idle_timeout) or read (inside a message, [milter] read_timeout).";
  idle_timeouts_ = Must(r.AddCounter("mailwave_milter_timeouts_total",
                                     kTimeouts, {{"kind", "idle"}}));
  read_timeouts_ = Must(r.AddCounter("mailwave_milter_timeouts_total",
                                     kTimeouts, {{"kind", "read"}}));
  refused_connections_ = Must(r.AddCounter(
      "mailwave_milter_refused_connections_total",
      "Connections closed at once, beyond [milter] max_connections."));
  buffer_full_ = Must(r.AddCounter(
      "mailwave_milter_buffer_full_total",
      "Messages that stopped being kept at [milter] max_buffered (analysed "
      "as far as kept)."));
  protocol_errors_ = Must(r.AddCounter(
      "mailwave_milter_protocol_errors_total",
      "Connections closed for a malformed packet or broken framing."));
}

void MilterMetrics::SetConnections(std::size_t n) noexcept {
  connections_->Set(static_cast<double>(n));
}
void MilterMetrics::SetQueue(std::size_t n) noexcept {
  queue_->Set(static_cast<double>(n));
}
void MilterMetrics::RecordQueueWait(std::chrono::nanoseconds wait) noexcept {
  queue_wait_->ObserveSeconds(wait);
}
void MilterMetrics::CountShed() noexcept { shed_->Inc(); }
void MilterMetrics::CountDeadlineMiss() noexcept { deadline_misses_->Inc(); }
void MilterMetrics::CountTimeout(bool idle) noexcept {
  (idle ? idle_timeouts_ : read_timeouts_)->Inc();
}
void MilterMetrics::CountRefusedConnection() noexcept {
  refused_connections_->Inc();
}
void MilterMetrics::CountBufferFull() noexcept { buffer_full_->Inc(); }
void MilterMetrics::CountProtocolError() noexcept { protocol_errors_->Inc(); }

void MilterMetrics::CountTrusted() noexcept { verdict_trusted_->Inc(); }

void MilterMetrics::CountMessage() noexcept { messages_->Inc(); }

void MilterMetrics::RecordCheck(const Result<pipeline::Outcome>& outcome,
                                std::chrono::nanoseconds wall) noexcept {
  check_->ObserveSeconds(wall);
  if (!outcome) {
    verdict_none_->Inc();
    unanalysed_->Inc();
    return;
  }
  const pipeline::Outcome& o = *outcome;
  if (!o.wave) {
    verdict_none_->Inc();
  } else if (o.wave->wave) {
    verdict_wave_->Inc();
  } else {
    verdict_cluster_->Inc();
  }
  if (o.recorded && o.recorded->became_wave) waves_formed_->Inc();
  if (o.wave) {
    for (std::size_t i = 0; i < std::size(kKinds); ++i) {
      if (kKinds[i].first == o.wave->kind &&
          kKinds[i].second == o.wave->reason) {
        kinds_[i]->Inc();
        break;
      }
    }
  }
  for (std::size_t i = 0; i < std::size(kActions); ++i) {
    if (kActions[i] == o.action) actions_[i]->Inc();
  }
  if (o.store_conflicts > 0) store_relookups_->Inc(o.store_conflicts);
  if (o.window_asked) {
    window_asked_->Inc();
    if (o.window_matched) window_matched_->Inc();
    window_seconds_->ObserveSeconds(o.analysis.timings.window);
  }
  // Once per kind and message: a malformed message may carry dozens of
  // parser warnings, and "how many messages had one" is the useful rate.
  std::array<bool, std::size(kWarnings)> seen{};
  for (const auto& w : o.analysis.warnings) {
    const auto i = static_cast<std::size_t>(w.kind);
    if (i < seen.size() && !seen[i]) {
      seen[i] = true;
      warning_errors_[i]->Inc();
    }
  }
  if (seen[static_cast<std::size_t>(pipeline::WarningKind::kStore)]) {
    store_up_->Set(0);
  } else if (o.analysis.timings.lookup.count() > 0) {
    store_up_->Set(1);
  }
  const auto& t = o.analysis.timings;
  const std::chrono::nanoseconds times[] = {
      t.parse,  t.normalise, t.langid, t.fingerprint,
      t.lookup, t.decide,    t.record};
  // A stage that did not run (no store, a degraded analysis) reads 0; the
  // thread CPU clock counts nanoseconds, so one that ran never does.
  for (std::size_t i = 0; i < std::size(times); ++i) {
    if (times[i].count() > 0) stages_[i]->ObserveSeconds(times[i]);
  }
}

void MilterMetrics::CountFailure(Failure failure) noexcept {
  switch (failure) {
    case Failure::kCallback:
      callback_errors_->Inc();
      break;
    case Failure::kEvent:
      event_errors_->Inc();
      break;
    case Failure::kAction:
      action_errors_->Inc();
      break;
  }
}

void MilterMetrics::RefreshStore(store::Store* store) noexcept {
  if (store == nullptr) return;
  try {
    auto stats = store->GetStats();
    if (!stats) {
      stats_errors_->Inc();
      store_up_->Set(0);
      return;
    }
    store_up_->Set(1);
    store_messages_->Set(static_cast<double>(stats->messages));
    store_clusters_->Set(static_cast<double>(stats->clusters));
    store_waves_->Set(static_cast<double>(stats->waves));
    store_bytes_->Set(
        static_cast<double>(stats->file_bytes + stats->wal_bytes));
    store_writable_->Set(stats->writable ? 1 : 0);
  } catch (...) {
    stats_errors_->Inc();
  }
}

metrics::Registry& ProcessRegistry() {
  static metrics::Registry registry;
  return registry;
}

MilterMetrics& Metrics() {
  static MilterMetrics metrics(ProcessRegistry());
  return metrics;
}

std::unique_ptr<metrics::Server> StartMetrics(const std::string& listen) {
  MilterMetrics& m = Metrics();
  auto server = metrics::Server::Start(
      ProcessRegistry(), [](std::string_view line) { Log(LOG_WARNING, line); });
  if (!server) {
    Log(LOG_ERR, server.error().message() + "; running without metrics");
    return nullptr;
  }
  if (!listen.empty()) {
    metrics::ServerOptions options;
    options.listen = listen;
    auto port = (*server)->Listen(options);
    if (port) {
      Log(LOG_INFO, "metrics: listening on " +
                        listen.substr(0, listen.rfind(':')) + ":" +
                        std::to_string(*port));
    } else {
      // Another process on the port must not stop the mail.
      Log(LOG_WARNING, port.error().message() + "; running without metrics");
    }
  }
  // The store is read from the current snapshot each time, so a reload
  // that swaps it is followed.
  const auto refresh = [&m] {
    auto snap = CurrentSnapshot();
    if (snap) m.RefreshStore(snap->store.get());
  };
  refresh();
  (*server)->ScheduleEvery(kGaugeInterval, refresh);
  return std::move(*server);
}

}  // namespace mw::milter
