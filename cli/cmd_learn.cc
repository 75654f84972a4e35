// mailwave learn: the site's word on a wave, from a message of it. The
// IMAPSieve recipe (milter/dist/imapsieve/) calls it when a user moves a
// message into Junk (--spam) or out of it (--ham).
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/util.h"
#include "pipeline/analysis.h"
#include "pipeline/learn.h"
#include "pipeline/store_open.h"
#include "pipeline/verdict.h"

namespace mw::cli {
namespace {

constexpr std::string_view kName = "learn";

constexpr std::string_view kHelp =
    R"(Usage: mailwave [-c FILE] learn --ham|--spam [options] FILE...|-
       mailwave learn --help

Tells mailwave what the site thinks of the wave a message belongs to. Each
message's cluster is found as `mailwave check` finds it (the store's index and
the same duplicate decision) and marked:

  --spam  its copies are a spread wave from now on (kind=spread; why=spam),
          whoever sends them
  --ham   its copies are wanted bulk (kind=bulk; why=ham), however many
          senders and networks the counts show

A message whose cluster the store does not know starts one, so that its later
copies follow the mark. A message that matched is not recorded again:
learning a copy that was delivered does not count it twice. The latest word
on a cluster stands (`mailwave store forget CLUSTER` clears it; `store show`
tells why a cluster is what it is). One line per message:

  spam.eml: cluster 7f3a9c21 marked spam (joined; size 12)

Options:
  --ham, --spam  what to learn (exactly one)
  --store FILE   the store's SQLite file instead of [store] path
  --json         one JSON object per message: file, cluster, mark, started,
                 size, senders
  --sender ADDR  envelope sender, as `check` takes it (default: Return-Path,
                 else From)
  --             ends the options
  -h, --help     this text

Bodies shorter than [wave] min_body and analyses that ran out of their work
budget form no cluster: such a message is reported and skipped.

Exit status:
  0  every message was learned
  1  a FILE could not be read or learned (the others still are), the store
     could not be opened, or output could not be written
  2  usage or configuration error

Examples:
  mailwave learn --spam ~/Maildir/.Junk/cur/1700000000.M1P2.host:2,S
  mailwave learn --ham --store /var/lib/mailwave/mailwave.db - < newsletter.eml
)";

int Run(const std::vector<std::string>& args, const GlobalOptions& global) {
  std::optional<store::Mark> mark;
  bool json = false;
  std::optional<std::string> store_path;
  pipeline::Envelope envelope;
  std::vector<std::string> files;
  bool only_files = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_files || !IsOption(a)) {
      files.push_back(a);
    } else if (a == "--") {
      only_files = true;
    } else if (a == "--ham" || a == "--spam") {
      const store::Mark m = a == "--ham" ? store::Mark::kHam : store::Mark::kSpam;
      if (mark && *mark != m)
        return Complain(kName, "give --ham or --spam, not both", kExitUsage);
      mark = m;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--store") {
      if (i + 1 >= args.size())
        return Complain(kName, "--store needs FILE", kExitUsage);
      store_path = args[++i];
    } else if (a == "--sender") {
      if (i + 1 >= args.size())
        return Complain(kName, "--sender needs ADDR", kExitUsage);
      envelope.sender = args[++i];
    } else {
      return Complain(kName,
                      "unknown option " + a + " (try mailwave learn --help)",
                      kExitUsage);
    }
  }
  if (!mark)
    return Complain(kName, "needs --ham or --spam (try mailwave learn --help)",
                    kExitUsage);
  if (files.empty())
    return Complain(kName, "needs FILE... or - (try mailwave learn --help)",
                    kExitUsage);

  auto settings = LoadSettings(global);
  if (!settings) return ConfigFailure(settings.error());
  auto analyzer = pipeline::Analyzer::Create(*settings);
  if (!analyzer)
    return Complain(kName, analyzer.error().message(), kExitFailure);
  pipeline::StoreOpenOptions so;
  so.sqlite_path = store_path;
  so.log = [](std::string_view line) { Complain(kName, line, 0); };
  auto db = pipeline::OpenStore(*settings, so);
  if (!db) return Complain(kName, db.error().message(), kExitFailure);

  int status = kExitOk;
  for (const std::string& file : files) {
    auto bytes = ReadInput(file, settings->mime.max_bytes);
    if (!bytes) {
      status = Complain(kName, bytes.error().message(), kExitFailure);
      continue;
    }
    auto learned = pipeline::Learn(**analyzer, **db, *bytes, envelope, *mark,
                                   store::NowMillis());
    if (!learned) {
      status = Complain(kName, file + ": " + learned.error().message(),
                        kExitFailure);
      continue;
    }
    const store::Cluster& c = learned->cluster;
    if (json) {
      nlohmann::ordered_json j;
      j["file"] = file;
      j["cluster"] = store::ClusterIdString(c.id);
      j["mark"] = store::MarkName(c.mark);
      j["started"] = learned->started;
      j["size"] = c.size;
      j["senders"] = c.senders;
      std::cout << j.dump(-1, ' ', false,
                          nlohmann::json::error_handler_t::replace)
                << "\n";
    } else {
      std::cout << file << ": cluster " << store::ClusterIdString(c.id)
                << " marked " << store::MarkName(c.mark) << " ("
                << (learned->started ? "started" : "joined") << "; size "
                << c.size << ")\n";
    }
    if (OutputFailed()) return kExitFailure;
  }
  return status;
}

const Registration kReg({kName,
                         "mark a message's wave as wanted (--ham) or spam "
                         "(--spam)",
                         kHelp, &Run});

}  // namespace
}  // namespace mw::cli
