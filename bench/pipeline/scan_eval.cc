// scan_eval: `mailwave scan` (pipeline::Scan) as an archive dedup tool on
// waves generated from the dev corpus: the share of each class's copies that
// end in their base's cluster, and the distinct ham pairs that end in one
// cluster (issue 12: "≥ 0.9 of copies joined to their base, false positives on
// distinct pairs ≤ 1e-5"). docs/scan.md ("Waves in an archive") has the
// table.
//
// Usage: scan_eval [--corpus DIR] [--bases N] [--seed S] [--half 1|2]
//                  [--text-threshold R] [--ctph R] [--simhash BITS]
//                  [--sketch J] [--backend auto|cuda|cpu] [--threads N]
//                  [--classes SUBSTRING] [--show-fp N] [--show-missed N]
//   DIR defaults to MW_SOURCE_DIR/../shared/data/mail; without it the program
//   says so and exits 0. The thresholds default to pipeline::ScanOptions'.
//
// Protocol:
//   * fingerprint_eval's corpus reading, base candidates, ground truth and
//     base selection (mw::variants, variants/truth.h: N bases, no two natural
//     near-duplicates, a text edit rate under 0.1 of the normalised bodies),
//     and its halves: --half 1 | 2 takes the first or second half of the
//     bases and the distinct ham of half of the threads (mv::HalfOf; tune on
//     one, report on the other).
//   * One scan per class over one directory: every distinct ham message (the
//     corpus file's bytes) and, for each base, the base and three copies,
//     each copy the right side of a new draw of the class's generator
//     (mw::variants::ClassRng; the base is the left side of the first draw),
//     written by variants::BuildMessage. The base is dated a minute before
//     its copies and every generated message before the ham, so the base is
//     the canonical its copies are verified against (were the ham earlier, a
//     base with a natural near-duplicate in the ham, an earlier issue of the
//     same newsletter, would join that message's cluster, and its copies
//     would be verified against another text than theirs). One scan per
//     class, so that a copy never reaches its base's cluster through a copy of
//     another class.
//   * Per class: copies in their base's cluster (recall); copies elsewhere in
//     a cluster whose canonical is another base's message (errors, "other")
//     or a ham message ("ham").
//   * Ham: the pairs of distinct ham messages in one cluster, less the
//     natural near-duplicates, over all distinct ham pairs less every natural
//     one (the rule is applied to all pairs, not to those in a cluster; the
//     natural pairs scan joins are printed apart): first in a
//     scan of the ham alone (the figure for an archive of real mail), then in
//     each class's scan (ham that joins a base's cluster is verified against
//     the base; the block index's document-frequency cut, ScanOptions::
//     block_key_max_messages, counts the generated messages too); the largest
//     of those is printed as well.
//   * Scan's own verification (ScanOptions::text_threshold, 0.1 by default)
//     is the same edit rate as the truth, so a member is never more than the
//     truth's distance from its cluster's canonical: what this measures is
//     what the index and the fingerprints bring to verification, and the
//     pairs of members that verification cannot see (two members far from
//     each other, each near the canonical).
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "fingerprint/verify.h"
#include "mime/message.h"
#include "pipeline/analysis.h"
#include "pipeline/scan.h"
#include "variants/truth.h"
#include "variants/variants.h"

namespace fs = std::filesystem;
namespace fp = mw::fingerprint;
namespace mv = mw::variants;
namespace pl = mw::pipeline;

namespace {

constexpr int kCopies = 3;
// Generated messages are dated from here on (1990-01-01), before the ham.
constexpr std::int64_t kEpoch = 631'152'000;

std::string RfcDate(std::int64_t t) {
  const time_t tt = static_cast<time_t>(t);
  struct tm tm;
  gmtime_r(&tt, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

void WriteFile(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out) {
    std::fprintf(stderr, "scan_eval: cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

// What a file of the scan is: ham doc `index`, or copy `copy` (0: the base)
// of base number `index`.
struct Role {
  bool ham = false;
  std::size_t index = 0;
  int copy = 0;
};

struct Setup {
  mv::Corpus corpus;
  std::vector<std::size_t> bases;             // indexes into corpus.docs
  std::vector<std::size_t> ham;               // indexes into corpus.docs
  const mv::NaturalPairs* natural = nullptr;  // among `ham`
  std::uint64_t seed = 20261122;
  pl::ScanOptions options;
  int show_fp = 0;
  int show_missed = 0;
};

struct ClassResult {
  std::size_t copies = 0, joined = 0, other_base = 0, ham_only = 0;
  std::size_t degraded = 0;
  // Distinct ham pairs, those in one cluster, and the natural pairs in one
  // cluster.
  std::uint64_t ham_pairs = 0, ham_fp = 0, ham_natural = 0;
  // Ham pairs in one cluster by how they got there: the method of the member
  // when the other is the canonical, else both members' methods.
  std::map<std::string, std::uint64_t> ham_fp_by;
  double seconds = 0;
};

ClassResult RunClass(const Setup& s, const pl::Analyzer& analyzer,
                     const mv::Class* cls, const fs::path& ham_dir,
                     const fs::path& dir, int& shown, int& missed) {
  ClassResult r;
  fs::create_directories(dir);
  std::map<std::string, Role> roles;  // file name -> role
  for (std::size_t h = 0; h < s.ham.size(); ++h) {
    roles["h" + std::to_string(h) + ".eml"] = Role{true, h, 0};
  }
  std::mt19937_64 rng = mv::ClassRng(s.seed, cls ? cls->name : "");
  std::vector<mv::Pair> draws(kCopies);
  // The decoded texts written, per base: the base, then the copies.
  std::vector<std::vector<std::string>> texts(s.bases.size());
  for (std::size_t b = 0; cls != nullptr && b < s.bases.size(); ++b) {
    const mv::Doc& doc = s.corpus.docs[s.bases[b]];
    for (int k = 0; k < kCopies; ++k)
      draws[k] = cls->make(doc, s.corpus.docs, rng);
    for (int k = 0; k <= kCopies; ++k) {
      const std::string name =
          "b" + std::to_string(b) + "-" + std::to_string(k) + ".eml";
      mv::Headers h;
      h.date = RfcDate(kEpoch + static_cast<std::int64_t>(b) * 3600 + k * 60);
      h.message_id = "<b" + std::to_string(b) + "." + std::to_string(k) +
                     "@scan-eval.example>";
      texts[b].push_back(k == 0 ? draws[0].left : draws[k - 1].right);
      WriteFile(dir / name, mv::BuildMessage(texts[b].back(), h));
      roles[name] = Role{false, b, k};
    }
  }
  const std::vector<std::string> paths = {ham_dir.string(), dir.string()};
  const mw::archive::Listing listing = mw::archive::List(paths);
  const auto t0 = std::chrono::steady_clock::now();
  auto report = pl::Scan(analyzer, listing.entries, s.options);
  r.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  if (!report) {
    std::fprintf(stderr, "scan_eval: %s\n", report.error().ToString().c_str());
    std::exit(1);
  }
  std::vector<Role> role(report->messages.size());
  // cluster id -> its ham messages (indexes into report->messages)
  std::map<std::uint32_t, std::vector<std::size_t>> ham_in;
  // base -> cluster of the base message
  std::vector<std::optional<std::uint32_t>> base_cluster(s.bases.size());
  for (std::size_t m = 0; m < report->messages.size(); ++m) {
    const pl::ScannedMessage& sm = report->messages[m];
    const auto it = roles.find(fs::path(sm.path).filename().string());
    if (it == roles.end()) {
      std::fprintf(stderr, "scan_eval: unexpected message %s\n",
                   sm.path.c_str());
      std::exit(1);
    }
    role[m] = it->second;
    r.degraded += sm.degraded;
    if (!sm.cluster) continue;
    if (role[m].ham) {
      ham_in[*sm.cluster].push_back(m);
    } else if (role[m].copy == 0) {
      base_cluster[role[m].index] = sm.cluster;
    }
  }
  r.copies = cls ? s.bases.size() * kCopies : 0;
  for (std::size_t m = 0; m < report->messages.size(); ++m) {
    const pl::ScannedMessage& sm = report->messages[m];
    if (role[m].ham || role[m].copy == 0) continue;
    if (sm.cluster && base_cluster[role[m].index] == sm.cluster) {
      ++r.joined;
    } else if (missed < s.show_missed) {
      // Why: what Compare says of the base and the copy, and their text edit
      // rate, on the texts as the analysis normalises them.
      ++missed;
      const std::string x = mw::mime::NormaliseText(texts[role[m].index][0]);
      const std::string y =
          mw::mime::NormaliseText(texts[role[m].index][role[m].copy]);
      const fp::Options& o = analyzer.fingerprint_options();
      const fp::Comparison c =
          fp::Compare(fp::Compute(x, o), fp::Compute(y, o), o);
      std::printf(
          "MISSED %s base %zu copy %d: %s; compare %s sketch %.3f; text edit "
          "rate %.3f (%zu, %zu B)\n",
          cls->name.c_str(), role[m].index, role[m].copy,
          sm.cluster ? "in another cluster" : "alone",
          std::string(fp::MethodName(c.method)).c_str(), c.sketch,
          fp::TextEditRate(x, y), x.size(), y.size());
    }
    if (!sm.cluster || base_cluster[role[m].index] == sm.cluster) continue;
    // Elsewhere: the cluster's canonical is another base's message or copy,
    // or ham.
    const Role& canonical = role[report->clusters[*sm.cluster].canonical];
    if (canonical.ham) {
      ++r.ham_only;
    } else {
      ++r.other_base;
    }
  }
  const auto n = static_cast<std::uint64_t>(s.ham.size());
  std::uint64_t natural_pairs = 0;
  for (const auto& [id, hams] : ham_in) {
    for (std::size_t i = 0; i < hams.size(); ++i) {
      for (std::size_t j = i + 1; j < hams.size(); ++j) {
        const pl::ScannedMessage& x = report->messages[hams[i]];
        const pl::ScannedMessage& y = report->messages[hams[j]];
        const std::size_t a = s.ham[role[hams[i]].index];
        const std::size_t b = s.ham[role[hams[j]].index];
        if (s.natural->Contains(a, b)) {
          ++natural_pairs;
          continue;
        }
        ++r.ham_fp;
        if (x.is_canonical || y.is_canonical) {
          ++r.ham_fp_by[x.is_canonical ? y.method : x.method];
        } else {
          ++r.ham_fp_by["members " + std::min(x.method, y.method) + "+" +
                        std::max(x.method, y.method)];
        }
        if (shown < s.show_fp) {
          ++shown;
          std::printf("FP %s (%s) %s (%s)\n", s.corpus.docs[a].name.c_str(),
                      x.is_canonical ? "canonical" : x.method.c_str(),
                      s.corpus.docs[b].name.c_str(),
                      y.is_canonical ? "canonical" : y.method.c_str());
        }
      }
    }
  }
  r.ham_natural = natural_pairs;
  r.ham_pairs = n * (n - 1) / 2 - s.natural->size();
  fs::remove_all(dir);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus_dir = mv::DefaultCorpusDir(MW_SOURCE_DIR).string();
  Setup s;
  std::size_t n_bases = 300;
  int half = 0;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "scan_eval: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--corpus") {
      corpus_dir = next();
    } else if (a == "--bases") {
      n_bases = std::stoul(next());
    } else if (a == "--seed") {
      s.seed = std::stoull(next());
    } else if (a == "--half") {
      half = std::stoi(next());
      if (half != 1 && half != 2) {
        std::fprintf(stderr, "scan_eval: --half 1 or 2\n");
        return 2;
      }
    } else if (a == "--text-threshold") {
      s.options.text_threshold = std::stod(next());
    } else if (a == "--ctph") {
      s.options.thresholds.ctph_edit_rate = std::stod(next());
    } else if (a == "--simhash") {
      s.options.thresholds.simhash_distance =
          static_cast<std::uint32_t>(std::stoul(next()));
    } else if (a == "--sketch") {
      s.options.thresholds.sketch_jaccard = std::stod(next());
    } else if (a == "--backend") {
      const auto b = mw::gpu::ParseBackend(next());
      if (!b) {
        std::fprintf(stderr, "scan_eval: --backend auto, cuda or cpu\n");
        return 2;
      }
      s.options.backend = *b;
    } else if (a == "--threads") {
      s.options.threads = static_cast<unsigned>(std::stoul(next()));
    } else if (a == "--classes") {
      only = next();
    } else if (a == "--show-missed") {
      s.show_missed = std::stoi(next());
    } else if (a == "--show-fp") {
      s.show_fp = std::stoi(next());
    } else {
      std::fprintf(
          stderr,
          "usage: scan_eval [--corpus DIR] [--bases N] [--seed S] [--half 1|2]"
          " [--text-threshold R] [--ctph R] [--simhash BITS] [--sketch J]"
          " [--backend auto|cuda|cpu] [--threads N] [--classes SUBSTRING]"
          " [--show-fp N] [--show-missed N]\n");
      return 2;
    }
  }
  if (!fs::is_directory(corpus_dir)) {
    std::printf(
        "scan_eval: corpus %s not found; nothing to evaluate "
        "(skipped)\n",
        corpus_dir.c_str());
    return 0;
  }
  mw::mime::Init();
  mw::config::Settings settings;
  settings.langid.dictionary =
      std::string(MW_BINARY_DIR) + "/share/mailwave/langid.dict";
  auto analyzer = pl::Analyzer::Create(settings);
  if (!analyzer) {
    std::fprintf(stderr, "scan_eval: %s\n", analyzer.error().message().c_str());
    return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  s.corpus = mv::ReadCorpus(corpus_dir);
  const std::vector<std::size_t> candidates =
      mv::BaseCandidates(s.corpus, s.seed);
  const mv::Selection selection =
      mv::SelectBases(s.corpus, candidates, n_bases);
  s.bases = selection.bases;
  if (half != 0) {
    const std::size_t mid = s.bases.size() / 2;
    s.bases =
        half == 1
            ? std::vector<std::size_t>(s.bases.begin(), s.bases.begin() + mid)
            : std::vector<std::size_t>(s.bases.begin() + mid, s.bases.end());
  }
  for (std::size_t d = 0; d < s.corpus.docs.size(); ++d) {
    const mv::Doc& doc = s.corpus.docs[d];
    if (!doc.ham || doc.body.empty()) continue;
    // --half: the ham of that half's threads, as fingerprint_eval
    // (mv::HalfOf), so that the two halves' distinct pairs are disjoint and
    // a thread's replies are not split between them.
    if (half != 0 && mv::HalfOf(doc) != half) continue;
    s.ham.push_back(d);
  }
  const mv::NaturalPairs natural(s.corpus, s.ham);
  s.natural = &natural;
  char tmpl[] = "/tmp/mw-scan-eval-XXXXXX";
  const char* root_c = mkdtemp(tmpl);
  if (root_c == nullptr) {
    std::perror("scan_eval: mkdtemp");
    return 1;
  }
  const fs::path root = root_c;
  const fs::path ham_dir = root / "ham";
  fs::create_directories(ham_dir);
  for (std::size_t h = 0; h < s.ham.size(); ++h) {
    WriteFile(ham_dir / ("h" + std::to_string(h) + ".eml"),
              s.corpus.raw.at(s.corpus.docs[s.ham[h]].name));
  }
  std::printf(
      "corpus: %zu files, %zu distinct bodies; bases %zu (%zu dropped as "
      "near-duplicates of an earlier one), %d copies each; ham %zu, %zu "
      "natural near-duplicate pairs (%.1f s)\n"
      "thresholds: ctph %.3f simhash %u sketch %.3f text %.3f\n\n",
      s.corpus.files, s.corpus.docs.size(), s.bases.size(), selection.dropped,
      kCopies, s.ham.size(), natural.size(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count(),
      s.options.thresholds.ctph_edit_rate,
      s.options.thresholds.simhash_distance,
      s.options.thresholds.sketch_jaccard, s.options.text_threshold);
  int shown = 0, missed = 0;
  const ClassResult alone =
      RunClass(s, **analyzer, nullptr, ham_dir, root / "none", shown, missed);
  const auto print_fp = [&](const char* what, const ClassResult& r) {
    std::printf(
        "%s: %llu of %llu distinct pairs in one cluster (%.2e); natural "
        "near-duplicate pairs in one cluster: %llu of %zu\n",
        what, static_cast<unsigned long long>(r.ham_fp),
        static_cast<unsigned long long>(r.ham_pairs),
        r.ham_pairs
            ? static_cast<double>(r.ham_fp) / static_cast<double>(r.ham_pairs)
            : 0.0,
        static_cast<unsigned long long>(r.ham_natural), natural.size());
    for (const auto& [how, count] : r.ham_fp_by) {
      std::printf("  %-28s %llu\n", how.c_str(),
                  static_cast<unsigned long long>(count));
    }
  };
  print_fp("ham alone", alone);
  std::printf("\n%-24s | %6s | %6s | %6s | %6s | %8s | %5s\n", "class",
              "copies", "joined", "other", "ham", "ham FP", "s");
  ClassResult worst;
  double min_recall = 1;
  std::size_t copies = 0, joined = 0, other = 0;
  int k = 0;
  for (const mv::Class& cls : mv::Classes(s.corpus.raw)) {
    if (!only.empty() && cls.name.find(only) == std::string::npos) continue;
    const ClassResult r =
        RunClass(s, **analyzer, &cls, ham_dir,
                 root / ("class" + std::to_string(k++)), shown, missed);
    const double recall =
        static_cast<double>(r.joined) / static_cast<double>(r.copies);
    min_recall = std::min(min_recall, recall);
    copies += r.copies;
    joined += r.joined;
    other += r.other_base;
    if (r.ham_fp >= worst.ham_fp) worst = r;
    std::printf("%-24s | %6zu | %6.3f | %6zu | %6zu | %8llu | %5.1f%s\n",
                cls.name.c_str(), r.copies, recall, r.other_base, r.ham_only,
                static_cast<unsigned long long>(r.ham_fp), r.seconds,
                r.degraded ? " (degraded messages)" : "");
    std::fflush(stdout);
  }
  fs::remove_all(root);
  std::printf(
      "\nall classes: %zu copies, %.3f joined to their base (min class "
      "%.3f), %zu in another base's cluster\n",
      copies,
      copies ? static_cast<double>(joined) / static_cast<double>(copies) : 0.0,
      min_recall, other);
  print_fp("ham, the class scan with the most", worst);
  return 0;
}
