// mailwave store: inspect and maintain the store of recent mail.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/util.h"
#include "pipeline/options.h"
#include "pipeline/policy.h"
#include "pipeline/store_open.h"
#include "pipeline/verdict.h"
#include "store/sqlite.h"

namespace mw::cli {
namespace {

constexpr std::string_view kName = "store";

constexpr std::string_view kHelp =
    R"(Usage: mailwave [-c FILE] store [--store FILE] [--json] ACTION
       mailwave store --help

Inspects and maintains the store of recent mail ([store] path). The store holds
hashes only: fingerprints of bodies, keyed hashes of Message-IDs and senders,
queue ids, sizes, languages and clusters; never text.

Actions:
  stats          messages, clusters, waves, index rows, bytes on disk, the
                 oldest and newest message
  waves          the clusters that are waves now ([wave] min_size members
                 inside [wave] window): id, size, senders, first and last
                 seen, language
  clusters       every cluster of two or more messages, newest first
  show CLUSTER   one cluster (8 hex digits, as in X-Mailwave-Wave), why it
                 is of its kind (the site's mark, an allow entry, its
                 distinct and authenticated identities, client networks,
                 recipients) and its members: arrival, queue id,
                 Message-ID hash
  allow CLUSTER  marks the cluster ham: its copies are wanted bulk
                 (kind=bulk; why=ham) whatever the counts say
  deny CLUSTER   marks it spam: its copies are a spread wave (why=spam)
  forget CLUSTER clears the mark: the counts decide again
  prune          removes messages older than [store] retention now, in
                 batches of [store] prune_batch
  check          full integrity check (PRAGMA integrity_check)

Options:
  --store FILE   the store's SQLite file instead of [store] path
  --json         JSON instead of text (one object; lists as arrays); absent
                 values (no language, no queue id) are null
  --limit N      at most N clusters or members (default 100)
  --             ends the options
  -h, --help     this text

Exit status:
  0  success (check: the store is sound)
  1  the store cannot be opened or read, check found problems, a cluster is
     unknown, or output could not be written
  2  usage or configuration error

Examples:
  mailwave store waves
  mailwave store --json show 7f3a9c21 | jq '.members[].queue_id'
  mailwave store allow 7f3a9c21

A mark lives as long as its cluster (until its last member is pruned);
`mailwave learn` sets the same marks from messages. A cluster the site always
wants belongs in the allow list ([wave] allow: "cluster 7f3a9c21").
)";

// How the counts and the site's word decide a cluster as a whole: bulk when
// every identity in it is one authenticated one (a single message may still
// differ: a copy that is not authenticated is spread).
std::pair<pipeline::WaveKind, pipeline::WaveReason> ClusterKind(
    const store::Cluster& c, const config::Settings& settings,
    const pipeline::Policy* policy) {
  return pipeline::DecideKind(
      {.allowed = policy != nullptr &&
                  policy->allow.MatchCluster(c.id) != nullptr,
       .mark = c.mark,
       .authenticated = c.authenticated > 0 && c.authenticated == c.senders,
       .senders = c.senders,
       .networks = c.networks,
       .bulk_networks = settings.wave.bulk_networks});
}

nlohmann::ordered_json MarkJson(const store::Cluster& c) {
  if (c.mark == store::Mark::kNone) return nullptr;
  return std::string(store::MarkName(c.mark));
}

nlohmann::ordered_json ClusterJson(const store::Cluster& c, bool wave_now) {
  return {{"cluster", store::ClusterIdString(c.id)},
          {"size", c.size},
          {"senders", c.senders},
          {"authenticated", c.authenticated},
          {"networks", c.networks},
          {"recipients", c.recipients},
          {"mark", MarkJson(c)},
          {"marked_at", c.marked_at ? nlohmann::ordered_json(
                                          pipeline::FormatTime(c.marked_at))
                                    : nlohmann::ordered_json(nullptr)},
          {"first_seen", pipeline::FormatTime(c.first_seen)},
          {"last_seen", pipeline::FormatTime(c.last_seen)},
          {"language", c.language.empty() ? nlohmann::ordered_json(nullptr)
                                          : nlohmann::ordered_json(c.language)},
          {"wave", wave_now},
          {"wave_since", c.wave_since ? nlohmann::ordered_json(
                                            pipeline::FormatTime(c.wave_since))
                                      : nlohmann::ordered_json(nullptr)}};
}

std::string ClusterLine(const store::Cluster& c) {
  return store::ClusterIdString(c.id) + "  size=" + std::to_string(c.size) +
         "  senders=" + std::to_string(c.senders) +
         "  rcpts=" + std::to_string(c.recipients) +
         "  mark=" +
         (c.mark == store::Mark::kNone ? std::string("-")
                                       : std::string(store::MarkName(c.mark))) +
         "  first=" + pipeline::FormatTime(c.first_seen) +
         "  last=" + pipeline::FormatTime(c.last_seen) +
         "  language=" + (c.language.empty() ? "-" : c.language);
}

int Run(const std::vector<std::string>& args, const GlobalOptions& global) {
  bool json = false;
  std::optional<std::string> store_path;
  std::size_t limit = 100;
  std::vector<std::string> rest;
  bool only_args = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_args || !IsOption(a)) {
      rest.push_back(a);
    } else if (a == "--") {
      only_args = true;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--store") {
      if (i + 1 >= args.size())
        return Complain(kName, "--store needs FILE", kExitUsage);
      store_path = args[++i];
    } else if (a == "--limit") {
      const std::string v = i + 1 < args.size() ? args[++i] : "";
      if (v.empty() || v.size() > 9 ||
          v.find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(v) == 0) {
        return Complain(kName, "--limit needs a positive number", kExitUsage);
      }
      limit = std::stoul(v);
    } else {
      return Complain(kName,
                      "unknown option " + a + " (try mailwave store --help)",
                      kExitUsage);
    }
  }
  if (rest.empty()) {
    return Complain(kName,
                    "needs an action: stats, waves, clusters, show CLUSTER, "
                    "allow CLUSTER, deny CLUSTER, forget CLUSTER, prune or "
                    "check",
                    kExitUsage);
  }
  const std::string action = rest[0];
  std::optional<store::ClusterId> cluster_id;
  if (action == "show" || action == "allow" || action == "deny" ||
      action == "forget") {
    if (rest.size() != 2 || !(cluster_id = store::ParseClusterId(rest[1]))) {
      return Complain(kName, action + " needs one CLUSTER id (8 hex digits)",
                      kExitUsage);
    }
  } else if (action != "stats" && action != "waves" && action != "clusters" &&
             action != "prune" && action != "check") {
    return Complain(
        kName, "unknown action '" + action + "' (try mailwave store --help)",
        kExitUsage);
  } else if (rest.size() != 1) {
    return Complain(kName, action + " takes no argument", kExitUsage);
  }

  auto settings = LoadSettings(global);
  if (!settings) return ConfigFailure(settings.error());
  pipeline::StoreOpenOptions so;
  so.sqlite_path = store_path;
  so.read_only = action != "prune" && action != "allow" &&
                 action != "deny" && action != "forget";
  so.log = [](std::string_view line) { Complain(kName, line, 0); };
  auto db = pipeline::OpenStore(*settings, so);
  if (!db) return Complain(kName, db.error().message(), kExitFailure);

  const store::WaveRule rule = pipeline::WaveRule(settings->wave);
  const store::UnixMillis now = store::NowMillis();
  nlohmann::ordered_json j;
  std::string text;
  int status = kExitOk;
  if (action == "stats") {
    auto s = (*db)->GetStats();
    if (!s) return Complain(kName, s.error().message(), kExitFailure);
    j = {{"path", s->path},
         {"messages", s->messages},
         {"clusters", s->clusters},
         {"waves", s->waves},
         {"index_rows", s->index_rows},
         {"file_bytes", s->file_bytes},
         {"wal_bytes", s->wal_bytes},
         {"bytes_per_message",
          s->messages
              ? nlohmann::ordered_json(static_cast<double>(s->file_bytes) /
                                       static_cast<double>(s->messages))
              : nlohmann::ordered_json(nullptr)},
         {"oldest",
          s->messages ? nlohmann::ordered_json(pipeline::FormatTime(s->oldest))
                      : nlohmann::ordered_json(nullptr)},
         {"newest",
          s->messages ? nlohmann::ordered_json(pipeline::FormatTime(s->newest))
                      : nlohmann::ordered_json(nullptr)},
         // This command opens the store read-only; what a user wants to know is
         // whether the milter can write it.
         {"writable", ::access(s->path.c_str(), W_OK) == 0}};
    for (const auto& [k, v] : j.items()) {
      text += k + ": " +
              (v.is_string() ? v.get<std::string>()
               : v.is_null() ? std::string("-")
                             : v.dump()) +
              "\n";
    }
  } else if (action == "waves" || action == "clusters") {
    auto list = (*db)->Clusters(action == "waves", rule, now, limit);
    if (!list) return Complain(kName, list.error().message(), kExitFailure);
    j = nlohmann::ordered_json::array();
    for (const auto& c : *list) {
      j.push_back(ClusterJson(c, action == "waves"));
      text += ClusterLine(c) + "\n";
    }
  } else if (action == "show") {
    auto c = (*db)->FindCluster(*cluster_id);
    if (!c) return Complain(kName, c.error().message(), kExitFailure);
    if (!*c) {
      return Complain(kName,
                      "no cluster " + store::ClusterIdString(*cluster_id),
                      kExitFailure);
    }
    auto members = (*db)->Members(*cluster_id, limit);
    if (!members)
      return Complain(kName, members.error().message(), kExitFailure);
    auto policy = pipeline::LoadPolicy(*settings);
    if (!policy) return ConfigFailure(policy.error());
    const auto [kind, why] = ClusterKind(**c, *settings, policy->get());
    j = ClusterJson(**c, (**c).wave);
    j["kind"] = pipeline::WaveKindName(kind);
    j["why"] = pipeline::WaveReasonName(why);
    j["members"] = nlohmann::ordered_json::array();
    const store::Cluster& cl = **c;
    text = ClusterLine(cl) + "\n";
    text += "  kind=" + std::string(pipeline::WaveKindName(kind)) +
            " why=" + std::string(pipeline::WaveReasonName(why)) + ": ";
    if (cl.mark != store::Mark::kNone) {
      text += "marked " + std::string(store::MarkName(cl.mark)) + " at " +
              pipeline::FormatTime(cl.marked_at) + "; ";
    }
    text += std::to_string(cl.senders) + " identities (" +
            std::to_string(cl.authenticated) + " authenticated), " +
            std::to_string(cl.networks) + " client networks (bulk allows " +
            std::to_string(settings->wave.bulk_networks) + "), " +
            std::to_string(cl.recipients) + " recipients\n";
    for (const auto& m : *members) {
      j["members"].push_back(
          {{"arrival", pipeline::FormatTime(m.arrival)},
           {"queue_id", m.queue_id.empty()
                            ? nlohmann::ordered_json(nullptr)
                            : nlohmann::ordered_json(m.queue_id)},
           {"message_id_hash", m.message_id_hash}});
      text += "  " + pipeline::FormatTime(m.arrival) + "  " +
              (m.queue_id.empty() ? "-" : m.queue_id) + "  " +
              m.message_id_hash + "\n";
    }
  } else if (action == "allow" || action == "deny" || action == "forget") {
    const store::Mark mark = action == "allow"  ? store::Mark::kHam
                             : action == "deny" ? store::Mark::kSpam
                                                : store::Mark::kNone;
    auto c = (*db)->SetMark(*cluster_id, mark, now);
    if (!c) {
      return Complain(kName,
                      store::ClusterIdString(*cluster_id) + ": " +
                          c.error().message(),
                      kExitFailure);
    }
    j = ClusterJson(*c, c->wave);
    text = "cluster " + store::ClusterIdString(c->id) + ": " +
           (mark == store::Mark::kNone ? std::string("mark cleared")
                                       : "marked " +
                                             std::string(store::MarkName(mark))) +
           "\n";
  } else if (action == "prune") {
    const store::UnixMillis before = now - settings->store.retention.count();
    auto n = (*db)->Prune(before, settings->store.prune_batch,
                          std::numeric_limits<std::size_t>::max());
    if (!n) return Complain(kName, n.error().message(), kExitFailure);
    j = {{"pruned", *n}, {"before", pipeline::FormatTime(before)}};
    text = "pruned " + std::to_string(*n) + " messages older than " +
           pipeline::FormatTime(before) + "\n";
  } else if (action == "check") {
    auto r = (*db)->Check();
    if (!r) return Complain(kName, r.error().message(), kExitFailure);
    j = {{"ok", *r == "ok"}, {"result", *r}};
    text = *r + "\n";
    if (*r != "ok") status = kExitFailure;
  }
  std::cout << (json ? j.dump() + "\n" : text);
  return status;
}

const Registration kReg(
    {kName, "inspect the store of recent mail: stats, waves, show, prune",
     kHelp, &Run});

}  // namespace
}  // namespace mw::cli
