#include "metrics/registry.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace mw::metrics {
namespace {

TEST(Render, GoldenTextForASmallRegistry) {
  Registry r;
  Counter* messages = *r.AddCounter("mw_messages_total", "Messages seen.");
  Counter* none =
      *r.AddCounter("mw_verdicts_total", "Verdicts.", {{"verdict", "none"}});
  Counter* wave =
      *r.AddCounter("mw_verdicts_total", "ignored", {{"verdict", "wave"}});
  Gauge* size =
      *r.AddGauge("mw_store_bytes", "Store size.\nIn bytes \\ on disk.");
  Histogram* h = *r.AddHistogram("mw_seconds", "Latency.", {0.25, 0.5, 1},
                                 {{"stage", "parse"}});
  messages->Inc(3);
  none->Inc(2);
  wave->Inc();
  size->Set(4096000);
  h->Observe(0.125);
  h->Observe(0.25);  // on a bound: counts in that bucket (le is <=)
  h->Observe(0.75);
  h->Observe(3);
  EXPECT_EQ(r.Render(),
            "# HELP mw_messages_total Messages seen.\n"
            "# TYPE mw_messages_total counter\n"
            "mw_messages_total 3\n"
            "# HELP mw_verdicts_total Verdicts.\n"
            "# TYPE mw_verdicts_total counter\n"
            "mw_verdicts_total{verdict=\"none\"} 2\n"
            "mw_verdicts_total{verdict=\"wave\"} 1\n"
            "# HELP mw_store_bytes Store size.\\nIn bytes \\\\ on disk.\n"
            "# TYPE mw_store_bytes gauge\n"
            "mw_store_bytes 4096000\n"
            "# HELP mw_seconds Latency.\n"
            "# TYPE mw_seconds histogram\n"
            "mw_seconds_bucket{stage=\"parse\",le=\"0.25\"} 2\n"
            "mw_seconds_bucket{stage=\"parse\",le=\"0.5\"} 2\n"
            "mw_seconds_bucket{stage=\"parse\",le=\"1\"} 3\n"
            "mw_seconds_bucket{stage=\"parse\",le=\"+Inf\"} 4\n"
            "mw_seconds_sum{stage=\"parse\"} 4.125\n"
            "mw_seconds_count{stage=\"parse\"} 4\n");
}

TEST(Render, EmptyRegistryIsEmpty) { EXPECT_EQ(Registry().Render(), ""); }

TEST(Render, UnlabelledHistogramHasOnlyLe) {
  Registry r;
  Histogram* h = *r.AddHistogram("h", "x", {1});
  h->Observe(2);
  EXPECT_EQ(r.Render(),
            "# HELP h x\n# TYPE h histogram\nh_bucket{le=\"1\"} 0\n"
            "h_bucket{le=\"+Inf\"} 1\nh_sum 2\nh_count 1\n");
}

TEST(Render, LabelValuesAreEscaped) {
  Registry r;
  Counter* c = *r.AddCounter(
      "c", "x", {{"a", "back\\slash \"quoted\"\nnext"}, {"b", "ünïcode"}});
  c->Inc();
  EXPECT_EQ(r.Render(),
            "# HELP c x\n# TYPE c counter\n"
            "c{a=\"back\\\\slash \\\"quoted\\\"\\nnext\",b=\"ünïcode\"} 1\n");
}

TEST(Histogram, BucketsAreCumulativeAndCountIsTheLast) {
  Histogram h(LatencyBuckets());
  const std::vector<double> values = {0,    1e-6, 3e-5, 1e-4, 0.002,
                                      0.04, 0.04, 0.3,  1.5,  9.9,
                                      10,   11,   1e9,  5e-4, 5e-4};
  double sum = 0;
  for (double v : values) {
    h.Observe(v);
    sum += v;
  }
  const Histogram::Reading r = h.Read();
  ASSERT_EQ(r.cumulative.size(), r.bounds.size() + 1);
  for (std::size_t i = 0; i < r.bounds.size(); ++i) {
    std::uint64_t expected = 0;
    for (double v : values) expected += v <= r.bounds[i] ? 1 : 0;
    EXPECT_EQ(r.cumulative[i], expected) << "le=" << r.bounds[i];
    if (i > 0) {
      EXPECT_GE(r.cumulative[i], r.cumulative[i - 1]);
    }
  }
  EXPECT_EQ(r.cumulative.back(), values.size());
  EXPECT_DOUBLE_EQ(r.sum, sum);
}

TEST(Histogram, ObserveSecondsConverts) {
  Histogram h({0.001, 0.002});
  h.ObserveSeconds(std::chrono::microseconds(1500));
  const auto r = h.Read();
  EXPECT_EQ(r.cumulative, (std::vector<std::uint64_t>{0, 1, 1}));
  EXPECT_DOUBLE_EQ(r.sum, 0.0015);
}

TEST(FormatValue, AsPrometheusReadsThem) {
  EXPECT_EQ(FormatValue(0), "0");
  EXPECT_EQ(FormatValue(42), "42");
  EXPECT_EQ(FormatValue(-3), "-3");
  EXPECT_EQ(FormatValue(0.005), "0.005");
  EXPECT_EQ(FormatValue(2.5e-5), "2.5e-05");
  EXPECT_EQ(FormatValue(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(FormatValue(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(FormatValue(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatValue(1e300), "1e+300");
}

TEST(Registry, RejectsWhatWouldBreakTheFormat) {
  Registry r;
  EXPECT_FALSE(r.AddCounter("9lives", "x"));
  EXPECT_FALSE(r.AddCounter("has-dash", "x"));
  EXPECT_FALSE(r.AddCounter("", "x"));
  EXPECT_TRUE(r.AddCounter("ns:sub_total", "x"));
  EXPECT_FALSE(r.AddCounter("c", "x", {{"__reserved", "v"}}));
  EXPECT_FALSE(r.AddCounter("c", "x", {{"a:b", "v"}}));
  EXPECT_FALSE(r.AddCounter("c", "x", {{"a", "1"}, {"a", "2"}}));
  EXPECT_FALSE(r.AddHistogram("h", "x", {1}, {{"le", "1"}}));
  EXPECT_FALSE(r.AddHistogram("h", "x", {1, 1}));
  EXPECT_FALSE(r.AddHistogram("h", "x", {2, 1}));
  EXPECT_FALSE(
      r.AddHistogram("h", "x", {1, std::numeric_limits<double>::infinity()}));

  ASSERT_TRUE(r.AddCounter("fam", "x", {{"kind", "a"}}));
  const auto twice = r.AddCounter("fam", "x", {{"kind", "a"}});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().message(), "metric fam: label set registered twice");
  EXPECT_FALSE(r.AddCounter("fam", "x", {{"other", "a"}}));
  EXPECT_FALSE(r.AddCounter("fam", "x"));
  EXPECT_FALSE(r.AddGauge("fam", "x", {{"kind", "b"}}));
  ASSERT_TRUE(r.AddHistogram("hist", "x", {1, 2}, {{"s", "a"}}));
  EXPECT_FALSE(r.AddHistogram("hist", "x", {1, 3}, {{"s", "b"}}));
  // Nothing rejected left a trace in the output.
  EXPECT_EQ(r.Render().find("9lives"), std::string::npos);
  EXPECT_EQ(r.Render().find("other"), std::string::npos);
}

// Many threads recording at once lose nothing: the totals are exact.
TEST(Concurrency, TotalsAreExact) {
  Registry r;
  Counter* c = *r.AddCounter("c", "x");
  Histogram* h = *r.AddHistogram("h", "x", {0.5, 1.5});
  constexpr int kThreads = 8;
  constexpr int kPerThread = 100'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        c->Inc();
        h->Observe((i + t) % 2 == 0 ? 1.0 : 0.0);  // exact binary sums
      }
    });
  }
  // Render while they run: must not crash or block them; the values seen
  // are whatever they are at that instant.
  for (int i = 0; i < 20; ++i) (void)r.Render();
  for (auto& t : threads) t.join();
  EXPECT_EQ(c->Value(), std::uint64_t{kThreads} * kPerThread);
  const auto read = h->Read();
  EXPECT_EQ(read.cumulative,
            (std::vector<std::uint64_t>{kThreads * kPerThread / 2,
                                        kThreads * kPerThread,
                                        kThreads * kPerThread}));
  EXPECT_EQ(read.sum, kThreads * kPerThread / 2.0);
}

TEST(Concurrency, RegistrationWhileRendering) {
  Registry r;
  std::thread writer([&] {
    for (int i = 0; i < 500; ++i)
      ASSERT_TRUE(r.AddCounter("c", "x", {{"n", std::to_string(i)}}));
  });
  for (int i = 0; i < 50; ++i) (void)r.Render();
  writer.join();
  const std::string text = r.Render();
  EXPECT_NE(text.find("c{n=\"499\"} 0\n"), std::string::npos);
}

}  // namespace
}  // namespace mw::metrics
