// mailwave scan: near-duplicate clusters in Maildirs, mbox files and
// directories of messages (pipeline/scan.h, docs/scan.md).
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "cli/command.h"
#include "cli/util.h"
#include "pipeline/analysis.h"
#include "pipeline/scan.h"

namespace mw::cli {
namespace {

constexpr std::string_view kName = "scan";

constexpr std::string_view kHelp =
    R"(Usage: mailwave [-c FILE] scan [OPTIONS] [--] PATH...
       mailwave scan --help

Finds the near-duplicate messages of an archive and puts them into clusters,
each around its earliest message (the canonical). Every message is analysed as
the daemon analyses it (MIME, language, fingerprints; [mime] and [fingerprint]
tables), on every core.

PATH is any of:
  a Maildir   a directory with cur/ and new/: the messages of new/ and cur/
              (never tmp/), then of each Maildir++ subfolder .Name/
  an mbox     a file whose first line is a From_ line ("From SENDER DATE"),
              split at From_ lines that follow an empty line and hold a time
              of day; ">From " quoting is undone (mboxrd); Content-Length is
              not trusted. The N-th message of an mbox of several is named
              PATH:N (from 1); an mbox of one message is named PATH
  a directory read recursively in name order (names starting with "." are
              skipped); each file is a message (it begins with a header
              field), an mbox, or neither (reported and skipped)
  a file      a message or an mbox, as above
A damaged mbox (junk before the first From_ line, NUL bytes, a cut-off last
message) is reported and its readable messages are scanned. A path or message
that cannot be read is reported and skipped; the scan goes on.

How messages are paired (candidates), then verified:
  ctph, simhash, sketch  the comparison engine's all-pairs search (--backend)
           over the CTPH signatures (edit rate <= ctph, default 0.15), the
           SimHashes (<= simhash bits apart, default 3) and the word sketches
           (estimated Jaccard >= sketch, default [fingerprint]
           words_jaccard, 0.4)
  exact    equal normalised bodies
  blocks   at least 30 % of the smaller block list's keys in common (keys in
           more than 64 messages are ignored)
  A pair is verified when mailwave compare calls it a duplicate (method
  exact, blocks, containment, trailer, reordered, ctph, simhash or words),
  or else when the edit rate of the two normalised bodies (Levenshtein
  distance over the sum of their lengths; bodies up to 64 KiB) is below
  --text-threshold (method text).
Clusters: messages are taken in time order (Date header, else the file's
modification time; equal times in listing order). A message joins the
cluster of a candidate only when it is verified against that cluster's
canonical, trying the earliest canonical first; else it starts its own. So
A ~ B and B ~ C with A !~ C do not put A and C together.

Options:
  --out FILE        write to FILE: JSON when it ends in .json, CSV when it
                    ends in .csv; without --out, JSON on standard output
  --backend NAME    auto (CUDA when built and a device is usable, else the
                    CPU), cuda (fail without a device) or cpu; default auto
  --threshold KIND=VALUE
                    a candidate threshold: ctph=RATE (0.15), simhash=BITS (3),
                    sketch=JACCARD ([fingerprint] words_jaccard,
                    0.4); may be repeated
  --text-threshold R
                    text edit rate below which a pair is verified (0.1)
  --threads N       threads for reading, analysing and comparing (0, the
                    default: every core)
  --quiet           nothing on standard error: no progress bar, no reports
                    (they are still in the JSON's "problems")
  --                ends the options
  -h, --help        this text
A progress bar (messages/s, time left) is drawn on standard error when it is
a terminal.

Output (JSON):
  {"messages":[{"path":"...","message_id":"..."|null,"date":1030023847|null,
    "cluster_id":0|null,"is_canonical":true,"similarity":0.93|null,
    "method":"exact|blocks|containment|trailer|reordered|ctph|simhash|words|
    text"|null}, ...],
   "clusters":[{"cluster_id":0,"canonical":"PATH","members":["PATH",...]}],
   "problems":[{"path":"...","message":"..."}],
   "meta":{"entries":N,"messages":N,"unreadable":N,"clusters":N,
    "clustered":N,"pairs":{...},"thresholds":{...},"backend":"cpu",
    "threads":N,"seconds":{"read_analyse":..,"read":..,"analyse":..,
    "candidates":..,"verify":..,"cluster":..,"total":..}}}
  cluster_id is null for a message alone; a canonical has similarity 1.0 and
  method null; a member's similarity is the deciding method's score against
  the canonical (docs/scan.md). read and analyse are summed over threads.
Output (CSV): a header line, then one line per message:
  path,message_id,cluster_id,is_canonical,similarity,method
  (empty fields for null).

Exit status:
  0  scanned (whether or not duplicates were found)
  1  no message could be read, the engine could not be started (--backend
     cuda without a device), or the output could not be written
  2  usage error or invalid configuration

Examples:
  mailwave scan ~/Maildir --out dups.json
  mailwave scan archive.mbox old/ --out dups.csv --threads 8
  mailwave scan --quiet spam/ | jq '.clusters | length'
)";

// "--name VALUE" or "--name=VALUE"; advances i past what it took.
bool OptionValue(const std::vector<std::string>& args, std::size_t& i,
                 std::string_view name, std::string& value) {
  const std::string& a = args[i];
  if (a == name) {
    if (i + 1 >= args.size()) return false;
    value = args[++i];
    return true;
  }
  if (a.size() > name.size() && a.starts_with(name) && a[name.size()] == '=') {
    value = a.substr(name.size() + 1);
    return true;
  }
  return false;
}

template <typename T>
bool ParseNumber(const std::string& s, T& out) {
  const char* end = s.data() + s.size();
  auto r = std::from_chars(s.data(), end, out);
  return !s.empty() && r.ec == std::errc() && r.ptr == end;
}

std::string CsvField(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos)
    return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

double Seconds(std::chrono::nanoseconds ns) {
  return std::chrono::duration<double>(ns).count();
}

nlohmann::json ToJson(const pipeline::ScanReport& r,
                      const pipeline::ScanOptions& o) {
  using nlohmann::json;
  json messages = json::array();
  for (const pipeline::ScannedMessage& m : r.messages) {
    json j;
    j["path"] = m.path;
    j["message_id"] = m.message_id.empty() ? json() : json(m.message_id);
    j["date"] = m.date ? json(*m.date) : json();
    j["cluster_id"] = m.cluster ? json(*m.cluster) : json();
    j["is_canonical"] = m.is_canonical;
    j["similarity"] = m.similarity ? json(*m.similarity) : json();
    j["method"] = m.method.empty() ? json() : json(m.method);
    messages.push_back(std::move(j));
  }
  json clusters = json::array();
  for (const pipeline::ScanCluster& c : r.clusters) {
    json members = json::array();
    for (std::uint32_t m : c.members) members.push_back(r.messages[m].path);
    clusters.push_back({{"cluster_id", c.id},
                        {"canonical", r.messages[c.canonical].path},
                        {"members", std::move(members)}});
  }
  json problems = json::array();
  for (const archive::Problem& p : r.problems)
    problems.push_back({{"path", p.path}, {"message", p.message}});
  const pipeline::ScanMeta& m = r.meta;
  json meta = {{"entries", m.entries},
               {"messages", m.messages},
               {"unreadable", m.unreadable},
               {"degraded", m.degraded},
               {"clusters", m.clusters},
               {"clustered", m.clustered},
               {"pairs",
                {{"ctph", m.pairs_ctph},
                 {"simhash", m.pairs_simhash},
                 {"sketch", m.pairs_sketch},
                 {"exact", m.pairs_exact},
                 {"blocks", m.pairs_blocks},
                 {"distinct", m.pairs},
                 {"verified", m.verified},
                 {"text_checks", m.text_checks},
                 {"text_skipped", m.text_skipped},
                 {"canonical_checks", m.cluster_verifications}}},
               {"thresholds",
                {{"ctph", o.thresholds.ctph_edit_rate},
                 {"simhash", o.thresholds.simhash_distance},
                 {"sketch", o.thresholds.sketch_jaccard},
                 {"text", o.text_threshold}}},
               {"backend", m.backend},
               {"fallback_reason",
                m.fallback_reason.empty() ? json() : json(m.fallback_reason)},
               {"threads", m.threads},
               {"seconds",
                {{"read_analyse", Seconds(m.times.read_analyse)},
                 {"read", Seconds(m.times.read)},
                 {"analyse", Seconds(m.times.analyse)},
                 {"candidates", Seconds(m.times.candidates)},
                 {"verify", Seconds(m.times.verify)},
                 {"text_load", Seconds(m.times.text_load)},
                 {"cluster", Seconds(m.times.cluster)},
                 {"total", Seconds(m.times.total)}}}};
  return {{"messages", std::move(messages)},
          {"clusters", std::move(clusters)},
          {"problems", std::move(problems)},
          {"meta", std::move(meta)}};
}

std::string ToCsv(const pipeline::ScanReport& r) {
  std::string out =
      "path,message_id,cluster_id,is_canonical,similarity,method\n";
  for (const pipeline::ScannedMessage& m : r.messages) {
    out += CsvField(m.path) + "," + CsvField(m.message_id) + ",";
    if (m.cluster) out += std::to_string(*m.cluster);
    out += m.is_canonical ? ",true," : ",false,";
    if (m.similarity) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.4f", *m.similarity);
      out += buf;
    }
    out += "," + CsvField(m.method) + "\n";
  }
  return out;
}

// "\r  1234/3783 messages  812/s  ETA 3s" on standard error.
class ProgressBar {
 public:
  void Draw(std::size_t done, std::size_t total) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
            .count();
    const double rate = s > 0 ? static_cast<double>(done) / s : 0;
    const double left = rate > 0 ? static_cast<double>(total - done) / rate : 0;
    constexpr int kWidth = 30;
    const int filled = total ? static_cast<int>(kWidth * done / total) : kWidth;
    std::fprintf(stderr, "\r[%-*s] %zu/%zu messages  %.0f/s  ETA %.0fs ",
                 kWidth,
                 std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 done, total, rate, left);
    drawn_ = true;
  }
  void End() {
    if (drawn_) std::fputc('\n', stderr);
  }

 private:
  std::chrono::steady_clock::time_point start_ =
      std::chrono::steady_clock::now();
  bool drawn_ = false;
};

int Run(const std::vector<std::string>& args, const GlobalOptions& global) {
  pipeline::ScanOptions options;
  std::string out_path, value;
  bool quiet = false;
  bool sketch_given = false;
  bool only_paths = false;
  std::vector<std::string> paths;
  auto usage = [](const std::string& what) {
    return Complain(kName, what + " (try mailwave scan --help)", kExitUsage);
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_paths || !IsOption(a)) {
      paths.push_back(a);
    } else if (a == "--") {
      only_paths = true;
    } else if (a == "--quiet") {
      quiet = true;
    } else if (OptionValue(args, i, "--out", value)) {
      out_path = value;
      if (!out_path.ends_with(".json") && !out_path.ends_with(".csv"))
        return usage("--out: FILE must end in .json or .csv");
    } else if (OptionValue(args, i, "--backend", value)) {
      auto b = gpu::ParseBackend(value);
      if (!b) return usage("--backend: auto, cuda or cpu, not '" + value + "'");
      options.backend = *b;
    } else if (OptionValue(args, i, "--threshold", value)) {
      const std::size_t eq = value.find('=');
      const std::string kind = value.substr(0, eq);
      const std::string v = eq == std::string::npos ? "" : value.substr(eq + 1);
      gpu::Thresholds& t = options.thresholds;
      bool ok = false;
      if (kind == "ctph") {
        ok = ParseNumber(v, t.ctph_edit_rate) && t.ctph_edit_rate >= 0 &&
             t.ctph_edit_rate <= 1;
      } else if (kind == "simhash") {
        ok = ParseNumber(v, t.simhash_distance) && t.simhash_distance <= 64;
      } else if (kind == "sketch") {
        ok = ParseNumber(v, t.sketch_jaccard) && t.sketch_jaccard >= 0 &&
             t.sketch_jaccard <= 1;
        sketch_given = true;
      }
      if (!ok) {
        return usage(
            "--threshold: ctph=RATE, simhash=BITS or sketch=JACCARD, "
            "not '" +
            value + "'");
      }
    } else if (OptionValue(args, i, "--text-threshold", value)) {
      if (!ParseNumber(value, options.text_threshold) ||
          options.text_threshold < 0 || options.text_threshold > 1) {
        return usage("--text-threshold: a rate in [0, 1], not '" + value + "'");
      }
    } else if (OptionValue(args, i, "--threads", value)) {
      if (!ParseNumber(value, options.threads) || options.threads > 1024)
        return usage("--threads: a count from 0 to 1024, not '" + value + "'");
    } else {
      return usage("unknown option or missing value: " + a);
    }
  }
  if (paths.empty()) return usage("needs PATH...");
  auto settings = LoadSettings(global);
  if (!settings) return ConfigFailure(settings.error());
  // The sketch candidates start where the configured words path does, unless
  // --threshold sketch= said otherwise.
  if (!sketch_given) {
    options.thresholds.sketch_jaccard =
        std::min(1.0, settings->fingerprint.words_jaccard);
  }
  auto analyzer = pipeline::Analyzer::Create(*settings);
  if (!analyzer)
    return Complain(kName, analyzer.error().message(), kExitFailure);

  const archive::Listing listing = archive::List(paths);
  if (!quiet) {
    for (const archive::Problem& p : listing.problems)
      Complain(kName, p.message, 0);
  }
  ProgressBar bar;
  if (!quiet && ::isatty(STDERR_FILENO)) {
    options.progress = [&bar](std::size_t done, std::size_t total) {
      bar.Draw(done, total);
    };
  }
  auto report = pipeline::Scan(**analyzer, listing.entries, options);
  bar.End();
  if (!report) return Complain(kName, report.error().message(), kExitFailure);
  if (!quiet) {
    for (const archive::Problem& p : report->problems)
      Complain(kName, p.message, 0);
    if (!report->meta.fallback_reason.empty())
      Complain(kName, "using the CPU: " + report->meta.fallback_reason, 0);
  }
  report->problems.insert(report->problems.begin(), listing.problems.begin(),
                          listing.problems.end());

  const bool csv = out_path.ends_with(".csv");
  const std::string text =
      csv ? ToCsv(*report)
          : ToJson(*report, options)
                    .dump(-1, ' ', false,
                          nlohmann::json::error_handler_t::replace) +
                "\n";
  if (out_path.empty()) {
    std::cout << text;
  } else {
    std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      return Complain(kName, out_path + ": cannot be written", kExitFailure);
    }
  }
  if (report->messages.empty()) {
    return Complain(kName, "no message could be read", kExitFailure);
  }
  return kExitOk;
}

const Registration kReg(
    {kName, "cluster the near-duplicate messages of Maildirs and mboxes", kHelp,
     &Run});

}  // namespace
}  // namespace mw::cli
