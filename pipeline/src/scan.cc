// The archive scan (scan.h): read and analyse on every core, candidates from
// the engine and two indexes, verification, canonical-centred clusters.
#include "pipeline/scan.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include "archive/date.h"
#include "fingerprint/verify.h"
#include "pipeline/cluster.h"
#include "pipeline/verdict.h"

namespace mw::pipeline {
namespace {

using Clock = std::chrono::steady_clock;
using Pair = std::pair<std::uint32_t, std::uint32_t>;

std::uint64_t Key(std::uint32_t a, std::uint32_t b) {
  if (a > b) std::swap(a, b);
  return (static_cast<std::uint64_t>(a) << 32) | b;
}

// Runs fn(i) for i in [0, n) on `threads` threads.
template <typename Fn>
void ParallelFor(std::size_t n, unsigned threads, Fn fn) {
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::jthread> pool;
  const unsigned extra =
      static_cast<unsigned>(std::min<std::size_t>(threads, n)) - (n > 0);
  for (unsigned t = 0; t < extra; ++t) pool.emplace_back(work);
  work();
}

// What the analysis leaves of a message for the later stages.
struct Item {
  bool ok = false;
  std::string error;
  std::string message_id;
  std::optional<std::int64_t> date;
  bool degraded = false;
  std::uint64_t body_bytes = 0;
  fingerprint::Fingerprint fp;
};

class PairVerifier {
 public:
  PairVerifier(const Analyzer& analyzer,
               std::span<const archive::Entry> entries,
               const std::vector<std::uint32_t>& entry_of,
               const std::vector<Item>& items, const ScanOptions& options)
      : analyzer_(analyzer),
        entries_(entries),
        entry_of_(entry_of),
        items_(items),
        options_(options),
        texts_(entry_of.size()) {}

  // The fingerprints' verdict; nullopt when the texts must decide.
  std::optional<Verification> ByFingerprint(std::uint32_t a,
                                            std::uint32_t b) const {
    const fingerprint::Comparison c =
        fingerprint::Compare(Fp(a), Fp(b), analyzer_.fingerprint_options());
    if (!c.duplicate) return std::nullopt;
    return Verification{true, std::optional<double>(Similarity(c)),
                        std::string(fingerprint::MethodName(c.method))};
  }

  bool TextWanted(std::uint32_t m) const {
    return items_[entry_of_[m]].body_bytes <= options_.text_max_bytes;
  }

  // Loads m's normalised body within the memory bound; false when it is not
  // kept. Safe on several threads for different m.
  bool Load(std::uint32_t m) {
    if (texts_[m]) return true;
    if (!TextWanted(m)) return false;
    const std::uint64_t size = items_[entry_of_[m]].body_bytes;
    if (memory_.fetch_add(size) + size > options_.text_memory) {
      memory_.fetch_sub(size);
      return false;
    }
    auto bytes = archive::Read(entries_[entry_of_[m]],
                               analyzer_.settings().mime.max_bytes);
    if (!bytes) return false;
    auto text = ToText(*bytes, false, analyzer_.mime_limits());
    if (!text) return false;
    texts_[m] = std::move(text->body);
    return true;
  }

  // The text verdict for a pair Compare did not call duplicates.
  Verification ByText(std::uint32_t a, std::uint32_t b) {
    if (!texts_[a] || !texts_[b]) {
      ++text_skipped_;
      return {};
    }
    const std::string& x = *texts_[a];
    const std::string& y = *texts_[b];
    if (x.empty() || y.empty()) return {};
    // The distance is at least the length difference: no need to compute it
    // when that alone reaches the threshold.
    const double bound = std::fabs(static_cast<double>(x.size()) -
                                   static_cast<double>(y.size())) /
                         static_cast<double>(x.size() + y.size());
    if (bound >= options_.text_threshold) return {};
    ++text_checks_;
    // Most pairs here fail: the bounded distance gives up as soon as the rate
    // must reach the threshold. The bound is one over the largest distance
    // under it, so the rate below decides exactly as before.
    const double total = static_cast<double>(x.size() + y.size());
    const auto bound_distance =
        static_cast<std::uint64_t>(options_.text_threshold * total) + 1;
    const std::optional<std::uint64_t> distance =
        fingerprint::TextEditDistanceWithin(x, y, bound_distance);
    if (!distance) return {};
    const double rate = static_cast<double>(*distance) / total;
    if (rate >= options_.text_threshold) return {};
    return Verification{true, 1.0 - rate, "text"};
  }

  Verification Verify(std::uint32_t a, std::uint32_t b) {
    if (auto v = ByFingerprint(a, b)) return *v;
    if (!TextWanted(a) || !TextWanted(b)) {
      ++text_skipped_;
      return {};
    }
    Load(a);
    Load(b);
    return ByText(a, b);
  }

  std::size_t text_checks() const { return text_checks_; }
  std::size_t text_skipped() const { return text_skipped_; }

 private:
  const fingerprint::Fingerprint& Fp(std::uint32_t m) const {
    return items_[entry_of_[m]].fp;
  }

  const Analyzer& analyzer_;
  std::span<const archive::Entry> entries_;
  const std::vector<std::uint32_t>& entry_of_;
  const std::vector<Item>& items_;
  const ScanOptions& options_;
  std::vector<std::optional<std::string>> texts_;
  std::atomic<std::uint64_t> memory_{0};
  std::atomic<std::size_t> text_checks_{0};
  std::atomic<std::size_t> text_skipped_{0};
};

}  // namespace

Result<ScanReport> Scan(const Analyzer& analyzer,
                        std::span<const archive::Entry> entries,
                        const ScanOptions& options) {
  const Clock::time_point start = Clock::now();
  const unsigned threads =
      options.threads ? options.threads
                      : std::max(1u, std::thread::hardware_concurrency());
  ScanReport report;
  ScanMeta& meta = report.meta;
  meta.entries = entries.size();
  meta.threads = threads;
  std::string fallback;
  auto engine = gpu::MakeEngine(options.backend, threads, &fallback);
  if (!engine) return Fail(engine.error());
  meta.backend = std::string((*engine)->Name());
  meta.fallback_reason = fallback;

  // Read and analyse. Each thread holds one message's bytes at a time.
  std::vector<Item> items(entries.size());
  std::atomic<std::size_t> done{0};
  std::atomic<std::int64_t> read_ns{0}, analyse_ns{0};
  std::mutex mu;
  std::condition_variable finished;
  {
    std::jthread runner([&] {
      ParallelFor(entries.size(), threads, [&](std::size_t i) {
        const Clock::time_point t0 = Clock::now();
        auto bytes =
            archive::Read(entries[i], analyzer.settings().mime.max_bytes);
        const Clock::time_point t1 = Clock::now();
        read_ns += (t1 - t0).count();
        Item& it = items[i];
        if (!bytes) {
          it.error = bytes.error().message();
        } else {
          it.date = archive::MessageDate(*bytes);
          auto a = analyzer.Analyze(*bytes, Envelope{});
          if (!a) {
            it.error = entries[i].name + ": " + a.error().message();
          } else {
            it.ok = true;
            it.message_id = std::move(a->message_id);
            it.degraded = a->degraded;
            it.body_bytes = a->body_bytes;
            it.fp = std::move(a->fingerprint);
          }
          analyse_ns += (Clock::now() - t1).count();
        }
        if (++done == entries.size()) {
          std::lock_guard lock(mu);
          finished.notify_all();
        }
      });
    });
    std::unique_lock lock(mu);
    while (done < entries.size()) {
      finished.wait_for(lock, std::chrono::milliseconds(100));
      if (options.progress) options.progress(done, entries.size());
    }
  }
  meta.times.read_analyse = Clock::now() - start;
  meta.times.read = std::chrono::nanoseconds(read_ns.load());
  meta.times.analyse = std::chrono::nanoseconds(analyse_ns.load());

  // The messages that were read, in listing order.
  std::vector<std::uint32_t> entry_of;
  for (std::uint32_t i = 0; i < items.size(); ++i) {
    if (!items[i].ok) {
      report.problems.push_back({entries[i].name, items[i].error});
      continue;
    }
    entry_of.push_back(i);
    ScannedMessage m;
    m.path = entries[i].name;
    m.message_id = items[i].message_id;
    m.date = items[i].date;
    m.time = items[i].date.value_or(entries[i].mtime);
    m.degraded = items[i].degraded;
    m.body_bytes = items[i].body_bytes;
    report.messages.push_back(std::move(m));
  }
  meta.messages = report.messages.size();
  meta.unreadable = report.problems.size();
  const auto n = static_cast<std::uint32_t>(report.messages.size());
  auto fp = [&](std::uint32_t m) -> const fingerprint::Fingerprint& {
    return items[entry_of[m]].fp;
  };

  // Candidates. Degraded and empty bodies take no part: Compare never calls
  // them duplicates, and all empty bodies would pair by SimHash.
  Clock::time_point t = Clock::now();
  std::vector<std::uint32_t> eligible;
  for (std::uint32_t m = 0; m < n; ++m) {
    if (report.messages[m].degraded) ++meta.degraded;
    if (!report.messages[m].degraded && report.messages[m].body_bytes > 0)
      eligible.push_back(m);
  }
  std::unordered_map<std::uint64_t, std::uint8_t> pairs;
  {
    std::vector<gpu::Signature> sigs;
    sigs.reserve(eligible.size());
    for (std::uint32_t m : eligible) sigs.push_back(gpu::ToSignature(fp(m)));
    const std::pair<gpu::Kind, std::size_t*> kinds[] = {
        {gpu::Kind::kCtph, &meta.pairs_ctph},
        {gpu::Kind::kSimHash, &meta.pairs_simhash},
        {gpu::Kind::kSketch, &meta.pairs_sketch}};
    for (auto [kind, count] : kinds) {
      auto matches = (*engine)->AllPairs(sigs, kind, options.thresholds);
      if (!matches) return Fail(matches.error());
      *count = matches->size();
      for (const gpu::Match& match : *matches) {
        pairs[Key(eligible[match.query], eligible[match.item])] |=
            static_cast<std::uint8_t>(kind);
      }
    }
  }
  // Equal bodies: each paired with the earliest of its kind (a star, not
  // every pair of a thousand copies).
  std::vector<std::uint32_t> by_time = eligible;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](std::uint32_t a, std::uint32_t b) {
                     return report.messages[a].time < report.messages[b].time;
                   });
  {
    std::map<fingerprint::Sha1, std::uint32_t> first;
    for (std::uint32_t m : by_time) {
      auto [it, inserted] = first.emplace(fp(m).body_sha1, m);
      if (!inserted) {
        pairs[Key(it->second, m)] |= 8;
        ++meta.pairs_exact;
      }
    }
  }
  // Shared block keys.
  {
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> index;
    std::vector<std::uint32_t> distinct(n, 0);
    std::vector<std::uint64_t> keys;
    for (std::uint32_t m : eligible) {
      keys.clear();
      for (const auto& k : fp(m).blocks.keys) keys.push_back(k.key);
      if (fp(m).other_blocks) {
        for (const auto& k : fp(m).other_blocks->keys) keys.push_back(k.key);
      }
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      distinct[m] = static_cast<std::uint32_t>(keys.size());
      for (std::uint64_t k : keys) index[k].push_back(m);
    }
    std::unordered_map<std::uint64_t, std::uint32_t> shared;
    for (const auto& [key, posting] : index) {
      if (posting.size() < 2 || posting.size() > options.block_key_max_messages)
        continue;
      for (std::size_t i = 0; i < posting.size(); ++i) {
        for (std::size_t j = i + 1; j < posting.size(); ++j)
          ++shared[Key(posting[i], posting[j])];
      }
    }
    for (const auto& [key, count] : shared) {
      const auto a = static_cast<std::uint32_t>(key >> 32);
      const auto b = static_cast<std::uint32_t>(key);
      const double need =
          std::max(1.0, std::ceil(options.block_min_share *
                                  std::min(distinct[a], distinct[b])));
      if (count >= need) {
        pairs[key] |= 16;
        ++meta.pairs_blocks;
      }
    }
  }
  std::vector<Pair> candidates;
  candidates.reserve(pairs.size());
  for (const auto& [key, sources] : pairs) {
    candidates.emplace_back(static_cast<std::uint32_t>(key >> 32),
                            static_cast<std::uint32_t>(key));
  }
  std::sort(candidates.begin(), candidates.end());
  meta.pairs = candidates.size();
  meta.times.candidates = Clock::now() - t;

  // Verification of every candidate pair, on every core: the fingerprints
  // first, then the texts of the pairs they leave.
  t = Clock::now();
  PairVerifier verifier(analyzer, entries, entry_of, items, options);
  std::vector<Verification> verdicts(candidates.size());
  std::vector<std::uint8_t> by_text(candidates.size(), 0);
  ParallelFor(candidates.size(), threads, [&](std::size_t i) {
    auto v = verifier.ByFingerprint(candidates[i].first, candidates[i].second);
    if (v) {
      verdicts[i] = std::move(*v);
    } else {
      by_text[i] = 1;
    }
  });
  std::vector<std::uint32_t> need_text;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!by_text[i]) continue;
    need_text.push_back(candidates[i].first);
    need_text.push_back(candidates[i].second);
  }
  std::sort(need_text.begin(), need_text.end());
  need_text.erase(std::unique(need_text.begin(), need_text.end()),
                  need_text.end());
  const Clock::time_point load_start = Clock::now();
  ParallelFor(need_text.size(), threads,
              [&](std::size_t i) { verifier.Load(need_text[i]); });
  meta.times.text_load = Clock::now() - load_start;
  ParallelFor(candidates.size(), threads, [&](std::size_t i) {
    if (by_text[i])
      verdicts[i] = verifier.ByText(candidates[i].first, candidates[i].second);
  });
  std::unordered_map<std::uint64_t, std::size_t> verdict_of;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    verdict_of.emplace(Key(candidates[i].first, candidates[i].second), i);
    meta.verified += verdicts[i].duplicate;
  }
  meta.times.verify = Clock::now() - t;

  // Clusters. A canonical that was not a candidate of the message is
  // verified here (on this thread).
  t = Clock::now();
  std::vector<std::int64_t> times(n);
  for (std::uint32_t m = 0; m < n; ++m) times[m] = report.messages[m].time;
  const Clustering clustering = ClusterCanonical(
      times, candidates, [&](std::uint32_t m, std::uint32_t c) {
        auto it = verdict_of.find(Key(m, c));
        if (it != verdict_of.end()) return verdicts[it->second];
        ++meta.cluster_verifications;
        return verifier.Verify(m, c);
      });
  for (std::uint32_t id = 0; id < clustering.clusters.size(); ++id) {
    const std::vector<std::uint32_t>& members = clustering.clusters[id];
    report.clusters.push_back({id, members.front(), members});
    for (std::uint32_t m : members) {
      ScannedMessage& sm = report.messages[m];
      sm.cluster = id;
      sm.is_canonical = m == members.front();
      if (sm.is_canonical) {
        sm.similarity = 1.0;
      } else {
        sm.similarity = clustering.messages[m].verification.similarity;
        sm.method = clustering.messages[m].verification.method;
      }
    }
    meta.clustered += members.size();
  }
  meta.clusters = report.clusters.size();
  meta.text_checks = verifier.text_checks();
  meta.text_skipped = verifier.text_skipped();
  meta.times.cluster = Clock::now() - t;
  meta.times.total = Clock::now() - start;
  return report;
}

}  // namespace mw::pipeline
