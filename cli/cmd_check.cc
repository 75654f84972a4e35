// mailwave check: what mailwave says about a message, exactly as the milter
// would say it (the same pipeline::Check, the same store, the same headers).
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/util.h"
#include "pipeline/analysis.h"
#include "pipeline/check.h"
#include "pipeline/options.h"
#include "pipeline/policy.h"
#include "sender/address.h"
#include "pipeline/store_open.h"
#include "pipeline/window.h"
#include "store/sqlite.h"

namespace mw::cli {
namespace {

constexpr std::string_view kName = "check";

constexpr std::string_view kHelp =
    R"(Usage: mailwave [-c FILE] check [options] FILE...|-
       mailwave check --help

Analyses each message as the milter does (MIME, language, fingerprints, under
the [pipeline] work budget), looks it up in the store of recent mail, records
it there (unless --dry-run) and prints the headers the milter would add, one
"Name: value" line each:

  X-Mailwave-Wave: dup=near; method=blocks; sim=0.93; cluster=7f3a9c21;
    size=148; senders=97; first=2026-11-22T09:14:03Z; rcpts=150;
    networks=41; kind=spread; why=senders; wave=yes
  X-Mailwave-Language: en; score=87; bilingual=no

(each header on one line). X-Mailwave-Wave appears only when the message
duplicates earlier mail; size counts the cluster with this message; senders
its distinct sender identities, rcpts its recipients, networks its client
networks; kind=bulk (wanted: one authenticated sender, allow-listed or
learned ham) or kind=spread, why= says which rule decided (docs/waves.md);
wave=yes once the cluster has [wave] min_size members inside [wave] window.
Messages are taken in the order given, each FILE one RFC 822 message whatever
its name; with several FILEs each message's lines follow a "==> FILE <=="
line. The envelope options apply to every FILE: to replay what the milter
saw, give --sender, each --rcpt and --client-ip; the site's own
Authentication-Results count only above the first Received: and with an
authserv-id in [wave] trusted_authserv_ids.

Options:
  --store FILE   the store's SQLite file instead of [store] path
  --dry-run      look up and decide, record nothing
  --json         one JSON object per message, one per line: file, headers,
                 cluster (null when it starts none), size, method, similarity,
                 senders, rcpts, networks, first_seen, wave, kind, why,
                 action, identity {domain, source, authenticated, network},
                 language, score, bilingual, warnings [{kind, detail}],
                 degraded, timings_us per stage; absent values are null
  --             ends the options: a FILE named -x is given as -- -x
  --sender ADDR  envelope sender (default: Return-Path, else From)
  --rcpt ADDR    an envelope recipient (repeat for each; default: none
                 known, counted as one)
  --client-ip IP the SMTP client's address (its /24 or /48 is the network;
                 ip allow entries match it; default: unknown)
  --queue-id ID  the queue id recorded with the message and named in events
  --now TIME     the arrival time (RFC 3339 "2026-11-22T09:14:03Z" or Unix
                 seconds), to replay old mail; default: the clock
  -h, --help     this text

A store that cannot be opened or fails leaves messages untagged (a "store"
warning), as the milter does. The "action" is what [wave] action would make
the milter do (none, quarantine, reject, tempfail); check itself only prints
it. Bodies shorter than [wave] min_body are neither looked up nor recorded. When a cluster becomes a wave, one JSON line goes
to [wave] events (when set). Input is read up to [mime] max_bytes.

Exit status:
  0  every message was checked
  1  a FILE could not be read (the others are still checked), the store could
     not be opened, or output could not be written
  2  usage or configuration error

Examples:
  mailwave check --dry-run suspicious.eml
  mailwave check --store /tmp/test.db --json spool/*
)";

// "2026-11-22T09:14:03Z" or Unix seconds.
std::optional<store::UnixMillis> ParseTime(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos &&
      s.size() < 15) {
    return static_cast<store::UnixMillis>(std::stoll(s)) * 1000;
  }
  std::tm tm{};
  int y, mo, d, h, mi, sec;
  char z = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &y, &mo, &d, &h, &mi,
                  &sec, &z) != 7 ||
      z != 'Z' || s.size() != 20) {
    return std::nullopt;
  }
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = sec;
  const time_t t = timegm(&tm);
  if (t == static_cast<time_t>(-1)) return std::nullopt;
  return static_cast<store::UnixMillis>(t) * 1000;
}

double Micros(std::chrono::nanoseconds ns) {
  return static_cast<double>(ns.count()) / 1000.0;
}

std::string Json(const std::string& file, const pipeline::Outcome& o,
                 bool dry_run) {
  using nlohmann::ordered_json;
  const pipeline::Analysis& a = o.analysis;
  ordered_json j;
  j["file"] = file;
  ordered_json headers = ordered_json::array();
  for (const auto& h : o.headers) headers.push_back(h.name + ": " + h.value);
  j["headers"] = headers;
  j["dry_run"] = dry_run;
  j["cluster"] = o.cluster ? ordered_json(store::ClusterIdString(*o.cluster))
                           : ordered_json(nullptr);
  if (o.wave) {
    j["size"] = o.wave->size;
    j["method"] = fingerprint::MethodName(o.wave->method);
    j["similarity"] = pipeline::Similarity(o.match->comparison);
    j["senders"] = o.wave->senders;
    j["rcpts"] = o.wave->recipients;
    j["networks"] = o.wave->networks;
    j["first_seen"] = pipeline::FormatTime(o.wave->first_seen);
    j["wave"] = o.wave->wave;
    j["kind"] = pipeline::WaveKindName(o.wave->kind);
    j["why"] = pipeline::WaveReasonName(o.wave->reason);
  } else {
    j["size"] = o.recorded ? ordered_json(o.recorded->cluster.size)
                           : ordered_json(nullptr);
    j["method"] = nullptr;
    j["similarity"] = nullptr;
    j["senders"] = o.recorded ? ordered_json(o.recorded->cluster.senders)
                              : ordered_json(nullptr);
    j["rcpts"] = o.recorded ? ordered_json(o.recorded->cluster.recipients)
                            : ordered_json(nullptr);
    j["networks"] = o.recorded ? ordered_json(o.recorded->cluster.networks)
                               : ordered_json(nullptr);
    j["first_seen"] = nullptr;
    j["wave"] = false;
    j["kind"] = nullptr;
    j["why"] = nullptr;
  }
  j["action"] = pipeline::ActionName(o.action);
  const sender::Identity& id = a.identity;
  j["identity"] = {
      {"domain", id.domain.empty() ? ordered_json(nullptr)
                                   : ordered_json(id.domain)},
      {"source", sender::SourceName(id.source)},
      {"authenticated", id.authenticated},
      {"network",
       id.network.empty() ? ordered_json(nullptr) : ordered_json(id.network)}};
  j["language"] = a.language.code;
  j["score"] = a.language.score;
  j["bilingual"] = a.language.bilingual;
  j["best"] = a.language.best.empty() ? ordered_json(nullptr)
                                      : ordered_json(a.language.best);
  j["bytes"] = a.size;
  j["body_bytes"] = a.body_bytes;
  j["parts"] = a.parts;
  j["degraded"] = a.degraded;
  ordered_json warnings = ordered_json::array();
  for (const auto& w : a.warnings) {
    warnings.push_back(
        {{"kind", pipeline::WarningName(w.kind)}, {"detail", w.detail}});
  }
  j["warnings"] = warnings;
  const pipeline::Timings& t = a.timings;
  j["timings_us"] = {
      {"parse", Micros(t.parse)},   {"normalise", Micros(t.normalise)},
      {"langid", Micros(t.langid)}, {"fingerprint", Micros(t.fingerprint)},
      {"lookup", Micros(t.lookup)}, {"decide", Micros(t.decide)},
      {"record", Micros(t.record)}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int Run(const std::vector<std::string>& args, const GlobalOptions& global) {
  bool json = false;
  bool dry_run = false;
  std::optional<std::string> store_path;
  pipeline::Envelope envelope;
  std::optional<store::UnixMillis> now;
  std::vector<std::string> files;
  bool only_files = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= args.size()) return false;
      *out = args[++i];
      return true;
    };
    std::string v;
    if (only_files || !IsOption(a)) {
      files.push_back(a);
    } else if (a == "--") {
      only_files = true;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--dry-run") {
      dry_run = true;
    } else if (a == "--store") {
      if (!value(&v)) return Complain(kName, "--store needs FILE", kExitUsage);
      store_path = v;
    } else if (a == "--sender") {
      if (!value(&v)) return Complain(kName, "--sender needs ADDR", kExitUsage);
      envelope.sender = v;
    } else if (a == "--rcpt") {
      if (!value(&v)) return Complain(kName, "--rcpt needs ADDR", kExitUsage);
      envelope.recipients.push_back(v);
    } else if (a == "--client-ip") {
      if (!value(&v) || sender::ClientNetwork(v).empty())
        return Complain(kName, "--client-ip needs an IPv4 or IPv6 address",
                        kExitUsage);
      envelope.client_ip = v;
    } else if (a == "--queue-id") {
      if (!value(&v)) return Complain(kName, "--queue-id needs ID", kExitUsage);
      envelope.queue_id = v;
    } else if (a == "--now") {
      if (!value(&v) || !(now = ParseTime(v))) {
        return Complain(kName,
                        "--now needs a time: 2026-11-22T09:14:03Z or Unix "
                        "seconds",
                        kExitUsage);
      }
    } else {
      return Complain(kName,
                      "unknown option " + a + " (try mailwave check --help)",
                      kExitUsage);
    }
  }
  if (files.empty()) {
    return Complain(kName, "needs FILE... or - (try mailwave check --help)",
                    kExitUsage);
  }
  auto settings = LoadSettings(global);
  if (!settings) return ConfigFailure(settings.error());
  auto analyzer = pipeline::Analyzer::Create(*settings);
  if (!analyzer)
    return Complain(kName, analyzer.error().message(), kExitFailure);
  auto policy = pipeline::LoadPolicy(*settings);
  if (!policy) return ConfigFailure(policy.error());

  pipeline::StoreOpenOptions so;
  so.sqlite_path = store_path;
  // Pruning follows --now here (after the messages), not the clock: replayed
  // old mail must not be pruned as it is recorded.
  so.prune = false;
  so.log = [](std::string_view line) { Complain(kName, line, 0); };
  auto opened = pipeline::OpenStore(*settings, so);
  std::unique_ptr<store::Store> db;
  if (opened) {
    db = std::move(*opened);
  } else {
    // As the milter does: no store, no wave verdicts, but the message is
    // still analysed and given its language header.
    Complain(kName,
             opened.error().message() + "; messages are checked untagged", 0);
  }

  // The comparison window, as the milter has it ([gpu]): the same answers
  // for the same mail.
  std::unique_ptr<pipeline::Window> window;
  if (db && settings->gpu.window) {
    auto w = pipeline::Window::Open(*db, *settings,
                                    now.value_or(store::NowMillis()), {});
    if (w) {
      window = std::move(*w);
    } else if (w.error().code() == Error::Code::kInvalidArgument) {
      return ConfigFailure(w.error());
    } else {
      Complain(kName,
               "gpu: " + w.error().message() + "; the index alone decides", 0);
    }
  }

  int status = opened ? kExitOk : kExitFailure;
  const bool several = files.size() > 1;
  bool first = true;
  for (const std::string& file : files) {
    auto bytes = ReadInput(file, settings->mime.max_bytes);
    if (!bytes) {
      status = Complain(kName, bytes.error().message(), kExitFailure);
      continue;
    }
    pipeline::CheckOptions co{.dry_run = dry_run,
                              .now = now.value_or(store::NowMillis()),
                              .window = window.get(),
                              .policy = policy->get()};
    auto outcome = pipeline::Check(**analyzer, db.get(), *bytes, envelope, co);
    if (!outcome) {
      status = Complain(kName, file + ": " + outcome.error().message(),
                        kExitFailure);
      continue;
    }
    if (outcome->event && !settings->wave.events.empty()) {
      auto w = pipeline::AppendLine(settings->wave.events,
                                    pipeline::WaveEventJson(*outcome->event));
      if (!w) status = Complain(kName, w.error().message(), kExitFailure);
    }
    std::string out;
    if (json) {
      out = Json(file, *outcome, dry_run) + "\n";
    } else {
      if (several) out += (first ? "" : "\n") + ("==> " + file + " <==\n");
      for (const auto& h : outcome->headers)
        out += h.name + ": " + h.value + "\n";
    }
    first = false;
    std::cout << out;
    // A closed pipe or a full disk: stop checking (main() says why).
    if (OutputFailed()) return kExitFailure;
  }
  if (db && !dry_run) {
    // What the milter's pruner does in the background: a few short batches.
    const store::UnixMillis before =
        now.value_or(store::NowMillis()) - settings->store.retention.count();
    auto pruned = db->Prune(before, settings->store.prune_batch, 4);
    if (!pruned) Complain(kName, "prune: " + pruned.error().message(), 0);
  }
  return status;
}

const Registration kReg(
    {kName, "what mailwave says about messages: analysis, store, headers",
     kHelp, &Run});

}  // namespace
}  // namespace mw::cli
