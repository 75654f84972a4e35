// metrics_bench: nanoseconds the metrics add to one message at end of
// message (docs/milter.md, "Metrics"), and the cost of one scrape.
//
//   build/bin/metrics_bench [--benchmark_filter=...]
//
// BM_RecordMessage is exactly what callbacks.cc runs per message:
// CountMessage and RecordCheck for a message with a cluster verdict, one
// parser warning and all seven stage times (eight histogram observations,
// four counters). Threads(2) has both threads record into the same series,
// the worst case for cache-line sharing (this machine has 2 cores).
#include <benchmark/benchmark.h>

#include "metrics/registry.h"
#include "milter/src/metrics_hooks.h"

namespace {

using std::chrono::microseconds;

mw::pipeline::Outcome Typical() {
  mw::pipeline::Outcome o;
  auto& t = o.analysis.timings;
  t.parse = microseconds(38);
  t.normalise = microseconds(3);
  t.langid = microseconds(18);
  t.fingerprint = microseconds(14);
  t.lookup = microseconds(37);
  t.decide = microseconds(2);
  t.record = microseconds(52);
  o.wave = mw::pipeline::WaveVerdict{.cluster = 7, .size = 2};
  o.analysis.warnings.push_back({mw::pipeline::WarningKind::kParser, "x"});
  return o;
}

mw::milter::MilterMetrics& Shared() {
  static mw::metrics::Registry registry;
  static mw::milter::MilterMetrics metrics(registry);
  return metrics;
}

void BM_RecordMessage(benchmark::State& state) {
  const mw::Result<mw::pipeline::Outcome> outcome = Typical();
  auto& m = Shared();
  for (auto _ : state) {
    m.CountMessage();
    m.RecordCheck(outcome, microseconds(170));
  }
}
BENCHMARK(BM_RecordMessage)->Threads(1)->Threads(2)->UseRealTime();

void BM_CounterInc(benchmark::State& state) {
  static mw::metrics::Counter counter;
  for (auto _ : state) counter.Inc();
}
BENCHMARK(BM_CounterInc)->Threads(1)->Threads(2)->UseRealTime();

void BM_HistogramObserve(benchmark::State& state) {
  static mw::metrics::Histogram h(mw::metrics::LatencyBuckets());
  double v = 1e-4;
  for (auto _ : state) {
    h.Observe(v);
    v = v < 1 ? v * 1.7 : 1e-5;  // walk the buckets
  }
}
BENCHMARK(BM_HistogramObserve)->Threads(1)->Threads(2)->UseRealTime();

// One scrape of the milter's whole registry (what the server thread does).
void BM_Render(benchmark::State& state) {
  mw::metrics::Registry registry;
  mw::milter::MilterMetrics m(registry);
  m.RecordCheck(Typical(), microseconds(170));
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = registry.Render();
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Render)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
