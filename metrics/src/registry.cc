#include "metrics/registry.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <variant>

namespace mw::metrics {

namespace {

bool ValidName(std::string_view name, bool colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                       c == '_' || (colon && c == ':');
    const bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0)) return false;
  }
  return true;
}

std::string FormatCount(std::uint64_t n) { return std::to_string(n); }

void AppendLabels(std::string& out, const Labels& labels,
                  std::string_view le = {}) {
  if (labels.empty() && le.empty()) return;
  out += '{';
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) out += ',';
    first = false;
    out += name;
    out += "=\"";
    out += EscapeLabelValue(value);
    out += '"';
  }
  if (!le.empty()) {
    if (!first) out += ',';
    out += "le=\"";
    out += le;
    out += '"';
  }
  out += '}';
}

}  // namespace

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      counts_(new std::atomic<std::uint64_t>[bounds_.size() + 1]) {
  for (std::size_t i = 0; i <= bounds_.size(); ++i)
    counts_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double v) noexcept {
  // First bound >= v: Prometheus' buckets are "less than or equal". NaN
  // compares false everywhere and lands in +Inf, as in the Go client.
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);
  counts_[static_cast<std::size_t>(it - bounds_.begin())].fetch_add(
      1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Reading Histogram::Read() const {
  Reading r;
  r.bounds = bounds_;
  r.cumulative.resize(bounds_.size() + 1);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    total += counts_[i].load(std::memory_order_relaxed);
    r.cumulative[i] = total;
  }
  r.sum = sum_.load(std::memory_order_relaxed);
  return r;
}

std::vector<double> LatencyBuckets() {
  return {1e-5,  2.5e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01,
          0.025, 0.05,   0.1,  0.25, 0.5,    1,    2.5,  5,      10};
}

struct Registry::Family {
  std::string name;
  std::string help;
  Type type;
  std::vector<double> bounds;  // histograms
  struct Series {
    Labels labels;
    std::variant<std::unique_ptr<Counter>, std::unique_ptr<Gauge>,
                 std::unique_ptr<Histogram>>
        metric;
  };
  std::vector<Series> series;
};

Registry::Registry() = default;
Registry::~Registry() = default;

Result<Registry::Family*> Registry::FamilyFor(
    std::string_view name, std::string_view help, Type type,
    const Labels& labels, const std::vector<double>* bounds) {
  const std::string who = "metric " + std::string(name);
  if (!ValidName(name, true))
    return Fail(Error::InvalidArgument(who + ": invalid name"));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::string& l = labels[i].first;
    if (!ValidName(l, false) || l.starts_with("__") ||
        (type == Type::kHistogram && l == "le")) {
      return Fail(
          Error::InvalidArgument(who + ": invalid label name '" + l + "'"));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (labels[j].first == l)
        return Fail(Error::InvalidArgument(who + ": label '" + l + "' twice"));
    }
  }
  if (bounds != nullptr) {
    for (std::size_t i = 0; i < bounds->size(); ++i) {
      if (!std::isfinite((*bounds)[i]) ||
          (i > 0 && (*bounds)[i] <= (*bounds)[i - 1])) {
        return Fail(Error::InvalidArgument(
            who + ": bucket bounds must be finite and increasing"));
      }
    }
  }
  Family* family = nullptr;
  for (auto& f : families_) {
    if (f->name == name) family = f.get();
  }
  if (family == nullptr) {
    families_.push_back(std::make_unique<Family>());
    family = families_.back().get();
    family->name = name;
    family->help = help;
    family->type = type;
    if (bounds != nullptr) family->bounds = *bounds;
    return family;
  }
  if (family->type != type)
    return Fail(Error::InvalidArgument(who + ": registered with another type"));
  if (bounds != nullptr && family->bounds != *bounds)
    return Fail(Error::InvalidArgument(who + ": other bucket bounds"));
  for (const auto& s : family->series) {
    if (s.labels == labels)
      return Fail(Error::InvalidArgument(who + ": label set registered twice"));
    // One family, one set of label names: a query by label must see them all.
    bool same_names = s.labels.size() == labels.size();
    for (std::size_t i = 0; same_names && i < labels.size(); ++i)
      same_names = s.labels[i].first == labels[i].first;
    if (!same_names)
      return Fail(Error::InvalidArgument(who + ": other label names"));
  }
  return family;
}

Result<Counter*> Registry::AddCounter(std::string_view name,
                                      std::string_view help, Labels labels) {
  std::lock_guard<std::mutex> lock(mu_);
  auto family = FamilyFor(name, help, Type::kCounter, labels, nullptr);
  if (!family) return Fail(family.error());
  auto counter = std::make_unique<Counter>();
  Counter* result = counter.get();
  (*family)->series.push_back({std::move(labels), std::move(counter)});
  return result;
}

Result<Gauge*> Registry::AddGauge(std::string_view name, std::string_view help,
                                  Labels labels) {
  std::lock_guard<std::mutex> lock(mu_);
  auto family = FamilyFor(name, help, Type::kGauge, labels, nullptr);
  if (!family) return Fail(family.error());
  auto gauge = std::make_unique<Gauge>();
  Gauge* result = gauge.get();
  (*family)->series.push_back({std::move(labels), std::move(gauge)});
  return result;
}

Result<Histogram*> Registry::AddHistogram(std::string_view name,
                                          std::string_view help,
                                          std::vector<double> bounds,
                                          Labels labels) {
  std::lock_guard<std::mutex> lock(mu_);
  auto family = FamilyFor(name, help, Type::kHistogram, labels, &bounds);
  if (!family) return Fail(family.error());
  auto histogram = std::make_unique<Histogram>(std::move(bounds));
  Histogram* result = histogram.get();
  (*family)->series.push_back({std::move(labels), std::move(histogram)});
  return result;
}

std::string Registry::Render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  for (const auto& f : families_) {
    out += "# HELP ";
    out += f->name;
    out += ' ';
    out += EscapeHelp(f->help);
    out += "\n# TYPE ";
    out += f->name;
    out += f->type == Type::kCounter ? " counter\n"
           : f->type == Type::kGauge ? " gauge\n"
                                     : " histogram\n";
    for (const auto& s : f->series) {
      if (const auto* c = std::get_if<std::unique_ptr<Counter>>(&s.metric)) {
        out += f->name;
        AppendLabels(out, s.labels);
        out += ' ' + FormatCount((*c)->Value()) + '\n';
      } else if (const auto* g =
                     std::get_if<std::unique_ptr<Gauge>>(&s.metric)) {
        out += f->name;
        AppendLabels(out, s.labels);
        out += ' ' + FormatValue((*g)->Value()) + '\n';
      } else {
        const auto& h = std::get<std::unique_ptr<Histogram>>(s.metric);
        const Histogram::Reading r = h->Read();
        for (std::size_t i = 0; i <= r.bounds.size(); ++i) {
          out += f->name;
          out += "_bucket";
          AppendLabels(out, s.labels,
                       i < r.bounds.size() ? FormatValue(r.bounds[i]) : "+Inf");
          out += ' ' + FormatCount(r.cumulative[i]) + '\n';
        }
        out += f->name;
        out += "_sum";
        AppendLabels(out, s.labels);
        out += ' ' + FormatValue(r.sum) + '\n';
        out += f->name;
        out += "_count";
        AppendLabels(out, s.labels);
        out += ' ' + FormatCount(r.cumulative.back()) + '\n';
      }
    }
  }
  return out;
}

std::string EscapeHelp(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string EscapeLabelValue(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  // Whole numbers (store sizes) as plain integers for the human reader:
  // to_chars' shortest form would write 4096000 as 4.096e+06.
  if (std::trunc(v) == v && std::fabs(v) < 0x1p53)
    return std::to_string(static_cast<std::int64_t>(v));
  char buf[32];
  // Otherwise the shortest form that reads back as `v`.
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace mw::metrics
