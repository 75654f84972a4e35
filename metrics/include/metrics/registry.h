// Counters, gauges and histograms, and their Prometheus text exposition
// (format 0.0.4: https://prometheus.io/docs/instrumenting/exposition_formats/).
//
// A Registry holds metric families (a name, a help line, a type) and their
// series (one per label set). Registration is the cold path, once at start;
// it returns a pointer that stays valid for the registry's life, and
// recording through it is the hot path: Counter::Inc is one relaxed atomic
// add, Histogram::Observe a bucket search over a handful of bounds and two
// relaxed atomic updates. No recording call takes a lock or allocates.
//
// Thread-safety: every member of every class here may be called from any
// number of threads at once. Render reads each value atomically but not all
// values at one instant: a scrape during a burst may show a counter that
// is one message ahead of another (Prometheus tolerates that; each series is
// monotonic on its own). A histogram's _count is the sum of its buckets, so
// the two always agree; its _sum may lag or lead them by the observations in
// flight.
#ifndef MW_METRICS_REGISTRY_H_
#define MW_METRICS_REGISTRY_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mw/result.h"

namespace mw::metrics {

// Label pairs (name, value), printed in this order. Names match
// [a-zA-Z_][a-zA-Z0-9_]* and do not start with "__"; values are any UTF-8
// (escaped on output).
using Labels = std::vector<std::pair<std::string, std::string>>;

// A monotonic count.
class Counter {
 public:
  void Inc(std::uint64_t n = 1) noexcept {
    value_.fetch_add(n, std::memory_order_relaxed);
  }
  std::uint64_t Value() const noexcept {
    return value_.load(std::memory_order_relaxed);
  }

 private:
  std::atomic<std::uint64_t> value_{0};
};

// A value that goes up and down (store size).
class Gauge {
 public:
  void Set(double v) noexcept { value_.store(v, std::memory_order_relaxed); }
  double Value() const noexcept {
    return value_.load(std::memory_order_relaxed);
  }

 private:
  std::atomic<double> value_{0};
};

// Observations counted into fixed buckets. Bucket i counts observations
// v <= bounds[i] (and above bounds[i-1]); one more counts those above the
// last bound (le="+Inf"). Exposition makes them cumulative.
class Histogram {
 public:
  // REQUIRES: `bounds` finite and strictly increasing (Registry checks).
  explicit Histogram(std::vector<double> bounds);

  void Observe(double v) noexcept;
  void ObserveSeconds(std::chrono::nanoseconds d) noexcept {
    Observe(static_cast<double>(d.count()) * 1e-9);
  }

  struct Reading {
    std::vector<double> bounds;
    // cumulative[i]: observations <= bounds[i]; the last (one more than
    // bounds) is every observation, the +Inf bucket and _count.
    std::vector<std::uint64_t> cumulative;
    double sum = 0;
  };
  Reading Read() const;

 private:
  const std::vector<double> bounds_;
  // bounds_.size() + 1 counters, not cumulative.
  const std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;
  std::atomic<double> sum_{0};
};

// Bucket bounds in seconds for a stage of one message's check: 10 µs to
// 10 s, about three per decade (1, 2.5, 5).
std::vector<double> LatencyBuckets();

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // Each adds one series to the family `name`, creating the family (with
  // `help`) on first use. Errors, all kInvalidArgument naming the metric: a
  // name outside [a-zA-Z_:][a-zA-Z0-9_:]*, a bad label name (or "le" on a
  // histogram), a family of that name with another type, a label set the
  // family already has, a family whose series have different label names,
  // and histogram bounds that are not finite and strictly increasing or
  // differ from the family's. The result is owned by the registry.
  Result<Counter*> AddCounter(std::string_view name, std::string_view help,
                              Labels labels = {});
  Result<Gauge*> AddGauge(std::string_view name, std::string_view help,
                          Labels labels = {});
  Result<Histogram*> AddHistogram(std::string_view name, std::string_view help,
                                  std::vector<double> bounds,
                                  Labels labels = {});

  // Every family in registration order, series in registration order, in
  // text format 0.0.4: "# HELP", "# TYPE", then the samples; histograms as
  // _bucket{...,le="..."} (cumulative, ending with le="+Inf"), _sum and
  // _count. Ends with a newline (empty when nothing is registered).
  std::string Render() const;

 private:
  struct Family;
  enum class Type { kCounter, kGauge, kHistogram };
  Result<Family*> FamilyFor(std::string_view name, std::string_view help,
                            Type type, const Labels& labels,
                            const std::vector<double>* bounds);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Family>> families_;  // guarded by mu_
};

// Text exposition helpers, public for the tests of the format.
// HELP text: backslash and newline escaped.
std::string EscapeHelp(std::string_view text);
// Label value: backslash, double quote and newline escaped.
std::string EscapeLabelValue(std::string_view text);
// A sample value as Prometheus parses it: "+Inf", "-Inf", "NaN", otherwise
// a whole number below 2^53 as an integer ("4096000"), anything else as the
// shortest decimal that reads back as `v` ("0.005", "1e-05").
std::string FormatValue(double v);

}  // namespace mw::metrics

#endif  // MW_METRICS_REGISTRY_H_
