#include "pipeline/check.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "mw/budget.h"
#include "pipeline/options.h"
#include "stage_clock.h"
#include "store_message.h"

namespace mw::pipeline {
namespace {

// Lookups repeated after a store::Join::seen conflict before the message is
// recorded without the check: a conflict needs a message recorded between
// this one's lookup and record that shares a key with it, so a second one in
// a row is rare and a third means a firehose of copies, where the cluster
// the others joined is found anyway.
constexpr int kMaxStoreRaces = 2;

void StoreFailed(Outcome& out, std::string_view what, const Error& e) {
  out.analysis.warnings.push_back(
      {WarningKind::kStore, "store: " + std::string(what) + ": " + e.message() +
                                "; message passes untagged"});
}

bool Allowed(const CheckOptions& options, const Analyzer& analyzer,
             const sender::Identity& identity, store::ClusterId cluster) {
  if (options.policy == nullptr) return false;
  return options.policy->allow.Match(identity, analyzer.suffixes()) !=
             nullptr ||
         options.policy->allow.MatchCluster(cluster) != nullptr;
}

// The header's values for a message in cluster `c` (as it stands with this
// message counted), and the kind the site's word and the counts give it.
WaveVerdict MakeVerdict(const Match& match, const store::Cluster& c, bool wave,
                        const Analysis& a, const Analyzer& analyzer,
                        const CheckOptions& options) {
  WaveVerdict v{.method = match.comparison.method,
                .similarity = Similarity(match.comparison),
                .cluster = c.id,
                .size = c.size,
                .senders = c.senders,
                .first_seen = c.first_seen,
                .recipients = c.recipients,
                .networks = c.networks,
                .wave = wave};
  std::tie(v.kind, v.reason) =
      DecideKind({.allowed = Allowed(options, analyzer, a.identity, c.id),
                  .mark = c.mark,
                  .authenticated = a.identity.authenticated,
                  .authenticated_senders = c.authenticated,
                  .networks = c.networks,
                  .bulk_networks = analyzer.settings().wave.bulk_networks});
  return v;
}

// The verdict for a message matched to `match`'s cluster that is not (yet)
// recorded: the cluster as the lookup saw it, plus this message (its
// identity and network counted as new only where the cluster had none).
std::optional<WaveVerdict> VerdictBeforeJoin(
    const Match& match, const store::Lookup& lookup, const store::Message& m,
    const Analysis& a, const Analyzer& analyzer, const CheckOptions& options) {
  for (const auto& [c, fp] : lookup.clusters) {
    if (c.id != match.cluster) continue;
    store::Cluster with = c;
    with.size += 1;
    with.recipients += std::max<std::uint32_t>(1, m.recipients);
    with.senders = std::max<std::uint64_t>(with.senders, 1);
    if (m.authenticated)
      with.authenticated = std::max<std::uint64_t>(with.authenticated, 1);
    if (!m.network.empty())
      with.networks = std::max<std::uint64_t>(with.networks, 1);
    return MakeVerdict(match, with, c.wave, a, analyzer, options);
  }
  return std::nullopt;
}

// [wave] action for a copy of a spread wave; wanted bulk never gets one.
void DecideAction(Outcome& out, const config::WaveSettings& w,
                  store::UnixMillis now) {
  if (!out.wave || !out.wave->wave || out.wave->kind != WaveKind::kSpread)
    return;
  const WaveVerdict& v = *out.wave;
  if (w.action == "quarantine") {
    out.action = Action::kQuarantine;
  } else if (w.action == "reject") {
    out.action = Action::kReject;
  } else if (w.action == "tempfail") {
    // Greylisting of a young wave: its first copies wait, and by the time
    // the MTA retries, the wave's copies carry what the site knows of it.
    if (now - v.first_seen >= w.young.count()) return;
    out.action = Action::kTempfail;
  } else {
    return;
  }
  out.action_text =
      "spread wave, cluster " + store::ClusterIdString(v.cluster) + ": " +
      std::to_string(v.size) + " copies from " + std::to_string(v.senders) +
      " senders (" + std::string(WaveReasonName(v.reason)) + ")";
}

}  // namespace

Result<Outcome> Check(const Analyzer& analyzer, store::Store* store,
                      std::string_view bytes, const Envelope& envelope,
                      const CheckOptions& options) {
  auto analysis = analyzer.Analyze(bytes, envelope);
  if (!analysis) return Fail(analysis.error());
  return CheckAnalysis(analyzer, store, std::move(*analysis), envelope,
                       options);
}

Outcome CheckAnalysis(const Analyzer& analyzer, store::Store* store,
                      Analysis analysis, const Envelope& envelope,
                      const CheckOptions& options) {
  Outcome out;
  out.analysis = std::move(analysis);
  Analysis& a = out.analysis;
  // Empty and near-empty bodies match nothing and are not worth remembering.
  if (store != nullptr && Storable(a, analyzer.settings())) {
    const store::Message m = StoreMessage(a, envelope, options.now);
    // One reading per boundary: lookup, decide and record follow one another
    // (the window between them is timed on the wall clock and lapped off).
    StageClock clock;
    // A new cluster is started only when no message recorded since the
    // lookup shares a key with this one (store::Join::seen); otherwise the
    // message is looked up and decided again, so that two writers that see
    // the first copies of a wave at the same moment end in one cluster. The
    // last attempt records without the check: a busy store never costs a
    // message its record.
    for (int attempt = 0;; ++attempt) {
      const bool last_attempt = attempt == kMaxStoreRaces;
      Result<store::Lookup> lookup = store->Find(m);
      clock.Lap(&a.timings.lookup);
      if (!lookup) {
        StoreFailed(out, "lookup", lookup.error());
      } else {
        out.match =
            Decide(a.fingerprint, *lookup, analyzer.fingerprint_options());
        clock.Lap(&a.timings.decide);
        if (!out.match && options.window != nullptr) {
          // What no index key links (spun text, letters-only busters): every
          // recent message, scored by the engine; the ones it names are read
          // and decided as the index's candidates are.
          const auto started = std::chrono::steady_clock::now();
          options.window->Follow(*store);
          out.window_asked = true;
          Window::Answer near = options.window->Near(
              a.fingerprint, analyzer.fingerprint_options());
          if (near.missed) {
            a.warnings.push_back(
                {WarningKind::kWindow,
                 "window: " + near.reason + "; decided by the index alone"});
          } else if (!near.ids.empty()) {
            out.window_candidates = near.ids.size();
            Result<store::Lookup> fetched = store->Fetch(near.ids);
            clock.Lap(nullptr);
            if (!fetched) {
              StoreFailed(out, "window fetch", fetched.error());
            } else {
              out.match = Decide(a.fingerprint, *fetched,
                                 analyzer.fingerprint_options());
              clock.Lap(&a.timings.decide);
              if (out.match) {
                out.window_matched = true;
                lookup = std::move(fetched);
              }
            }
          }
          a.timings.window += std::chrono::steady_clock::now() - started;
          clock.Lap(nullptr);
        }
        const store::WaveRule rule = WaveRule(analyzer.settings().wave);
        if (options.dry_run) {
          if (out.match) {
            // What the header would say once this message joined: the store
            // is not asked for the window, so "wave" is the cluster's state so
            // far.
            out.cluster = out.match->cluster;
            out.wave =
                VerdictBeforeJoin(*out.match, *lookup, m, a, analyzer, options);
          }
        } else {
          store::Join join;
          if (out.match) {
            join.cluster = out.match->cluster;
          } else if (!last_attempt) {
            join.seen = lookup->seen;
          }
          Result<store::Recorded> rec = store->Record(m, join, rule);
          clock.Lap(&a.timings.record);
          if (!rec && rec.error().code() == Error::Code::kConflict) {
            ++out.store_conflicts;
            out.window_asked = false;
            out.window_candidates = 0;
            continue;
          }
          if (!rec) {
            StoreFailed(out, "record", rec.error());
            if (out.match) {
              // The match stands even when it could not be remembered.
              out.cluster = out.match->cluster;
              out.wave = VerdictBeforeJoin(*out.match, *lookup, m, a, analyzer,
                                           options);
            }
          } else {
            out.cluster = rec->cluster.id;
            if (options.window != nullptr) {
              options.window->Add(rec->id, options.now, a.fingerprint);
            }
            if (out.match && rec->cluster.id == out.match->cluster) {
              out.wave = MakeVerdict(*out.match, rec->cluster,
                                     rec->window_size >= rule.min_size, a,
                                     analyzer, options);
            }
            if (rec->became_wave) {
              out.event = WaveEvent{.time = options.now,
                                    .cluster = rec->cluster,
                                    .queue_id = envelope.queue_id,
                                    .earlier = rec->earlier};
            }
            out.recorded = std::move(*rec);
          }
        }
      }
      break;
    }
  }
  DecideAction(out, analyzer.settings().wave, options.now);
  if (out.wave) {
    out.headers.push_back(
        {std::string(kWaveHeader), WaveHeaderValue(*out.wave)});
  }
  out.headers.push_back(
      {std::string(kLanguageHeader), LanguageHeaderValue(a.language)});
  return out;
}

std::string WaveEventJson(const WaveEvent& e) {
  nlohmann::ordered_json j;
  j["event"] = "wave";
  j["time"] = FormatTime(e.time);
  j["cluster"] = store::ClusterIdString(e.cluster.id);
  j["size"] = e.cluster.size;
  j["senders"] = e.cluster.senders;
  j["language"] = e.cluster.language;
  j["first"] = FormatTime(e.cluster.first_seen);
  j["queue_id"] = e.queue_id;
  nlohmann::ordered_json earlier = nlohmann::ordered_json::array();
  for (const store::Member& m : e.earlier) {
    nlohmann::ordered_json o;
    o["queue_id"] = m.queue_id;
    o["message_id_hash"] = m.message_id_hash;
    o["arrival"] = FormatTime(m.arrival);
    earlier.push_back(std::move(o));
  }
  j["earlier"] = std::move(earlier);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<bool> AppendLine(const std::string& path, std::string_view line) {
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
  if (fd < 0) return Fail(Error::Io(path + ": " + std::strerror(errno)));
  std::string buf(line);
  buf.push_back('\n');
  const ssize_t n = ::write(fd, buf.data(), buf.size());
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(buf.size())) {
    return Fail(
        Error::Io(path + ": " + (n < 0 ? std::strerror(err) : "short write")));
  }
  return true;
}

}  // namespace mw::pipeline
