// fingerprint_eval: precision, recall and F1 of each fingerprint method on
// labelled near-duplicates generated from the dev corpus, and false positives
// on distinct messages.
//
// Usage: fingerprint_eval [--corpus DIR] [--bases N] [--seed S] [--folds LIST]
// [--fold-study]
//                         [--show-fp N]
//   DIR defaults to MW_SOURCE_DIR/../shared/data/mail; without it the program
//   says so and exits 0 (nothing to evaluate). --folds is a comma list of
//   hash_busters, numbers, urls, emails, greetings, or "all" / "none" (default:
//   the Options defaults). --fold-study runs the evaluation once per fold
//   setting and prints one summary line each.
//
// Protocol (docs/fingerprint.md has the reasons):
//   * Every message of the corpus is parsed and normalised by the real path
//   (mime::Parse,
//     mime::Normalise). Messages with the same normalised body count once.
//   * Ground truth (variants/truth.h): two normalised bodies are natural
//     near-duplicates when their text edit rate is under 0.1. No method under
//     test takes part in it, and it is applied to every pair below.
//   * Bases: N messages (seeded shuffle) with 200 B to 256 KiB of normalised
//     body, kept only if no two are natural near-duplicates, so that a match
//     between a variant and another base is an error of the method.
//   * For each base and class, one labelled pair (left, right). Text classes
//   edit the decoded
//     body and normalise it; the MIME classes build a complete RFC 822 message
//     and run it through mime::Parse. Positives: (left_i, right_i). Negatives:
//     (left_j, right_i), j != i.
//   * Distinct pairs: every pair of ham bodies that is not a natural
//     near-duplicate (and the short ones separately); a method's false-positive
//     rate is the fraction it calls duplicates. The natural pairs are counted
//     apart, with the share each method finds.
//   * ssdeep: libfuzzy on the decoded (not normalised) text, duplicate when
//   fuzzy_compare >= 50.
// The mutation classes and the corpus reading live in mw::variants
// (bench/variants), the methods' verdicts in methods.h.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench/fingerprint/methods.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/sketch.h"
#include "fingerprint/verify.h"
#include "mime/message.h"
#include "variants/truth.h"
#include "variants/variants.h"

namespace fs = std::filesystem;
namespace fp = mw::fingerprint;
namespace mv = mw::variants;
namespace bench = mw::bench;

namespace {

using bench::Item;
using bench::kMethodNames;
using bench::kMethods;
using bench::MakeItem;
using bench::Verdicts;
using enum bench::MethodIndex;

// ---- Evaluation
// ---------------------------------------------------------------------------

struct Counts {
  std::uint64_t tp = 0, fp = 0, fn = 0;
  double Recall() const {
    return tp + fn ? static_cast<double>(tp) / static_cast<double>(tp + fn) : 0;
  }
  double Precision() const {
    return tp + fp ? static_cast<double>(tp) / static_cast<double>(tp + fp) : 1;
  }
  double F1() const {
    const double p = Precision(), r = Recall();
    return p + r > 0 ? 2 * p * r / (p + r) : 0;
  }
};

struct Summary {
  Counts overall[kMethods];
  double min_recall[kMethods];
  std::uint64_t distinct_pairs = 0, short_pairs = 0;
  std::uint64_t distinct_fp[kMethods] = {}, short_fp[kMethods] = {};
  // Ham pairs that are natural near-duplicates (not counted as distinct), and
  // how many of them each method calls duplicates.
  std::uint64_t natural = 0;
  std::uint64_t natural_found[kMethods] = {};
};

// --dump: one line per pair that any plausible rule could call a duplicate, for
// threshold studies: label (1 positive, 0 negative within a class, 2 distinct
// ham), class, similarity, CTPH edit rate, Hamming distance, the two block
// counts and body sizes, containment, sketch Jaccard, the two word counts, the
// text edit rate of a distinct pair, the verdict, the word sequences' edit
// rate, distance and runs, and with the longer one's end left out
// (SequenceDiff) the end, the longer length, distance, runs and length.
std::FILE* g_dump = nullptr;

void Dump(int label, const std::string& cls, const Item& a, const Item& b,
          const fp::Options& o) {
  if (g_dump == nullptr) return;
  const fp::Comparison c = fp::Compare(a.print, b.print, o);
  const double sim = c.similarity.value_or(-1);
  const double edit = c.edit_rate.value_or(-1);
  const double jac = fp::SketchJaccard(a.print.sketch, b.print.sketch);
  if (label != 1 && sim < 0.3 && (edit < 0 || edit > 0.3) && c.hamming > 16 &&
      c.containment.value_or(0) < 0.5 && jac < 0.25 &&
      fp::CtphEditRate(a.print.word_sequence, b.print.word_sequence)
              .value_or(1) > 0.3)
    return;
  // The text edit rate of distinct pairs the sketch finds near, to tell
  // natural near-duplicates from errors.
  const double text_edit =
      label == 2 && jac >= 0.25 && a.body.size() + b.body.size() < (512u << 10)
          ? fp::TextEditRate(a.body, b.body)
          : -1;
  const auto diff =
      fp::DiffWordSequences(a.print.word_sequence, b.print.word_sequence);
  std::fprintf(
      g_dump,
      "%d\t%s\t%.4f\t%.4f\t%u\t%zu\t%zu\t%zu\t%zu\t%.4f\t%.4f\t%u\t%"
      "u\t%.4f\t%d\t%.4f\t%u\t%u\t%u\t%u\t%u\t%u\t%u\n",
      label, cls.c_str(), sim, edit, c.hamming, a.print.blocks.hashes.size(),
      b.print.blocks.hashes.size(), a.print.body_bytes, b.print.body_bytes,
      c.containment.value_or(-1), jac, a.print.sketch.words,
      b.print.sketch.words, text_edit, c.duplicate ? 1 : 0,
      fp::CtphEditRate(a.print.word_sequence, b.print.word_sequence)
          .value_or(-1),
      diff ? diff->distance : 0, diff ? diff->runs : 0, diff ? diff->tail : 0,
      diff ? diff->tail_longer : 0, diff ? diff->trimmed_distance : 0,
      diff ? diff->trimmed_runs : 0, diff ? diff->trimmed_length : 0);
}

struct Setup {
  mv::Corpus corpus;
  std::vector<std::size_t> base_candidates;
  const mv::NaturalPairs* natural = nullptr;  // over every ham body
  std::uint64_t seed = 20261122;
  std::size_t bases = 300;
  int show_fp = 0;
  int half = 0;  // 0: all; 1, 2: that half of the bases and the ham
};

Summary Run(const Setup& s, const fp::Options& o, bool print) {
  Summary sum;
  // Distinct ham bodies.
  std::vector<Item> ham;
  std::vector<std::string> ham_names;
  std::vector<std::size_t> ham_docs;  // indexes into s.corpus.docs
  for (const mv::Doc& d : s.corpus.docs) {
    if (!d.ham || d.body.empty()) continue;
    // --half: the ham of half of the threads (mv::HalfOf), so that the two
    // halves' distinct pairs are disjoint and a thread's replies, which quote
    // each other, are not split between them.
    if (s.half != 0 && mv::HalfOf(d) != s.half) continue;
    ham.push_back(MakeItem(d.decoded, o));
    ham_names.push_back(d.name);
    ham_docs.push_back(static_cast<std::size_t>(&d - s.corpus.docs.data()));
  }
  // Bases: no two natural near-duplicates.
  const mv::Selection selection =
      mv::SelectBases(s.corpus, s.base_candidates, s.bases);
  std::vector<std::size_t> bases = selection.bases;
  if (s.half != 0) {
    // --half 1 | 2: the first or second half of the bases (tune on one,
    // report on the other).
    const std::size_t mid = bases.size() / 2;
    bases = s.half == 1
                ? std::vector<std::size_t>(bases.begin(), bases.begin() + mid)
                : std::vector<std::size_t>(bases.begin() + mid, bases.end());
  }
  const std::size_t dropped = selection.dropped;
  if (print) {
    std::printf(
        "bases: %zu (%zu candidates dropped as natural near-duplicates of an "
        "earlier base)\n\n",
        bases.size(), dropped);
    std::printf("%-24s", "class");
    for (int m = 0; m < kMethods; ++m) std::printf(" | %-17s", kMethodNames[m]);
    std::printf("\n%-24s", "");
    for (int m = 0; m < kMethods; ++m) std::printf(" |  R     P     F1  ");
    std::printf("\n");
  }
  for (int m = 0; m < kMethods; ++m) sum.min_recall[m] = 1;
  const std::vector<mv::Class> classes = mv::Classes(s.corpus.raw);
  for (const mv::Class& cls : classes) {
    // Each class draws from its own generator (seed and class name), so adding
    // or changing a class leaves the variants of the others as they were.
    std::mt19937_64 rng = mv::ClassRng(s.seed, cls.name);
    std::vector<Item> left, right;
    for (const std::size_t idx : bases) {
      mv::Pair p = cls.make(s.corpus.docs[idx], s.corpus.docs, rng);
      left.push_back(MakeItem(std::move(p.left), o));
      right.push_back(MakeItem(std::move(p.right), o));
    }
    Counts c[kMethods];
    for (std::size_t i = 0; i < right.size(); ++i) {
      for (std::size_t j = 0; j < left.size(); ++j) {
        const auto v = Verdicts(left[j], right[i], o);
        Dump(i == j ? 1 : 0, cls.name, left[j], right[i], o);
        for (int m = 0; m < kMethods; ++m) {
          if (i == j) {
            (v[m] ? c[m].tp : c[m].fn)++;
          } else if (v[m]) {
            c[m].fp++;
          }
        }
      }
    }
    if (print) std::printf("%-24s", cls.name.c_str());
    for (int m = 0; m < kMethods; ++m) {
      sum.overall[m].tp += c[m].tp;
      sum.overall[m].fp += c[m].fp;
      sum.overall[m].fn += c[m].fn;
      sum.min_recall[m] = std::min(sum.min_recall[m], c[m].Recall());
      if (print)
        std::printf(" | %.3f %.3f %.3f", c[m].Recall(), c[m].Precision(),
                    c[m].F1());
    }
    if (print) std::printf("\n");
    std::fflush(stdout);
  }
  // False positives among distinct ham.
  int shown = 0;
  for (std::size_t i = 0; i < ham.size(); ++i) {
    for (std::size_t j = i + 1; j < ham.size(); ++j) {
      const auto v = Verdicts(ham[i], ham[j], o);
      // Natural near-duplicates (the same FAQ posted twice) are not distinct
      // messages: counted apart, flagged or not.
      if (s.natural->Contains(ham_docs[i], ham_docs[j])) {
        ++sum.natural;
        for (int m = 0; m < kMethods; ++m) sum.natural_found[m] += v[m];
        continue;
      }
      Dump(2, "distinct", ham[i], ham[j], o);
      const bool is_short =
          ham[i].print.body_bytes < 500 && ham[j].print.body_bytes < 500;
      ++sum.distinct_pairs;
      if (is_short) ++sum.short_pairs;
      for (int m = 0; m < kMethods; ++m) {
        if (!v[m]) continue;
        ++sum.distinct_fp[m];
        if (is_short) ++sum.short_fp[m];
      }
      if (v[kCombined] && shown < s.show_fp) {
        ++shown;
        const fp::Comparison c = fp::Compare(ham[i].print, ham[j].print, o);
        std::printf("FP %s %s method=%s sim=%.3f edit=%.3f ham=%u\n",
                    ham_names[i].c_str(), ham_names[j].c_str(),
                    std::string(fp::MethodName(c.method)).c_str(),
                    c.similarity.value_or(-1), c.edit_rate.value_or(-1),
                    c.hamming);
      }
    }
  }
  if (print) {
    std::printf("%-24s", "OVERALL");
    for (int m = 0; m < kMethods; ++m) {
      std::printf(" | %.3f %.3f %.3f", sum.overall[m].Recall(),
                  sum.overall[m].Precision(), sum.overall[m].F1());
    }
    std::printf("\n%-24s", "min class recall");
    for (int m = 0; m < kMethods; ++m)
      std::printf(" | %.3f            ", sum.min_recall[m]);
    std::printf(
        "\n\nfalse positives on distinct ham pairs (%llu pairs; %llu short, "
        "both < 500 B;"
        " %llu natural near-duplicate pairs left out):\n",
        static_cast<unsigned long long>(sum.distinct_pairs),
        static_cast<unsigned long long>(sum.short_pairs),
        static_cast<unsigned long long>(sum.natural));
    for (int m = 0; m < kMethods; ++m) {
      std::printf("  %-9s all %6llu (%.2e)   short %5llu (%.2e)\n",
                  kMethodNames[m],
                  static_cast<unsigned long long>(sum.distinct_fp[m]),
                  static_cast<double>(sum.distinct_fp[m]) /
                      static_cast<double>(sum.distinct_pairs),
                  static_cast<unsigned long long>(sum.short_fp[m]),
                  sum.short_pairs ? static_cast<double>(sum.short_fp[m]) /
                                        static_cast<double>(sum.short_pairs)
                                  : 0.0);
    }
    std::printf(
        "natural near-duplicate ham pairs (text edit rate < %.1f) each method "
        "calls duplicates:\n",
        mv::kNaturalEditRate);
    for (int m = 0; m < kMethods; ++m) {
      std::printf("  %-9s %6llu of %llu\n", kMethodNames[m],
                  static_cast<unsigned long long>(sum.natural_found[m]),
                  static_cast<unsigned long long>(sum.natural));
    }
  }
  return sum;
}

bool ParseFolds(const std::string& list, fp::FoldOptions& f) {
  f = {false, false, false, false, false};
  if (list == "none") return true;
  if (list == "all") {
    f = {true, true, true, true, true};
    return true;
  }
  std::size_t i = 0;
  while (i <= list.size()) {
    std::size_t e = list.find(',', i);
    if (e == std::string::npos) e = list.size();
    const std::string name = list.substr(i, e - i);
    if (name == "hash_busters")
      f.hash_busters = true;
    else if (name == "numbers")
      f.numbers = true;
    else if (name == "urls")
      f.urls = true;
    else if (name == "emails")
      f.emails = true;
    else if (name == "greetings")
      f.greetings = true;
    else
      return false;
    i = e + 1;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus_dir = mv::DefaultCorpusDir(MW_SOURCE_DIR).string();
  Setup s;
  fp::Options options;
  bool fold_study = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fingerprint_eval: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--corpus")
      corpus_dir = next();
    else if (a == "--bases")
      s.bases = std::stoul(next());
    else if (a == "--half")
      s.half = std::stoi(next());
    else if (a == "--seed")
      s.seed = std::stoull(next());
    else if (a == "--show-fp")
      s.show_fp = std::stoi(next());
    else if (a == "--fold-study")
      fold_study = true;
    else if (a == "--dump")
      g_dump = std::fopen(next().c_str(), "w");
    else if (a == "--threshold")
      options.duplicate_threshold = std::stod(next());
    else if (a == "--band")
      options.paragraph_band = std::stod(next());
    else if (a == "--unweighted")
      options.weigh_blocks = false;
    else if (a == "--confirm-similarity")
      options.confirm_similarity = std::stod(next());
    else if (a == "--confirm-hamming")
      options.confirm_hamming = static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--containment")
      options.containment_threshold = std::stod(next());
    else if (a == "--containment-ratio")
      options.containment_length_ratio = std::stod(next());
    else if (a == "--containment-hamming")
      options.containment_hamming =
          static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--containment-min-lines")
      options.containment_min_lines = std::stoul(next());
    else if (a == "--reorder-min-words")
      options.reorder_min_words =
          static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--reorder-hamming")
      options.reorder_hamming = static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--ctph-min")
      options.ctph_min_bytes = std::stoul(next());
    else if (a == "--min-lines")
      options.min_paragraph_blocks = std::stoul(next());
    else if (a == "--ctph-rate")
      options.ctph_edit_rate = std::stod(next());
    else if (a == "--tail-ratio")
      options.words_tail_length_ratio = std::stod(next());
    else if (a == "--tail-rate")
      options.words_tail_edit_rate = std::stod(next());
    else if (a == "--tail-similarity")
      options.words_tail_similarity = std::stod(next());
    else if (a == "--tail-share")
      options.words_tail_max_share = std::stod(next());
    else if (a == "--reorder-sketch")
      options.reorder_sketch = std::stod(next());
    else if (a == "--reorder-containment")
      options.reorder_containment = std::stod(next());
    else if (a == "--reorder-near-hamming")
      options.reorder_near_hamming =
          static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--k")
      options.simhash_max_distance =
          static_cast<std::uint32_t>(std::stoul(next()));
    else if (a == "--folds") {
      if (!ParseFolds(next(), options.folds)) {
        std::fprintf(stderr, "fingerprint_eval: bad --folds list\n");
        return 2;
      }
    } else {
      std::fprintf(
          stderr,
          "usage: fingerprint_eval [--corpus DIR] [--bases N] [--seed S] "
          "[--folds LIST|all|none] [--fold-study] [--show-fp N] [--threshold "
          "T] [--ctph-rate P] [--k K] [--half 1|2] [--dump FILE] "
          "[--tail-ratio R] [--tail-rate E] [--tail-similarity S] "
          "[--tail-share F] [--reorder-sketch J] [--reorder-containment C] "
          "[--reorder-near-hamming H]\n");
      return 2;
    }
  }
  if (!fs::is_directory(corpus_dir)) {
    std::printf(
        "fingerprint_eval: corpus %s not found; nothing to evaluate "
        "(skipped)\n",
        corpus_dir.c_str());
    return 0;
  }
  mw::mime::Init();
  const auto t0 = std::chrono::steady_clock::now();
  s.corpus = mv::ReadCorpus(corpus_dir);
  s.base_candidates = mv::BaseCandidates(s.corpus, s.seed);
  std::vector<std::size_t> all_ham;
  for (std::size_t d = 0; d < s.corpus.docs.size(); ++d) {
    if (s.corpus.docs[d].ham && !s.corpus.docs[d].body.empty()) {
      all_ham.push_back(d);
    }
  }
  const mv::NaturalPairs natural(s.corpus, all_ham);
  s.natural = &natural;
  std::printf(
      "corpus: %zu files, %zu distinct bodies, %zu natural near-duplicate "
      "ham pairs (%.1f s to parse and pair)\n",
      s.corpus.files, s.corpus.docs.size(), natural.size(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count());

  if (!fold_study) {
    Run(s, options, true);
    return 0;
  }
  struct Variant {
    const char* name;
    const char* folds;
  };
  const Variant variants[] = {
      {"none", "none"},
      {"hash_busters", "hash_busters"},
      {"numbers", "numbers"},
      {"urls", "urls"},
      {"emails", "emails"},
      {"greetings", "greetings"},
      {"all", "all"},
      {"all - hash_busters", "numbers,urls,emails,greetings"},
      {"all - numbers", "hash_busters,urls,emails,greetings"},
      {"all - urls", "hash_busters,numbers,emails,greetings"},
      {"all - emails", "hash_busters,numbers,urls,greetings"},
      {"all - greetings", "hash_busters,numbers,urls,emails"},
  };
  std::printf(
      "%-20s | mailwave F1  min-recall  distinct-FP  short-FP | blocks F1  "
      "ctph F1  "
      "simhash F1\n",
      "folds");
  for (const Variant& v : variants) {
    fp::Options o = options;
    ParseFolds(v.folds, o.folds);
    const Summary r = Run(s, o, false);
    std::printf(
        "%-20s | %.4f       %.3f       %.2e     %.2e | %.4f     %.4f   %.4f\n",
        v.name, r.overall[kCombined].F1(), r.min_recall[kCombined],
        static_cast<double>(r.distinct_fp[kCombined]) /
            static_cast<double>(r.distinct_pairs),
        r.short_pairs ? static_cast<double>(r.short_fp[kCombined]) /
                            static_cast<double>(r.short_pairs)
                      : 0.0,
        r.overall[kBlocks].F1(), r.overall[kCtph].F1(),
        r.overall[kSimHash].F1());
    std::fflush(stdout);
  }
  return 0;
}
