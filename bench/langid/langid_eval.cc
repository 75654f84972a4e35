// langid_eval: accuracy of mw::langid per language and per category on the
// development set (shared/data/langid-dev: single words, word pairs,
// sentences), its behaviour on languages it does not cover, bilingual accuracy
// on two-language samples built from the dev sentences, and throughput; in the
// same run and on the same lines, CLD2 as the baseline.
//
//   langid_eval [--dev DIR] [--dict FILE] [--split all|tune|report] [--tune]
//               [--k1 X] [--k2 X] [--k-unknown X] [--min-score X]
//               [--bilingual-min X]
//
// --split: "tune" uses the even lines (0-based) of every dev file, "report" the
// odd ones;
// --tune grid-searches K1, K2, K_unknown and the thresholds on the tune half
// and prints the best settings and their accuracy on the report half. Exits 0
// with a notice when the dev set is absent. Single words and word pairs are
// scored as forced best guesses
// (--min-words 1 --min-score 0); sentences with the decision thresholds (und is
// wrong) and also forced.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "langid/langid.h"
#include "langid/model.h"
#include "mime/message.h"

#ifdef MW_HAVE_CLD2
#include <cld2/public/compact_lang_det.h>
#endif

namespace {

namespace fs = std::filesystem;
using mw::langid::Evidence;
using mw::langid::Language;
using mw::langid::Model;
using mw::langid::Options;

constexpr const char* kCategories[3] = {"single-words", "word-pairs",
                                        "sentences"};

struct Line {
  std::string raw;
  std::string text;  // normalised
  Evidence evidence;
  std::string cld2;
};

struct Corpus {
  // [category][language] -> lines
  std::map<std::string, std::vector<Line>> by_lang[3];
  std::uint64_t bytes = 0;
};

std::vector<std::string> ReadLines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::string Cld2Code(const std::string& raw) {
#ifdef MW_HAVE_CLD2
  bool reliable = false;
  int valid = 0;
  const CLD2::Language l = CLD2::DetectLanguageCheckUTF8(
      raw.data(), static_cast<int>(raw.size()), true, &reliable, &valid);
  std::string code = CLD2::LanguageCode(l);
  if (code == "un" || code == "xxx") return "und";
  if (code == "iw") return "he";
  if (code == "no") return "nb";
  if (code == "zh-Hant") return "zh";
  if (code == "tl" || code == "fil") return "tl";
  return code;
#else
  (void)raw;
  return "und";
#endif
}

bool Correct(const std::string& got, const std::string& want) {
  return got == want;
}

struct Scores {
  // per language: accuracy per category; [3] = sentences forced
  std::map<std::string, std::array<double, 4>> ours;
  std::map<std::string, std::array<double, 3>> cld2;
};

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

std::array<double, 4> Evaluate(const Corpus& c, const std::string& lang,
                               const Model& model, const Options& options) {
  Options forced = options;
  forced.min_words = 1;
  forced.min_score = 0;
  std::array<double, 4> acc{};
  for (int cat = 0; cat < 3; ++cat) {
    auto it = c.by_lang[cat].find(lang);
    if (it == c.by_lang[cat].end() || it->second.empty()) continue;
    std::size_t ok = 0, ok_forced = 0;
    for (const Line& l : it->second) {
      if (cat < 2) {
        ok += mw::langid::Decide(l.evidence, model, forced).code == lang;
      } else {
        ok += mw::langid::Decide(l.evidence, model, options).code == lang;
        ok_forced += mw::langid::Decide(l.evidence, model, forced).code == lang;
      }
    }
    acc[cat] = 100.0 * ok / it->second.size();
    if (cat == 2) acc[3] = 100.0 * ok_forced / it->second.size();
  }
  return acc;
}

// Two-language samples: for each covered language A and the covered language B
// that follows it in a fixed shuffled order, 10 samples of two consecutive
// sentences of A followed by two of B.
struct Bilingual {
  std::string a, b;
  Evidence evidence;
};

std::vector<Bilingual> MakeBilingual(const Corpus& c,
                                     const std::vector<std::string>& covered,
                                     const Model& model) {
  std::vector<std::string> order = covered;
  // Fixed permutation: sort by a hash of the code.
  std::sort(order.begin(), order.end(),
            [](const std::string& x, const std::string& y) {
              auto h = [](const std::string& s) {
                std::uint32_t v = 2166136261u;
                for (char ch : s)
                  v = (v ^ static_cast<unsigned char>(ch)) * 16777619u;
                return v;
              };
              return h(x) < h(y);
            });
  std::vector<Bilingual> out;
  const auto& sentences = c.by_lang[2];
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::string& a = order[i];
    const std::string& b = order[(i + 1) % order.size()];
    auto ia = sentences.find(a), ib = sentences.find(b);
    if (ia == sentences.end() || ib == sentences.end()) continue;
    for (std::size_t k = 0; k < 10; ++k) {
      const std::size_t j = 2 * k + 1;
      if (j >= ia->second.size() || j >= ib->second.size()) break;
      const std::string text =
          ia->second[j - 1].text + "\n" + ia->second[j].text + "\n" +
          ib->second[j - 1].text + "\n" + ib->second[j].text;
      out.push_back({a, b, mw::langid::Collect(text, model)});
    }
  }
  return out;
}

double BilingualAccuracy(const std::vector<Bilingual>& samples,
                         const Model& model, const Options& o) {
  if (samples.empty()) return 0;
  std::size_t ok = 0;
  for (const Bilingual& s : samples) {
    const Language l = mw::langid::Decide(s.evidence, model, o);
    ok +=
        l.bilingual && (l.code == s.a + "+" + s.b || l.code == s.b + "+" + s.a);
  }
  return 100.0 * ok / samples.size();
}

// Monolingual texts of four lines (four consecutive sentences of one covered
// language, from the 21st on): the share given a bilingual verdict (false
// bilingual).
std::vector<Bilingual> MakeMonolingual(const Corpus& c,
                                       const std::vector<std::string>& covered,
                                       const Model& model) {
  std::vector<Bilingual> out;
  for (const std::string& lang : covered) {
    auto it = c.by_lang[2].find(lang);
    if (it == c.by_lang[2].end()) continue;
    for (std::size_t k = 0; k < 10; ++k) {
      const std::size_t j = 20 + 4 * k;
      if (j + 3 >= it->second.size()) break;
      std::string text;
      for (std::size_t m = j; m < j + 4; ++m) text += it->second[m].text + "\n";
      out.push_back({lang, lang, mw::langid::Collect(text, model)});
    }
  }
  return out;
}

double FalseBilingual(const std::vector<Bilingual>& samples, const Model& model,
                      const Options& o) {
  if (samples.empty()) return 0;
  std::size_t bad = 0;
  for (const Bilingual& s : samples)
    bad += mw::langid::Decide(s.evidence, model, o).bilingual;
  return 100.0 * bad / samples.size();
}

// Share of the sentences of uncovered languages answered "und" (the right
// answer there).
double UncoveredUnd(const Corpus& c, const std::vector<std::string>& uncovered,
                    const Model& model, const Options& o) {
  std::vector<double> rates;
  for (const std::string& lang : uncovered) {
    auto it = c.by_lang[2].find(lang);
    if (it == c.by_lang[2].end() || it->second.empty()) continue;
    std::size_t und = 0;
    for (const Line& l : it->second)
      und += mw::langid::Decide(l.evidence, model, o).code == "und";
    rates.push_back(100.0 * und / it->second.size());
  }
  return Mean(rates);
}

double Objective(const Corpus& c, const std::vector<std::string>& covered,
                 const std::vector<std::string>& uncovered,
                 const std::vector<Bilingual>& bi, const Model& model,
                 const Options& o) {
  std::vector<double> cat[3];
  for (const std::string& lang : covered) {
    const auto a = Evaluate(c, lang, model, o);
    for (int k = 0; k < 3; ++k) cat[k].push_back(a[k]);
  }
  return (Mean(cat[0]) + Mean(cat[1]) + Mean(cat[2]) +
          BilingualAccuracy(bi, model, o) +
          UncoveredUnd(c, uncovered, model, o)) /
         5;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dev = MW_SOURCE_DIR "/../shared/data/langid-dev";
  std::string dict = MW_BINARY_DIR "/share/mailwave/langid.dict";
  std::string split = "all";
  bool tune = false;
  std::string show;  // --show LANG: print its wrongly guessed sentences
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--dev")
      dev = next();
    else if (a == "--dict")
      dict = next();
    else if (a == "--split")
      split = next();
    else if (a == "--tune")
      tune = true;
    else if (a == "--k1")
      options.k1 = std::stod(next());
    else if (a == "--k2")
      options.k2 = std::stod(next());
    else if (a == "--k-unknown")
      options.k_unknown = std::stod(next());
    else if (a == "--min-score")
      options.min_score = std::stod(next());
    else if (a == "--bilingual-min")
      options.bilingual_min_score = std::stod(next());
    else if (a == "--ngram")
      options.ngram_weight = std::stod(next());
    else if (a == "--show")
      show = next();
    else if (a == "--close")
      options.close_ratio = std::stod(next());
    else {
      std::fprintf(stderr,
                   "usage: langid_eval [--dev DIR] [--dict FILE] [--split "
                   "all|tune|report] [--tune] [--k1 X] [--k2 X] [--k-unknown "
                   "X] [--min-score X] [--bilingual-min X]\n");
      return 2;
    }
  }
  if (!fs::is_directory(dev + "/sentences")) {
    std::printf("langid_eval: SKIPPED: no development set at %s\n",
                dev.c_str());
    return 0;
  }
  auto model = Model::Open(dict);
  if (!model) {
    std::fprintf(stderr, "langid_eval: %s\n", model.error().message().c_str());
    return 1;
  }
  mw::mime::Init();

  // Load, normalise and collect evidence once; time ours and CLD2 on the same
  // lines.
  Corpus corpus;
  double t_norm = 0, t_detect = 0, t_cld2 = 0;
  std::set<std::string> dev_langs;
  auto now = [] { return std::chrono::steady_clock::now(); };
  auto secs = [](auto a, auto b) {
    return std::chrono::duration<double>(b - a).count();
  };
  std::vector<std::string> tune_split_langs;
  for (int cat = 0; cat < 3; ++cat) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dev + "/" + kCategories[cat])) {
      if (e.path().extension() == ".txt") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      const std::string lang = f.stem().string();
      dev_langs.insert(lang);
      std::vector<std::string> lines = ReadLines(f);
      auto& out = corpus.by_lang[cat][lang];
      for (std::size_t i = 0; i < lines.size(); ++i) {
        if (split == "tune" && i % 2 != 0) continue;
        if (split == "report" && i % 2 != 1) continue;
        Line l;
        l.raw = std::move(lines[i]);
        corpus.bytes += l.raw.size();
        auto t0 = now();
        l.text = mw::mime::NormaliseText(l.raw);
        auto t1 = now();
        l.evidence = mw::langid::Collect(l.text, *model);
        auto t2 = now();
        l.cld2 = Cld2Code(l.raw);
        auto t3 = now();
        t_norm += secs(t0, t1);
        t_detect += secs(t1, t2);
        t_cld2 += secs(t2, t3);
        out.push_back(std::move(l));
      }
    }
  }

  // Covered: the languages of the dictionary (those with a word list, and those
  // recorded as decided by their script). Languages a script decides without a
  // list (gu, pa, ...) are reported with the uncovered ones.
  std::set<std::string> can_answer;
  std::set<std::string> by_script_only;
  for (const auto& l : model->languages()) can_answer.insert(l.code);
  for (std::size_t i = model->languages().size();; ++i) {
    const std::string_view code = mw::langid::CandidateCode(*model, i);
    if (code.empty()) break;
    if (!can_answer.count(std::string(code)))
      by_script_only.insert(std::string(code));
  }
  std::vector<std::string> covered, uncovered;
  for (const std::string& l : dev_langs)
    (can_answer.count(l) ? covered : uncovered).push_back(l);

  // CLD2 supports a language when it names it on at least one dev line.
  std::set<std::string> cld2_names;
  for (int cat = 0; cat < 3; ++cat) {
    for (const auto& [lang, lines] : corpus.by_lang[cat]) {
      for (const Line& l : lines) cld2_names.insert(l.cld2);
    }
  }

  if (tune) {
    // A grid over the constants on this split. Ranking (forced guesses) depends
    // on K1 and K2 only; K_unknown and the thresholds affect sentences (und)
    // and bilingual verdicts.
    std::vector<Bilingual> bi = MakeBilingual(corpus, covered, *model);
    struct Result {
      double objective;
      Options o;
    };
    std::vector<Result> results;
    for (double k1 : {1.0, 4.0}) {
      for (double k2 : {0.5, 1.0}) {
        for (double ku : {0.25, 0.5, 1.0, 2.0}) {
          for (double ms : {30.0, 40.0, 50.0}) {
            for (double bm : {5.0, 10.0}) {
              for (double ngw : {0.5, 1.0}) {
                Options o = options;
                o.k1 = k1, o.k2 = k2, o.k_unknown = ku, o.min_score = ms;
                o.bilingual_min_score = bm, o.ngram_weight = ngw;
                results.push_back(
                    {Objective(corpus, covered, uncovered, bi, *model, o), o});
              }
            }
          }
        }
      }
    }
    std::sort(results.begin(), results.end(),
              [](const Result& a, const Result& b) {
                return a.objective > b.objective;
              });
    std::printf(
        "tuning on split '%s': objective = mean(words, pairs, sentences, "
        "bilingual, "
        "und rate on uncovered sentences)\n",
        split.c_str());
    for (std::size_t i = 0; i < std::min<std::size_t>(10, results.size());
         ++i) {
      const Options& o = results[i].o;
      std::vector<double> cat[3];
      for (const std::string& lang : covered) {
        const auto a = Evaluate(corpus, lang, *model, o);
        for (int k = 0; k < 3; ++k) cat[k].push_back(a[k]);
      }
      std::printf(
          "  %.2f  k1=%.2f k2=%.2f k_unknown=%.2f min_score=%.0f "
          "bilingual_min=%.0f ngram=%.1f"
          "  (words %.1f pairs %.1f sentences %.1f bilingual %.1f "
          "uncovered-und %.1f)\n",
          results[i].objective, o.k1, o.k2, o.k_unknown, o.min_score,
          o.bilingual_min_score, o.ngram_weight, Mean(cat[0]), Mean(cat[1]),
          Mean(cat[2]), BilingualAccuracy(bi, *model, o),
          UncoveredUnd(corpus, uncovered, *model, o));
    }
    return 0;
  }

  // The two-tier method alone (ngram_weight 0) and with the n-gram tier, same
  // lines.
  Options two_tier = options;
  two_tier.ngram_weight = 0;
  Options with_ngram = options;
  if (with_ngram.ngram_weight == 0) with_ngram.ngram_weight = 1.0;
  std::printf("langid_eval: dev set %s (split %s), dictionary %s\n",
              dev.c_str(), split.c_str(), dict.c_str());
  std::printf(
      "options: k1=%.2f k2=%.2f k_unknown=%.2f min_words=%u min_score=%.1f "
      "bilingual_min=%.1f bilingual_min_lines=%.2f; n-gram columns: "
      "ngram_weight=%.2f\n",
      options.k1, options.k2, options.k_unknown, options.min_words,
      options.min_score, options.bilingual_min_score,
      options.bilingual_min_lines, with_ngram.ngram_weight);
  std::printf(
      "words and pairs: forced best guess (--min-words 1 --min-score 0); sent: "
      "default "
      "thresholds (und and\nbilingual verdicts count as wrong); sent-f: "
      "sentences forced\n\n");
  std::printf("%-5s %-6s | %-27s | %-27s | %-20s\n", "", "",
              "two-tier dictionaries", "with n-gram tier", "CLD2");
  std::printf("%-5s %-6s | %6s %6s %6s %6s | %6s %6s %6s %6s | %6s %6s %6s\n",
              "lang", "via", "words", "pairs", "sent", "sent-f", "words",
              "pairs", "sent", "sent-f", "words", "pairs", "sent");
  std::vector<double> ours[4], ng[4], cld[3], ours_both[3], ng_both[3],
      cld_both[3];
  for (const std::string& lang : covered) {
    const auto a = Evaluate(corpus, lang, *model, two_tier);
    const auto g = Evaluate(corpus, lang, *model, with_ngram);
    std::array<double, 3> c{};
    for (int cat = 0; cat < 3; ++cat) {
      const auto& lines = corpus.by_lang[cat][lang];
      std::size_t ok = 0;
      for (const Line& l : lines) ok += Correct(l.cld2, lang);
      c[cat] = lines.empty() ? 0 : 100.0 * ok / lines.size();
    }
    const bool cld2_supports = cld2_names.count(lang) > 0;
    std::printf(
        "%-5s %-6s | %6.1f %6.1f %6.1f %6.1f | %6.1f %6.1f %6.1f %6.1f | ",
        lang.c_str(),
        model->languages()[model->FindLanguage(lang)].script_decided ? "script"
                                                                     : "list",
        a[0], a[1], a[2], a[3], g[0], g[1], g[2], g[3]);
    if (cld2_supports) {
      std::printf("%6.1f %6.1f %6.1f\n", c[0], c[1], c[2]);
    } else {
      std::printf("%6s %6s %6s\n", "-", "-", "-");
    }
    for (int k = 0; k < 4; ++k) ours[k].push_back(a[k]), ng[k].push_back(g[k]);
    if (cld2_supports) {
      for (int k = 0; k < 3; ++k) {
        cld[k].push_back(c[k]);
        ours_both[k].push_back(a[k]);
        ng_both[k].push_back(g[k]);
        cld_both[k].push_back(c[k]);
      }
    }
  }
  std::printf(
      "\nmean over the %zu covered languages (words / pairs / sentences / "
      "sentences forced):\n"
      "  two-tier       %5.1f / %5.1f / %5.1f / %5.1f\n"
      "  with n-grams   %5.1f / %5.1f / %5.1f / %5.1f\n",
      covered.size(), Mean(ours[0]), Mean(ours[1]), Mean(ours[2]),
      Mean(ours[3]), Mean(ng[0]), Mean(ng[1]), Mean(ng[2]), Mean(ng[3]));
  std::printf(
      "mean over the %zu covered languages CLD2 also supports (words / pairs / "
      "sentences):\n"
      "  two-tier       %5.1f / %5.1f / %5.1f\n"
      "  with n-grams   %5.1f / %5.1f / %5.1f\n"
      "  CLD2           %5.1f / %5.1f / %5.1f\n",
      ours_both[0].size(), Mean(ours_both[0]), Mean(ours_both[1]),
      Mean(ours_both[2]), Mean(ng_both[0]), Mean(ng_both[1]), Mean(ng_both[2]),
      Mean(cld_both[0]), Mean(cld_both[1]), Mean(cld_both[2]));
  std::size_t cld2_und = 0, cld2_sent = 0;
  for (const std::string& lang : covered) {
    for (const Line& l : corpus.by_lang[2][lang])
      cld2_und += l.cld2 == "und", ++cld2_sent;
  }
  std::printf("CLD2 answers und on %.1f%% of covered-language sentences\n",
              cld2_sent ? 100.0 * cld2_und / cld2_sent : 0.0);

  // Where the forced sentence guesses go wrong: the confusions that the
  // sentence target depends on (close pairs such as bs/hr/sr, id/ms).
  {
    Options forced = with_ngram;
    forced.min_words = 1;
    forced.min_score = 0;
    std::printf(
        "\nconfusions on sentences (with n-grams, forced; languages below "
        "99%%): wrong answers, most frequent first, and the lines where CLD2 "
        "gives the same wrong answer\n(often lines in another language than "
        "their file's, or mostly names)\n");
    for (const std::string& lang : covered) {
      const auto& lines = corpus.by_lang[2][lang];
      if (lines.empty()) continue;
      std::map<std::string, int> wrong;
      std::size_t bad = 0;
      std::size_t cld2_same = 0;  // wrong lines where CLD2 gives our answer
      for (const Line& l : lines) {
        const std::string code =
            mw::langid::Decide(l.evidence, *model, forced).code;
        if (code != lang) ++wrong[code], ++bad, cld2_same += l.cld2 == code;
        if (code != lang && lang == show)
          std::printf("    %s: %s\n", code.c_str(), l.raw.c_str());
      }
      if (100.0 * bad / lines.size() <= 1.0) continue;
      std::vector<std::pair<int, std::string>> top;
      for (const auto& [code, k] : wrong) top.emplace_back(k, code);
      std::sort(top.rbegin(), top.rend());
      std::printf("  %-4s %5.1f%% wrong:", lang.c_str(),
                  100.0 * bad / lines.size());
      for (std::size_t i = 0; i < std::min<std::size_t>(4, top.size()); ++i) {
        std::printf(" %s %.1f%%", top[i].second.c_str(),
                    100.0 * top[i].first / lines.size());
      }
      std::printf("; CLD2 says the same on %.1f%%\n",
                  100.0 * cld2_same / lines.size());
    }
  }

  // Uncovered languages: what the detector says on their sentences.
  std::printf(
      "\nuncovered languages (%zu; \"(script)\": no list, but their script "
      "names them):\n"
      "verdicts on sentences with the default thresholds, two-tier | with "
      "n-grams\n",
      uncovered.size());
  double unc_und[2] = {0, 0};
  std::size_t unc_total = 0;
  for (const std::string& lang : uncovered) {
    const auto& lines = corpus.by_lang[2][lang];
    if (lines.empty()) continue;
    std::printf("  %-4s%-9s", lang.c_str(),
                by_script_only.count(lang) ? " (script)" : "");
    int v = 0;
    for (const Options* o : {&two_tier, &with_ngram}) {
      std::map<std::string, int> answers;
      for (const Line& l : lines)
        ++answers[mw::langid::Decide(l.evidence, *model, *o).code];
      std::vector<std::pair<int, std::string>> top;
      for (const auto& [code, n] : answers) top.emplace_back(n, code);
      std::sort(top.rbegin(), top.rend());
      std::string line;
      for (std::size_t i = 0; i < std::min<std::size_t>(3, top.size()); ++i) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " %s %.0f%%", top[i].second.c_str(),
                      100.0 * top[i].first / lines.size());
        line += buf;
      }
      std::printf("%-32s%s", line.c_str(), v == 0 ? " |" : "\n");
      unc_und[v] += answers["und"];
      ++v;
    }
    unc_total += lines.size();
  }
  std::printf(
      "  all uncovered sentences: und %.1f%% (two-tier), %.1f%% (with "
      "n-grams)\n",
      unc_total ? 100.0 * unc_und[0] / unc_total : 0.0,
      unc_total ? 100.0 * unc_und[1] / unc_total : 0.0);

  const std::vector<Bilingual> bi = MakeBilingual(corpus, covered, *model);
  const std::vector<Bilingual> mono = MakeMonolingual(corpus, covered, *model);
  std::printf(
      "\nbilingual: %zu samples (2 sentences of A then 2 of B, one per line; "
      "%zu "
      "language pairs):\n  both languages named: %.1f%% (two-tier), %.1f%% "
      "(with "
      "n-grams)\n",
      bi.size(), covered.size(), BilingualAccuracy(bi, *model, two_tier),
      BilingualAccuracy(bi, *model, with_ngram));
  std::printf(
      "  false bilingual on %zu monolingual 4-line samples: %.1f%% (two-tier), "
      "%.1f%% "
      "(with n-grams)\n",
      mono.size(), FalseBilingual(mono, *model, two_tier),
      FalseBilingual(mono, *model, with_ngram));
  {
    // Where the misses are: pairs with at least one miss, and what was said.
    std::map<std::string, std::pair<int, std::map<std::string, int>>> misses;
    for (const Bilingual& s : bi) {
      const Language l = mw::langid::Decide(s.evidence, *model, with_ngram);
      if (l.bilingual &&
          (l.code == s.a + "+" + s.b || l.code == s.b + "+" + s.a)) {
        continue;
      }
      auto& m = misses[s.a + "+" + s.b];
      ++m.first;
      ++m.second[l.code];
    }
    std::printf("  misses (with n-grams) by pair: ");
    int shown = 0;
    for (const auto& [pair, m] : misses) {
      std::printf("%s%s %d/10 (", shown++ ? "; " : "", pair.c_str(), m.first);
      int k = 0;
      for (const auto& [said, n] : m.second) {
        std::printf("%s%s %d", k++ ? ", " : "", said.c_str(), n);
      }
      std::printf(")");
    }
    std::printf("\n");
  }
  // The trade-off of the two bilingual knobs (named vs false bilingual), with
  // n-grams.
  for (double bml : {0.1, 0.2, 0.3}) {
    std::printf(
        "  bilingual_min_lines %.2f, bilingual_min_score 5/10/20: named", bml);
    for (double bms : {5.0, 10.0, 20.0}) {
      Options o = with_ngram;
      o.bilingual_min_lines = bml;
      o.bilingual_min_score = bms;
      std::printf(" %.1f%% (false %.1f%%)", BilingualAccuracy(bi, *model, o),
                  FalseBilingual(mono, *model, o));
    }
    std::printf("\n");
  }

  // The trade-off of the tie-break between close candidates (close_ratio;
  // 1 = off), with n-grams: the means over the covered languages.
  std::printf(
      "\ntie-break close_ratio (1 = off): words / pairs / sentences / "
      "sentences forced, bilingual named (false)\n");
  for (double cr : {1.0, 0.7, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0}) {
    Options o = with_ngram;
    o.close_ratio = cr;
    std::vector<double> cat[4];
    for (const std::string& lang : covered) {
      const auto a = Evaluate(corpus, lang, *model, o);
      for (int k = 0; k < 4; ++k) cat[k].push_back(a[k]);
    }
    std::printf("  %.2f: %5.2f / %5.2f / %5.2f / %5.2f, %.1f%% (%.1f%%)\n", cr,
                Mean(cat[0]), Mean(cat[1]), Mean(cat[2]), Mean(cat[3]),
                BilingualAccuracy(bi, *model, o),
                FalseBilingual(mono, *model, o));
  }

  const double mb = corpus.bytes / 1e6;
  std::printf(
      "\nthroughput over %.2f MB (all dev lines of the split, one call per "
      "line; "
      "mailwave time includes the n-gram tier):\n",
      mb);
  std::printf(
      "  mailwave normalise+detect %.1f MB/s (detect alone %.1f MB/s)\n",
      mb / (t_norm + t_detect), mb / t_detect);
#ifdef MW_HAVE_CLD2
  std::printf("  CLD2                      %.1f MB/s\n", mb / t_cld2);
  // Message-sized texts: all sentences of a language in one call each (about 60
  // KB).
  // Also timed: normalisation alone, and detection without the per-text word
  // memo (every occurrence scored afresh, as before the memo), whose evidence
  // must be identical.
  double bulk_bytes = 0, t_ours = 0, t_c2 = 0, t_bulk_norm = 0, t_every = 0;
  std::size_t differ = 0, texts = 0;
  for (const auto& [lang, lines] : corpus.by_lang[2]) {
    std::string text;
    for (const Line& l : lines) text += l.raw + "\n";
    bulk_bytes += text.size();
    auto t0 = now();
    const std::string normalised = mw::mime::NormaliseText(text);
    auto tn = now();
    const Language verdict = mw::langid::Detect(normalised, *model, with_ngram);
    auto t1 = now();
    const std::string c2 = Cld2Code(text);
    auto t2 = now();
    const Language every = mw::langid::Decide(
        mw::langid::TEST_CollectEveryWord(normalised, *model), *model,
        with_ngram);
    auto t3 = now();
    t_ours += secs(t0, t1);
    t_bulk_norm += secs(t0, tn);
    t_c2 += secs(t1, t2);
    t_every += secs(t2, t3);
    ++texts;
    if (every.code != verdict.code || every.score != verdict.score ||
        every.second_score != verdict.second_score) {
      ++differ;
    }
  }
  const double bulk_mb = bulk_bytes / 1e6;
  std::printf(
      "throughput on %.2f MB of message-sized texts (each language's sentences "
      "joined):\n"
      "  mailwave normalise+detect %.1f MB/s (normalise alone %.1f MB/s, "
      "detect alone %.1f MB/s)\n"
      "  CLD2                      %.1f MB/s\n"
      "  detect without the word memo %.1f MB/s; verdicts and scores differ "
      "on %zu of %zu texts\n",
      bulk_mb, bulk_mb / t_ours, bulk_mb / t_bulk_norm,
      bulk_mb / (t_ours - t_bulk_norm), bulk_mb / t_c2, bulk_mb / t_every,
      differ, texts);
#else
  std::printf("  CLD2                      not built (libcld2-dev missing)\n");
#endif
  return 0;
}
