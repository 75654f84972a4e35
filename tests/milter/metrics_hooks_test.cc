// The milter's metrics: what one end of message adds to the registry, read
// back through the exposition text the endpoint serves.
#include "milter/src/metrics_hooks.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace mw::milter {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

// The value of the sample line `series` ("name{labels}") in `text`; -1 when
// absent.
double Sample(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.size() > series.size() && line.starts_with(series) &&
        line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

pipeline::Outcome Analysed() {
  pipeline::Outcome o;
  o.analysis.timings.parse = microseconds(40);
  o.analysis.timings.normalise = microseconds(3);
  o.analysis.timings.langid = microseconds(18);
  o.analysis.timings.fingerprint = microseconds(14);
  return o;
}

class FakeStore : public store::Store {
 public:
  Result<store::Stats> stats = store::Stats{};
  Result<store::Lookup> Find(const store::Message&) override {
    return Fail(Error::Internal("unused"));
  }
  Result<store::Recorded> Record(const store::Message&, const store::Join&,
                                 const store::WaveRule&) override {
    return Fail(Error::Internal("unused"));
  }
  Result<std::vector<store::Cluster>> Clusters(bool, const store::WaveRule&,
                                               store::UnixMillis,
                                               std::size_t) override {
    return Fail(Error::Internal("unused"));
  }
  Result<store::Lookup> Fetch(std::span<const std::int64_t>) override {
    return Fail(Error::Internal("unused"));
  }
  Result<std::uint64_t> ForEach(
      store::UnixMillis,
      const std::function<bool(std::int64_t, store::UnixMillis,
                               const fingerprint::Fingerprint&)>&) override {
    return Fail(Error::Internal("unused"));
  }
  Result<std::int64_t> ForEachNewer(
      std::int64_t, std::size_t,
      const std::function<bool(std::int64_t, store::UnixMillis,
                               const fingerprint::Fingerprint&)>&) override {
    return Fail(Error::Internal("unused"));
  }
  Result<std::optional<store::Cluster>> FindCluster(store::ClusterId) override {
    return Fail(Error::Internal("unused"));
  }
  Result<store::Cluster> SetMark(store::ClusterId, store::Mark,
                                 store::UnixMillis) override {
    return Fail(Error::Internal("unused"));
  }
  Result<std::vector<store::Member>> Members(store::ClusterId,
                                             std::size_t) override {
    return Fail(Error::Internal("unused"));
  }
  Result<std::uint64_t> Prune(store::UnixMillis, std::size_t,
                              std::size_t) override {
    return Fail(Error::Internal("unused"));
  }
  Result<store::Stats> GetStats() override { return stats; }
  Result<std::string> Check() override {
    return Fail(Error::Internal("unused"));
  }
};

TEST(MilterMetrics, VerdictsWavesAndMessages) {
  metrics::Registry r;
  MilterMetrics m(r);
  pipeline::Outcome none = Analysed();
  pipeline::Outcome cluster = Analysed();
  cluster.wave = pipeline::WaveVerdict{.cluster = 7, .size = 2};
  pipeline::Outcome wave = Analysed();
  wave.wave = pipeline::WaveVerdict{.cluster = 7, .size = 5, .wave = true};
  wave.recorded.emplace();
  wave.recorded->became_wave = true;
  pipeline::Outcome later_wave = wave;
  later_wave.recorded->became_wave = false;

  for (int i = 0; i < 6; ++i) m.CountMessage();
  m.RecordCheck(none, milliseconds(1));
  m.RecordCheck(cluster, milliseconds(1));
  m.RecordCheck(wave, milliseconds(1));
  m.RecordCheck(later_wave, milliseconds(1));
  m.RecordCheck(Fail(Error::InvalidArgument("empty")), microseconds(5));

  const std::string t = r.Render();
  EXPECT_EQ(Sample(t, "mailwave_messages_total"), 6);
  EXPECT_EQ(Sample(t, "mailwave_verdicts_total{verdict=\"none\"}"), 2);
  EXPECT_EQ(Sample(t, "mailwave_verdicts_total{verdict=\"cluster\"}"), 1);
  EXPECT_EQ(Sample(t, "mailwave_verdicts_total{verdict=\"wave\"}"), 2);
  EXPECT_EQ(Sample(t, "mailwave_waves_formed_total"), 1);
  EXPECT_EQ(Sample(t, "mailwave_errors_total{kind=\"unanalysed\"}"), 1);
  EXPECT_EQ(Sample(t, "mailwave_check_seconds_count"), 5);
  EXPECT_EQ(Sample(t, "mailwave_check_seconds_bucket{le=\"1e-05\"}"), 1);
  EXPECT_DOUBLE_EQ(Sample(t, "mailwave_check_seconds_sum"), 0.004005);
}

// Messages with a wave header count once by kind and why; an action once
// by what was asked of the MTA; every series is there from the start.
TEST(MilterMetrics, KindsAndActions) {
  metrics::Registry r;
  MilterMetrics m(r);
  using pipeline::Action;
  using pipeline::WaveKind;
  using pipeline::WaveReason;
  const auto with = [](WaveKind kind, WaveReason why, Action action) {
    pipeline::Outcome o = Analysed();
    o.wave = pipeline::WaveVerdict{
        .cluster = 7, .size = 5, .kind = kind, .reason = why, .wave = true};
    o.action = action;
    return o;
  };
  m.RecordCheck(
      with(WaveKind::kBulk, WaveReason::kAuthenticated, Action::kNone),
      milliseconds(1));
  m.RecordCheck(
      with(WaveKind::kBulk, WaveReason::kAuthenticated, Action::kNone),
      milliseconds(1));
  m.RecordCheck(with(WaveKind::kSpread, WaveReason::kSenders, Action::kReject),
                milliseconds(1));
  m.RecordCheck(with(WaveKind::kSpread, WaveReason::kSpam, Action::kQuarantine),
                milliseconds(1));
  m.RecordCheck(Analysed(), milliseconds(1));  // no wave header
  m.CountFailure(Failure::kAction);
  const std::string t = r.Render();
  EXPECT_EQ(Sample(t, "mailwave_kinds_total{kind=\"bulk\",why=\"auth\"}"), 2);
  EXPECT_EQ(Sample(t, "mailwave_kinds_total{kind=\"spread\",why=\"senders\"}"),
            1);
  EXPECT_EQ(Sample(t, "mailwave_kinds_total{kind=\"spread\",why=\"spam\"}"), 1);
  EXPECT_EQ(Sample(t, "mailwave_kinds_total{kind=\"bulk\",why=\"allow\"}"), 0);
  EXPECT_EQ(Sample(t, "mailwave_kinds_total{kind=\"bulk\",why=\"ham\"}"), 0);
  EXPECT_EQ(Sample(t, "mailwave_kinds_total{kind=\"spread\",why=\"unauth\"}"),
            0);
  EXPECT_EQ(Sample(t, "mailwave_kinds_total{kind=\"spread\",why=\"networks\"}"),
            0);
  EXPECT_EQ(Sample(t, "mailwave_actions_total{action=\"reject\"}"), 1);
  EXPECT_EQ(Sample(t, "mailwave_actions_total{action=\"quarantine\"}"), 1);
  EXPECT_EQ(Sample(t, "mailwave_actions_total{action=\"tempfail\"}"), 0);
  EXPECT_EQ(Sample(t, "mailwave_errors_total{kind=\"action\"}"), 1);
}

TEST(MilterMetrics, StagesThatRanAreObserved) {
  metrics::Registry r;
  MilterMetrics m(r);
  pipeline::Outcome o = Analysed();  // no store: lookup, decide, record are 0
  m.RecordCheck(o, milliseconds(1));
  o.analysis.timings.lookup = microseconds(37);
  o.analysis.timings.decide = microseconds(2);
  o.analysis.timings.record = microseconds(52);
  m.RecordCheck(o, milliseconds(1));
  const std::string t = r.Render();
  EXPECT_EQ(Sample(t, "mailwave_stage_cpu_seconds_count{stage=\"parse\"}"), 2);
  EXPECT_EQ(Sample(t, "mailwave_stage_cpu_seconds_count{stage=\"lookup\"}"), 1);
  EXPECT_EQ(Sample(t, "mailwave_stage_cpu_seconds_count{stage=\"record\"}"), 1);
  EXPECT_DOUBLE_EQ(
      Sample(t, "mailwave_stage_cpu_seconds_sum{stage=\"langid\"}"), 36e-6);
  // 40 µs: above the 25 µs bound, within 50 µs.
  EXPECT_EQ(Sample(t,
                   "mailwave_stage_cpu_seconds_bucket{stage=\"parse\","
                   "le=\"2.5e-05\"}"),
            0);
  EXPECT_EQ(Sample(t,
                   "mailwave_stage_cpu_seconds_bucket{stage=\"parse\","
                   "le=\"5e-05\"}"),
            2);
}

TEST(MilterMetrics, WindowQueriesAndTheirTime) {
  metrics::Registry r;
  MilterMetrics m(r);
  pipeline::Outcome index_only = Analysed();  // the index decided
  pipeline::Outcome asked = Analysed();
  asked.window_asked = true;
  asked.analysis.timings.window = microseconds(300);
  pipeline::Outcome matched = asked;
  matched.window_matched = true;
  matched.analysis.timings.window = milliseconds(3);
  m.RecordCheck(index_only, milliseconds(1));
  m.RecordCheck(asked, milliseconds(1));
  m.RecordCheck(matched, milliseconds(1));
  const std::string t = r.Render();
  EXPECT_EQ(Sample(t, "mailwave_window_queries_total{result=\"asked\"}"), 2);
  EXPECT_EQ(Sample(t, "mailwave_window_queries_total{result=\"matched\"}"), 1);
  EXPECT_EQ(Sample(t, "mailwave_window_seconds_count"), 2);
  EXPECT_DOUBLE_EQ(Sample(t, "mailwave_window_seconds_sum"), 0.0033);
}

TEST(MilterMetrics, QueueWaitIsAHistogramInSeconds) {
  metrics::Registry r;
  MilterMetrics m(r);
  m.RecordQueueWait(microseconds(40));  // under the 50 us bucket
  m.RecordQueueWait(milliseconds(30));
  const std::string t = r.Render();
  EXPECT_EQ(Sample(t, "mailwave_milter_queue_wait_seconds_count"), 2);
  EXPECT_DOUBLE_EQ(Sample(t, "mailwave_milter_queue_wait_seconds_sum"),
                   0.03004);
  EXPECT_EQ(
      Sample(t, "mailwave_milter_queue_wait_seconds_bucket{le=\"5e-05\"}"),
      1);
}

TEST(MilterMetrics, WarningsCountOncePerMessageAndKind) {
  metrics::Registry r;
  MilterMetrics m(r);
  pipeline::Outcome o = Analysed();
  using K = pipeline::WarningKind;
  o.analysis.warnings = {{K::kParser, "a"},
                         {K::kParser, "b"},
                         {K::kCharset, "c"},
                         {K::kStore, "d"}};
  m.RecordCheck(o, milliseconds(1));
  m.RecordCheck(o, milliseconds(1));
  m.CountFailure(Failure::kCallback);
  m.CountFailure(Failure::kEvent);
  m.CountFailure(Failure::kEvent);
  const std::string t = r.Render();
  EXPECT_EQ(Sample(t, "mailwave_errors_total{kind=\"parser\"}"), 2);
  EXPECT_EQ(Sample(t, "mailwave_errors_total{kind=\"charset\"}"), 2);
  EXPECT_EQ(Sample(t, "mailwave_errors_total{kind=\"store\"}"), 2);
  EXPECT_EQ(Sample(t, "mailwave_errors_total{kind=\"limit\"}"), 0);
  EXPECT_EQ(Sample(t, "mailwave_errors_total{kind=\"callback\"}"), 1);
  EXPECT_EQ(Sample(t, "mailwave_errors_total{kind=\"event\"}"), 2);
  // Every WarningKind has its series, named as the log names it.
  for (auto k : {K::kLimit, K::kBudget, K::kParser, K::kCharset, K::kEncoding,
                 K::kPart, K::kDegraded, K::kStore}) {
    EXPECT_GE(Sample(t, "mailwave_errors_total{kind=\"" +
                            std::string(pipeline::WarningName(k)) + "\"}"),
              0);
  }
}

TEST(MilterMetrics, StoreGauges) {
  metrics::Registry r;
  MilterMetrics m(r);
  FakeStore store;
  store::Stats stats;
  stats.messages = 1200;
  stats.clusters = 40;
  stats.waves = 3;
  stats.file_bytes = 4096000;
  stats.wal_bytes = 8192;
  stats.writable = false;
  store.stats = stats;
  m.RefreshStore(&store);
  m.RefreshStore(nullptr);
  std::string t = r.Render();
  EXPECT_EQ(Sample(t, "mailwave_store_messages"), 1200);
  EXPECT_EQ(Sample(t, "mailwave_store_clusters"), 40);
  EXPECT_EQ(Sample(t, "mailwave_store_waves"), 3);
  EXPECT_EQ(Sample(t, "mailwave_store_bytes"), 4104192);
  EXPECT_EQ(Sample(t, "mailwave_store_writable"), 0);
  // A failing store keeps the last values and is counted.
  store.stats = Fail(Error::Unavailable("busy"));
  m.RefreshStore(&store);
  t = r.Render();
  EXPECT_EQ(Sample(t, "mailwave_store_messages"), 1200);
  EXPECT_EQ(Sample(t, "mailwave_errors_total{kind=\"stats\"}"), 1);
  EXPECT_EQ(Sample(t, "mailwave_store_up"), 0);
  store.stats = stats;
  m.RefreshStore(&store);
  EXPECT_EQ(Sample(r.Render(), "mailwave_store_up"), 1);
}

// The store's state follows the messages: down with the first message whose
// store call failed, up with the next one it answered; a message that never
// asked it (no store, degraded) changes nothing.
TEST(MilterMetrics, StoreUpFollowsMessagesAndRelookupsCount) {
  metrics::Registry r;
  MilterMetrics m(r);
  pipeline::Outcome ok = Analysed();
  ok.analysis.timings.lookup = std::chrono::microseconds(30);
  ok.store_conflicts = 2;
  pipeline::Outcome failed = ok;
  failed.store_conflicts = 0;
  failed.analysis.warnings = {
      {pipeline::WarningKind::kStore, "store: lookup: redis: down"}};
  pipeline::Outcome no_store = Analysed();
  no_store.analysis.timings.lookup = {};
  m.RecordCheck(ok, milliseconds(1));
  EXPECT_EQ(Sample(r.Render(), "mailwave_store_up"), 1);
  m.RecordCheck(failed, milliseconds(1));
  EXPECT_EQ(Sample(r.Render(), "mailwave_store_up"), 0);
  m.RecordCheck(no_store, milliseconds(1));
  EXPECT_EQ(Sample(r.Render(), "mailwave_store_up"), 0);
  m.RecordCheck(ok, milliseconds(1));
  const std::string t = r.Render();
  EXPECT_EQ(Sample(t, "mailwave_store_up"), 1);
  EXPECT_EQ(Sample(t, "mailwave_store_relookups_total"), 4);
  EXPECT_EQ(Sample(t, "mailwave_errors_total{kind=\"store\"}"), 1);
}

TEST(MilterMetrics, ProcessRegistryHasEverySeriesOnce) {
  Metrics().CountMessage();
  const std::string t = ProcessRegistry().Render();
  EXPECT_GE(Sample(t, "mailwave_messages_total"), 1);
  EXPECT_EQ(t.find("# TYPE mailwave_messages_total counter\n"),
            t.rfind("# TYPE mailwave_messages_total counter\n"));
}

}  // namespace
}  // namespace mw::milter
