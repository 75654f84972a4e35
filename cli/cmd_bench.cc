// mailwave bench compare: the comparison engine's benchmark (gpu/engine.h).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cmd_fingerprint.h"
#include "cli/command.h"
#include "cli/util.h"
#include "gpu/engine.h"
#include "gpu/synthetic.h"
#include "pipeline/options.h"

namespace mw::cli {
namespace {

constexpr std::string_view kName = "bench";

constexpr std::string_view kHelp =
    R"(Usage: mailwave [-c FILE] bench compare --n N [--backend auto|cpu|cuda]
           [--kind ctph|simhash|sketch] [--mode all-pairs|window]
           [--queries Q] [--seed S] [--threads T] [--corpus DIR]
           [--repeat R] [--ctph-rate R]
       mailwave bench --help

Times the comparison engine (the one `mailwave scan` and the daemon's window
use) on N signatures and prints one JSON line.

Modes:
  all-pairs  every pair i < j of the N signatures: N(N-1)/2 pairs
  window     the N signatures are the window; Q more (--queries, 64) are
             compared with every one of them in one batch: N·Q pairs. The
             window's build (Add) is timed apart (add_seconds)

Kinds and the thresholds used (the engine's defaults):
  ctph     CTPH edit rate <= 0.15 at a common block size, after the
           block-size, length and 2-gram filters
  simhash  Hamming distance <= 3
  sketch   word-sketch Jaccard >= 0.5, word counts within 2x, >= 16 words

Signatures (synthetic unless --corpus): random signatures of realistic shape
(CTPH: B from 3·2^6 to 3·2^11, 30-64 base64 symbols at B, 15-32 at 2B), one
in ten a near copy of an earlier one (a few edits, a few bits, a share of the
sketch bins changed), so that some pairs match. --seed S (1) picks them.
--corpus DIR fingerprints every message file under DIR instead (as
`mailwave fingerprint` does) and takes the first N (all when N is 0 or
larger); the window's queries are then the first Q of them.

Options:
  --n N          signatures (required unless --corpus)
  --backend B    auto (default), cpu or cuda; auto falls back to the CPU and
                 says why in "fallback"
  --threads T    CPU threads (0, the default: every core)
  --ctph-rate R  the CTPH edit rate (0.15); the daemon's window asks at
                 3 x [fingerprint] ctph_edit_rate, 0.45 by default
  --repeat R     run the search R times (1); "seconds" is then the median of
                 runs 2..R and "first_seconds" the first run's, which on a
                 GPU also pays the context, the module load and (window) the
                 window's upload
  -h, --help     this text

Output (one line):
  {"n":20000,"pairs":199990000,"matches":1234,"seconds":1.2,
   "pairs_per_second":1.6e8,"backend":"cpu","kind":"ctph",
   "mode":"all-pairs","threads":0,"seed":1,"source":"synthetic",
   "fallback":"..."}   (fallback only when auto fell back)

Exit status:
  0  done
  1  the engine failed, or DIR could not be read
  2  usage error

Examples:
  mailwave bench compare --n 20000 --kind ctph --backend cpu
  mailwave bench compare --n 1000000 --mode window --kind simhash
)";

struct Args {
  std::size_t n = 0;
  bool have_n = false;
  std::string backend = "auto";
  std::string kind = "ctph";
  std::string mode = "all-pairs";
  std::size_t queries = 64;
  std::uint64_t seed = 1;
  unsigned threads = 0;
  std::string corpus;
  std::size_t repeat = 1;
  double ctph_rate = gpu::Thresholds{}.ctph_edit_rate;
};

// Fingerprints of the message files under dir, in path order.
Result<std::vector<gpu::Signature>> CorpusSignatures(
    const std::string& dir, const GlobalOptions& global) {
  namespace fs = std::filesystem;
  auto settings = LoadSettings(global);
  if (!settings) return Fail(settings.error());
  const fingerprint::Options options =
      pipeline::FingerprintOptions(settings->fingerprint);
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Fail(Error::NotFound(dir + ": not a directory"));
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) return Fail(Error::Io(dir + ": " + ec.message()));
  std::sort(files.begin(), files.end());
  std::vector<gpu::Signature> out;
  for (const fs::path& p : files) {
    auto body = ReadBody(p.string(), false, *settings);
    if (!body) continue;  // unreadable or not a message: skipped
    out.push_back(gpu::ToSignature(fingerprint::Compute(*body, options)));
  }
  return out;
}

int Run(const std::vector<std::string>& args, const GlobalOptions& global) {
  if (args.empty() || args[0] != "compare") {
    return Complain(kName,
                    "expected: bench compare (try mailwave bench --help)",
                    kExitUsage);
  }
  Args a;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& o = args[i];
    const auto value = [&]() -> const std::string* {
      return i + 1 < args.size() ? &args[++i] : nullptr;
    };
    const std::string* v = nullptr;
    try {
      if (o == "--n" && (v = value())) {
        a.n = std::stoull(*v);
        a.have_n = true;
      } else if (o == "--backend" && (v = value())) {
        a.backend = *v;
      } else if (o == "--kind" && (v = value())) {
        a.kind = *v;
      } else if (o == "--mode" && (v = value())) {
        a.mode = *v;
      } else if (o == "--queries" && (v = value())) {
        a.queries = std::stoull(*v);
      } else if (o == "--seed" && (v = value())) {
        a.seed = std::stoull(*v);
      } else if (o == "--threads" && (v = value())) {
        a.threads = static_cast<unsigned>(std::stoul(*v));
      } else if (o == "--corpus" && (v = value())) {
        a.corpus = *v;
      } else if (o == "--ctph-rate" && (v = value())) {
        a.ctph_rate = std::stod(*v);
      } else if (o == "--repeat" && (v = value())) {
        a.repeat = std::stoull(*v);
      } else {
        return Complain(kName,
                        "unknown option or missing value: " + o +
                            " (try mailwave bench --help)",
                        kExitUsage);
      }
    } catch (const std::exception&) {
      return Complain(kName, "not a number: " + *v, kExitUsage);
    }
  }
  if (!a.have_n && a.corpus.empty())
    return Complain(kName, "--n N is required", kExitUsage);
  gpu::Kind kind;
  if (a.kind == "ctph") {
    kind = gpu::Kind::kCtph;
  } else if (a.kind == "simhash") {
    kind = gpu::Kind::kSimHash;
  } else if (a.kind == "sketch") {
    kind = gpu::Kind::kSketch;
  } else {
    return Complain(kName, "--kind: ctph, simhash or sketch", kExitUsage);
  }
  if (a.mode != "all-pairs" && a.mode != "window")
    return Complain(kName, "--mode: all-pairs or window", kExitUsage);
  const bool window = a.mode == "window";
  if (!(a.ctph_rate > 0 && a.ctph_rate <= 1))
    return Complain(kName, "--ctph-rate must be in (0, 1]", kExitUsage);
  if (a.repeat == 0)
    return Complain(kName, "--repeat must be at least 1", kExitUsage);
  if (window && a.queries == 0)
    return Complain(kName, "--queries must be at least 1", kExitUsage);
  auto backend = gpu::ParseBackend(a.backend);
  if (!backend) return Complain(kName, backend.error().message(), kExitUsage);

  std::vector<gpu::Signature> window_sigs;
  std::vector<gpu::Signature> queries;
  if (a.corpus.empty()) {
    // The queries come after the window in one stream, so some are near
    // copies of window signatures.
    std::vector<gpu::Signature> all =
        gpu::SyntheticSignatures(a.n + (window ? a.queries : 0), a.seed);
    queries.assign(all.begin() + static_cast<std::ptrdiff_t>(a.n), all.end());
    all.resize(a.n);
    window_sigs = std::move(all);
  } else {
    auto sigs = CorpusSignatures(a.corpus, global);
    if (!sigs) return Complain(kName, sigs.error().message(), kExitFailure);
    if (a.have_n && a.n > 0 && a.n < sigs->size()) sigs->resize(a.n);
    window_sigs = std::move(*sigs);
    if (window) {
      queries.assign(window_sigs.begin(),
                     window_sigs.begin() + static_cast<std::ptrdiff_t>(std::min(
                                               a.queries, window_sigs.size())));
    }
  }

  std::string fallback;
  auto engine = gpu::MakeEngine(*backend, a.threads, &fallback);
  if (!engine) return Complain(kName, engine.error().message(), kExitFailure);
  gpu::Thresholds thresholds;
  thresholds.ctph_edit_rate = a.ctph_rate;
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  double add_seconds = 0;
  std::vector<double> runs;
  std::uint64_t pairs = 0;
  std::uint64_t matches = 0;
  const std::size_t n = window_sigs.size();
  if (window) {
    const auto t0 = Clock::now();
    for (std::size_t k = 0; k < n; ++k) {
      if (auto r = (*engine)->Add(k, window_sigs[k]); !r)
        return Complain(kName, r.error().message(), kExitFailure);
    }
    add_seconds = seconds(t0);
    pairs = static_cast<std::uint64_t>(n) * queries.size();
  } else {
    pairs = static_cast<std::uint64_t>(n) * (n > 0 ? n - 1 : 0) / 2;
  }
  for (std::size_t rep = 0; rep < a.repeat; ++rep) {
    const auto t1 = Clock::now();
    if (window) {
      auto r = (*engine)->Query(queries, kind, thresholds);
      runs.push_back(seconds(t1));
      if (!r) return Complain(kName, r.error().message(), kExitFailure);
      matches = r->size();
    } else {
      auto r = (*engine)->AllPairs(window_sigs, kind, thresholds);
      runs.push_back(seconds(t1));
      if (!r) return Complain(kName, r.error().message(), kExitFailure);
      matches = r->size();
    }
  }
  const double first_seconds = runs.front();
  std::vector<double> rest(runs.begin() + (runs.size() > 1 ? 1 : 0),
                           runs.end());
  std::sort(rest.begin(), rest.end());
  const double run_seconds = rest[rest.size() / 2];
  nlohmann::ordered_json j;
  j["n"] = n;
  j["pairs"] = pairs;
  j["matches"] = matches;
  j["seconds"] = run_seconds;
  if (a.repeat > 1) {
    j["first_seconds"] = first_seconds;
    j["repeat"] = a.repeat;
  }
  j["pairs_per_second"] =
      run_seconds > 0 ? static_cast<double>(pairs) / run_seconds : 0.0;
  j["backend"] = std::string((*engine)->Name());
  j["kind"] = a.kind;
  j["mode"] = a.mode;
  if (window) {
    j["queries"] = queries.size();
    j["add_seconds"] = add_seconds;
  }
  j["threads"] = a.threads;
  j["seed"] = a.seed;
  if (kind == gpu::Kind::kCtph) j["ctph_rate"] = a.ctph_rate;
  j["source"] = a.corpus.empty() ? "synthetic" : "corpus";
  if (!fallback.empty()) j["fallback"] = fallback;
  std::cout << j.dump() << '\n';
  return OutputStatus(kName);
}

const Registration kReg({kName,
                         "benchmark the comparison engine (bench compare)",
                         kHelp, &Run});

}  // namespace
}  // namespace mw::cli
