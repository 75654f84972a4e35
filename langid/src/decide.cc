// Decide: the verdict on a text from its Evidence (langid.h): the formula's
// best candidate, the "und" and bilingual rules, and the Chinese script.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "formula.h"
#include "langid/langid.h"

namespace mw::langid {

using internal::Formula;
using internal::kMinSegmentWords;

// Bilingual by line count: each language wins at least 1/kLineShare of the
// lines (of kMinSegmentWords or more words).
constexpr std::uint32_t kLineShare = 3;

namespace {

// The best guess of a text whose words are all common cross-language words
// (Evidence::common_ngram): the mean n-gram share of each language. Leaves
// `result` without a best when the trigrams gave nothing.
void GuessFromCommonWords(const Evidence& e, const Model& model,
                          const Options& options, Language* result) {
  if (e.n_common_ngram == 0) return;
  std::size_t best = e.common_ngram.size(), second = best;
  for (std::size_t i = 0; i < e.common_ngram.size(); ++i) {
    if (e.common_ngram[i] <= 0) continue;
    if (best == e.common_ngram.size() ||
        e.common_ngram[i] > e.common_ngram[best]) {
      second = best;
      best = i;
    } else if (second == e.common_ngram.size() ||
               e.common_ngram[i] > e.common_ngram[second]) {
      second = i;
    }
  }
  if (best == e.common_ngram.size()) return;
  result->best = std::string(CandidateCode(model, best));
  result->score = 100.0 * e.common_ngram[best] / e.n_common_ngram;
  if (second != e.common_ngram.size()) {
    result->second = std::string(CandidateCode(model, second));
    result->second_score = 100.0 * e.common_ngram[second] / e.n_common_ngram;
  }
  if (result->words >= options.min_words &&
      result->score >= options.min_score) {
    result->code = result->best;
  }
}

// The verdict by the formula and the rules, before the Chinese script is named.
Language DecideLanguages(const Evidence& e, const Model& model,
                         const Options& options) {
  Language result;
  result.words = e.n_pure + e.n_shared + e.n_unknown + e.n_common;
  result.scripts = e.scripts;
  const double n_words =
      e.n_pure + e.n_shared + e.n_unknown;  // N_w: common words excluded
  if (n_words == 0) {
    GuessFromCommonWords(e, model, options, &result);
    return result;
  }

  const Formula f(e, options);
  if (!f.valid()) return result;
  const std::size_t n = f.size();
  auto raw = [&](std::size_t i) { return f.Raw(i); };
  // The strongest candidate other than `a` and `b` (n: none).
  auto strongest_except = [&](std::size_t a, std::size_t b) {
    std::size_t pick = n;
    double pick_raw = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (i == a || i == b) continue;
      const double r = raw(i);
      if (r > 0 && (pick == n || r > pick_raw)) pick = i, pick_raw = r;
    }
    return pick;
  };
  std::size_t best = n, second = n;
  f.Rank(&best, &second);
  if (best == n) return result;
  auto score_of = [&](std::size_t i) { return f.Score(i); };
  auto set_second = [&](std::size_t i) {
    if (i == n) return;
    result.second = std::string(CandidateCode(model, i));
    result.second_score = score_of(i);
  };
  result.best = std::string(CandidateCode(model, best));
  result.score = score_of(best);
  if (result.words < options.min_words) {
    set_second(second);
    return result;
  }
  // The words of the won paragraphs (Evidence::paragraphs) per candidate. A
  // paragraph nearly as much in the best language as in its winner's (bs read
  // as hr: the best's score there at least close_ratio of the winner's) counts
  // for the best, when the best wins a paragraph of its own (else the best is
  // a relative of one paragraph's language, tr beside az, that no paragraph
  // is in).
  std::vector<std::uint32_t> won;
  std::uint32_t in_paragraphs = 0;
  if (!e.paragraphs.empty()) {
    won.assign(n, 0);
    bool best_wins = false;
    for (const Evidence::Paragraph& p : e.paragraphs) {
      best_wins = best_wins || p.winner == best;
    }
    for (const Evidence::Paragraph& p : e.paragraphs) {
      const std::size_t who = best_wins && p.close == best ? best : p.winner;
      if (who < n) won[who] += p.words;
      in_paragraphs += p.words;
    }
  }
  // A text of two or more won paragraphs, all in the best language, is not
  // bilingual by its lines: a paragraph is read on more words than a line.
  const bool one_language =
      e.paragraphs.size() >= 2 && won[best] == in_paragraphs;
  std::size_t partner = n;
  if (!e.paragraphs.empty()) {
    // Two paragraphs in two languages (how bilingual mail is written): the
    // best and another language each win paragraphs holding at least
    // bilingual_min_paragraphs of the words of the text's won paragraphs. A
    // short paragraph in a script of long words (Tamil, Arabic) holds few
    // words and wins few lines of 3 or more words, so this needs no score.
    const double need_p = options.bilingual_min_paragraphs * in_paragraphs;
    // The two languages that win the most words (the best first when it wins
    // enough of them): when the best wins too few, the text's two paragraph
    // languages are named, the higher-scoring first (the best of the whole
    // text can be a third language that neither paragraph is in).
    std::size_t first = won[best] >= need_p ? best : n, other = n;
    for (std::size_t pass = first == n ? 0 : 1; pass < 2; ++pass) {
      std::size_t* pick = pass == 0 ? &first : &other;
      for (std::size_t i = 0; i < n; ++i) {
        if (i == first || won[i] == 0) continue;
        if (*pick == n || won[i] > won[*pick]) *pick = i;
      }
    }
    if (first != n && other != n && won[first] >= need_p &&
        won[other] >= need_p) {
      if (first != best) {
        if (f.Raw(other) > f.Raw(first)) std::swap(first, other);
        best = first;
        result.best = std::string(CandidateCode(model, best));
        result.score = score_of(best);
      }
      partner = other;
    }
  }
  // Bilingual: the two best languages together reach min_score, the second has
  // at least bilingual_min_score, and either each falls short of min_score (the
  // rule of issue 4, for a text that is one block) or each wins whole lines
  // holding at least bilingual_min_lines of the words of the text's lines (a
  // message in two languages, a quoted reply).
  std::uint32_t segmented = 0;
  for (std::uint32_t w : e.segment_words) segmented += w;
  const double need = options.bilingual_min_lines * segmented;
  if (partner == n && second != n) {
    const double second_score = score_of(second);
    if (result.score + second_score >= options.min_score &&
        second_score >= options.bilingual_min_score) {
      const bool by_lines =
          segmented > 0 && best < e.segment_words.size() &&
          second < e.segment_words.size() && e.segment_words[best] > 0 &&
          e.segment_words[second] > 0 && e.segment_words[best] >= need &&
          e.segment_words[second] >= need;
      // Or by line count: scripts segment into words of very different sizes
      // (a Japanese or Vietnamese sentence has several times the words of an
      // Indonesian one), so each language winning a third of the lines is
      // enough.
      std::uint32_t lines = 0;
      for (std::uint32_t l : e.segment_lines) lines += l;
      const bool by_line_count = lines > 0 && best < e.segment_lines.size() &&
                                 second < e.segment_lines.size() &&
                                 kLineShare * e.segment_lines[best] >= lines &&
                                 kLineShare * e.segment_lines[second] >= lines;
      if (((by_lines || by_line_count) && !one_language) ||
          result.score < options.min_score) {
        partner = second;
      }
    }
  }
  if (partner == n && !one_language && best < e.segment_words.size() &&
      segmented > 0) {
    // The second language by lines: when the overall second is a relative of
    // the best (es and gl), the other half's language can be third overall
    // and still win its lines.
    std::size_t other = n;
    for (std::size_t i = 0; i < std::min(n, e.segment_words.size()); ++i) {
      if (i == best || e.segment_words[i] == 0) continue;
      if (other == n || e.segment_words[i] > e.segment_words[other]) other = i;
    }
    if (other != n && other != second && e.segment_words[best] >= need &&
        e.segment_words[other] >= need) {
      const double other_score = score_of(other);
      if (other_score >= options.bilingual_min_score &&
          result.score + other_score >= options.min_score) {
        partner = other;
      }
    }
  }
  if (partner != n) {
    result.partner = std::string(CandidateCode(model, partner));
    result.partner_score = score_of(partner);
    result.code = result.best + "+" + result.partner;
    result.bilingual = true;
    set_second(strongest_except(best, partner));
    return result;
  }
  set_second(second);
  if (result.score >= options.min_score) result.code = result.best;
  return result;
}

// A text names a Chinese script when at least this many of its characters mark
// it and they outnumber those marking the other at least this many times
// (tuned on the tune half: docs/langid.md).
constexpr std::uint32_t kMinScriptMarkers = 2;
constexpr std::uint32_t kScriptMarkerRatio = 3;

// "zh" becomes "zh-Hans" or "zh-Hant" (BCP 47) wherever the verdict names it,
// when the marker characters decide; else it stays "zh".
void NameChineseScript(const Evidence& e, Language* l) {
  const char* named = nullptr;
  if (e.han_traditional >= kMinScriptMarkers &&
      e.han_traditional >= kScriptMarkerRatio * e.han_simplified) {
    named = "zh-Hant";
  } else if (e.han_simplified >= kMinScriptMarkers &&
             e.han_simplified >= kScriptMarkerRatio * e.han_traditional) {
    named = "zh-Hans";
  }
  if (named == nullptr) return;
  for (std::string* code : {&l->best, &l->partner, &l->second}) {
    if (*code == "zh") *code = named;
  }
  if (l->bilingual) {
    l->code = l->best + "+" + l->partner;
  } else if (l->code == "zh") {
    l->code = named;
  }
}

// A variant is named for its base when the variant tier's sum
// (Evidence::variant), a log-likelihood ratio, exceeds this: the even odds.
// Other values only trade one of the two for the other on the tune half
// (docs/langid.md), as does naming the variant for a text whose best is
// another relative (Swedish, Danish) on a high sum.
constexpr double kVariantMinSum = 0.0;

// After `from` became `to` among the verdict's languages: the code follows.
void RecodeAs(const std::string& from, const std::string& to, Language* l) {
  if (l->bilingual) {
    l->code = l->best + "+" + l->partner;
  } else if (l->code == from) {
    l->code = to;
  }
}

// `to` wherever the verdict names `from`.
void Rename(const std::string& from, const std::string& to, Language* l) {
  for (std::string* code : {&l->best, &l->partner, &l->second}) {
    if (*code == from) *code = to;
  }
  RecodeAs(from, to, l);
}

// The base's code becomes its variant's wherever the verdict names it, when
// the variant tier says so (the highest sum, should a base have several).
void NameVariant(const Evidence& e, const Model& model, Language* l) {
  for (const std::uint32_t v : model.variants()) {
    if (v >= e.variant.size() || e.variant[v] <= kVariantMinSum) continue;
    const std::string& base =
        model.languages()[model.languages()[v].variant_of].code;
    const std::string& variant = model.languages()[v].code;
    bool best_of_base = true;
    for (const std::uint32_t w : model.variants()) {
      if (w != v &&
          model.languages()[w].variant_of == model.languages()[v].variant_of &&
          w < e.variant.size() && e.variant[w] > e.variant[v]) {
        best_of_base = false;
      }
    }
    if (best_of_base) Rename(base, variant, l);
  }
}

// Whether the verdict's best and second are the two of a pair with the same
// score (the same words, the same shares: 0.9% of the dev word pairs, where
// the list order named one): the word tiers then say nothing between them,
// and a pair's floor, which keeps strong word evidence from a weak sum, has
// nothing to keep. (Tune half, against a floor everywhere: Marathi pairs
// +6.4, sentences +1.2, Hindi pairs -1.6; second scores within 5% or 20% of
// the best gave the same means.)
bool PairTied(const Language& l, const std::string& a, const std::string& b) {
  const bool pair =
      (l.best == a && l.second == b) || (l.best == b && l.second == a);
  return pair && l.partner.empty() && l.second_score >= l.score;
}

// Where the verdict names one of a close pair and the pair's sum favours the
// other (by the pair's pair_min at least, or at all where the two tie:
// PairTied), the other is named in its place
// (where the other is the second, the two change places). A bilingual verdict
// of the two stays as it is.
void NamePair(const Evidence& e, const Model& model, Language* l) {
  for (const std::uint32_t v : model.pairs()) {
    if (v >= e.variant.size() || e.variant[v] == 0.0) continue;
    const std::string& first = model.languages()[v].code;
    const std::string& second =
        model.languages()[model.languages()[v].pair_with].code;
    if (std::abs(e.variant[v]) < model.languages()[v].pair_min &&
        !PairTied(*l, first, second)) {
      continue;
    }
    const std::string& from = e.variant[v] > 0 ? second : first;
    const std::string& to = e.variant[v] > 0 ? first : second;
    const auto names = [&](const std::string& code) {
      return l->best == code || l->partner == code || l->second == code;
    };
    if (!names(from)) continue;
    if (!names(to)) {
      Rename(from, to, l);
    } else if (l->second == to) {
      std::swap(l->best == from ? l->best : l->partner, l->second);
      RecodeAs(from, to, l);
    }  // else both named: as partners, or already in the sum's order
  }
}

}  // namespace

Language Decide(const Evidence& e, const Model& model, const Options& options) {
  Language result = DecideLanguages(e, model, options);
  NameChineseScript(e, &result);
  NameVariant(e, model, &result);
  NamePair(e, model, &result);
  return result;
}

Language Detect(std::string_view text, const Model& model,
                const Options& options) {
  return Decide(Collect(text, model), model, options);
}

}  // namespace mw::langid
