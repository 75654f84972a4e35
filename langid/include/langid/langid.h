// Language identification: Unicode scripts first, then two-tier word
// dictionaries.
//
// Detect() segments normalised text into words with ICU's word BreakIterator
// (which handles Chinese, Japanese and Thai), classifies each word by Unicode
// script and
//  - counts a word of a script that identifies a language alone (Greek -> el,
//    Hangul -> ko, Hiragana/Katakana -> ja, Han -> zh unless the text has
//    kana, ...) as a tier-1 hit for it;
//  - looks every other word up in the Model: tier-1 words add 1 to Xpure of
//    their language, tier-2 words add their per-language weights to Xovp;
//    words in no dictionary are unknown, and the optional n-gram tier turns a
//    share (Options::ngram_weight) of each into tier-2 evidence from its
//    character trigrams; a word in no dictionary with a letter only one list
//    writes (Model::LetterLanguage) is a tier-1 hit for that list's language.
// clang-format off
// The decision formula (docs/langid.md has the derivation and the tuning):
//    N_w = tier-1 hits + tier-2 words + unknown words (common cross-language
//          words such as "a", "in" are known, count for no language and only
//          towards min_words)
//    B_i = 1 + K1 * Xpure_i / N_w
//    T   = sum_i ( Xpure_i != 0 ? B_i * Xovp_i : K2 * Xovp_i )
//    N   = N_pure + T + K_unknown * N_unknown
//    L_i = 100 * ( Xpure_i != 0 ? Xpure_i + B_i * Xovp_i : K2 * Xovp_i ) / N
// clang-format on
// The candidates whose L is within close_ratio of the best's then compete on
// Evidence::affinity, a naive-Bayes ranking of the same word shares; the
// winner becomes the best. The verdict:
//  - "und" when the text has fewer than min_words words ("und" means too
//    little text; the best guess and its score are still reported);
//  - bilingual ("en+es") when the best and another language each win
//    paragraphs (blocks between blank lines; Evidence::paragraphs) holding at
//    least bilingual_min_paragraphs of the won paragraphs' words (two
//    paragraphs in two languages, the way bilingual mail is written; when the
//    best wins too few, the two languages that win the most); else, unless
//    two or more won paragraphs all count for the best, when the two best
//    languages together reach min_score, the second has at least
//    bilingual_min_score, and either each falls short of min_score (a text in
//    one block) or, in a text of several lines, each is the best language of
//    lines holding at least bilingual_min_lines of the words;
//  - otherwise the best language when it reaches min_score; else "und".
// With min_words <= 1 and min_score 0 (forced) every text with a word that
// any tier can score names a language: a text of common cross-language words
// only ("hello") is then decided by their character trigrams
// (Evidence::common_ngram).
// Thread-safety: Detect is reentrant; the Model is shared read-only.
#ifndef MW_LANGID_LANGID_H_
#define MW_LANGID_LANGID_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "langid/model.h"

namespace mw::langid {

// Decision parameters. The defaults are the values tuned on the development set
// (see docs/langid.md); the programs copy config [langid] into this struct.
struct Options {
  // Boost of a language's tier-2 words by its tier-1 share.
  double k1 = 4.0;
  // Weight of tier-2 evidence for languages without tier-1 hits.
  double k2 = 0.5;
  // Weight of unknown words in the denominator N.
  double k_unknown = 2.0;
  // Fewer words: "und" ("too little text").
  std::uint32_t min_words = 3;
  // Best score below this: bilingual or "und". Low, so that "und" stays rare
  // on text with enough words (tuned: docs/langid.md).
  double min_score = 5.0;
  // The second language of a bilingual verdict needs at least this score (the
  // rules by score and by lines; not the rule by paragraphs).
  double bilingual_min_score = 10.0;
  // In a text of several lines, the share of the words (in lines of 3 or more
  // words) that each language of a bilingual verdict must win line by line.
  double bilingual_min_lines = 0.3;
  // In a text of several paragraphs (blocks between blank lines), the share of
  // the words of the won paragraphs (Evidence::paragraphs) that each language
  // of a bilingual verdict must win paragraph by paragraph; no score is
  // needed. Above 1: off.
  double bilingual_min_paragraphs = 0.1;
  // Optional character-trigram tier: the share (0-1) of each unknown word that
  // its trigram language shares contribute as tier-2 evidence (Xovp_i += w *
  // share_i, N_unknown -= w). 0 = the two-tier method alone.
  double ngram_weight = 0.5;
  // Tie-break between close candidates (related languages such as es/gl,
  // cs/sk, da/nb): every candidate whose L is at least close_ratio times the
  // best's competes, and the one with the highest Evidence::affinity (plus
  // ngram_weight times its ngram_affinity) becomes the best. 1 = off.
  double close_ratio = 0.3;
};

// The verdict on one text.
struct Language {
  // ISO 639-1/639-3 code, "und", or "xx+yy" when bilingual. Chinese is
  // "zh-Hans" (simplified) or "zh-Hant" (traditional) when its characters say
  // which (Evidence::han_simplified), else "zh". A written variant replaces its
  // base (Nynorsk "nn" for Bokmål "nb") when its n-grams say so
  // (Evidence::variant), and one of a close pair (Xhosa, Zulu) the other.
  std::string code = "und";
  // The best candidate, also when the verdict is "und" (the best guess);
  // empty only when no word gave any evidence. In a bilingual verdict, its
  // first language.
  std::string best;
  double score = 0;  // L of `best`; 0 when there is none
  // The other language of a bilingual verdict and its L; empty otherwise.
  std::string partner;
  double partner_score = 0;
  // The strongest candidate the verdict does not name (for "und": the one
  // after `best`; for a bilingual verdict: the one after both partners) and
  // its L; empty when there is none.
  std::string second;
  double second_score = 0;
  bool bilingual = false;
  std::uint32_t words =
      0;  // words counted (letters only; numbers and symbols are skipped)
  // Words per ICU script name ("Latin", "Cyrillic", "Han"), most frequent
  // first.
  std::vector<std::pair<std::string, std::uint32_t>> scripts;
};

// What Detect counts before it decides: the per-language sums of the formula.
// Collect and Decide split Detect so that the constants can be tuned without
// segmenting text again.
struct Evidence {
  // Indexed by candidate: the model's languages first, then the script-decided
  // languages (CandidateCode names them all).
  std::vector<double> pure;     // Xpure_i
  std::vector<double> shared;   // Xovp_i
  std::uint32_t n_pure = 0;     // tier-1 hits (script-decided words included)
  std::uint32_t n_shared = 0;   // words found in tier 2
  std::uint32_t n_unknown = 0;  // words found in no dictionary
  std::uint32_t n_common =
      0;  // common cross-language words: counted for min_words only
  std::vector<std::pair<std::string, std::uint32_t>>
      scripts;  // as Language::scripts
  // Per candidate: the words of the lines (of 3 or more words) on which it is
  // the best; all 0 in a text of one line (which cannot make a bilingual
  // verdict by lines).
  std::vector<std::uint32_t> segment_words;
  // Per candidate: the number of those lines.
  std::vector<std::uint32_t> segment_lines;
  // The paragraphs (blocks between blank lines) that a candidate won, in text
  // order; empty in a text of one paragraph. A paragraph is won by the
  // candidate Decide names best on that paragraph alone (the formula with the
  // tie-break, with the default Options), when it has 8 or more words, 5 or
  // more of them giving evidence (not common words), and the winner scores at
  // least 5 (the default min_score) there: a signature, a block of names or a
  // list footer wins nothing.
  struct Paragraph {
    std::uint32_t words = 0;   // all its words
    std::uint32_t winner = 0;  // candidate index
    // The runner-up on that paragraph when it scores at least close_ratio
    // (0.3) of the winner's L (two relatives such as bs and hr); else
    // `winner`. Decide counts the paragraph for the text's best when that is
    // this runner-up.
    std::uint32_t close = 0;
    friend bool operator==(const Paragraph&, const Paragraph&) = default;
  };
  std::vector<Paragraph> paragraphs;
  // Per candidate: summed n-gram shares of the unknown words the n-gram tier
  // could score.
  std::vector<double> ngram;
  std::uint32_t n_ngram = 0;  // unknown words the n-gram tier scored
  // Per candidate: the tie-break evidence (Options::close_ratio), the sum over
  // the words with a share p_i(w) > 0.002 for it of log(p_i(w) / 0.002); a
  // tier-1 or script-decided word counts as p = 1. A word's shares are the
  // posterior language probabilities given the word, so this sum ranks the
  // candidates as a naive Bayes classifier over the word lists does (the
  // per-word normaliser is the same for every language), the strength of each
  // word included, where the formula's sums count words.
  std::vector<double> affinity;
  // The same over the n-gram shares of unknown words (weighted by
  // ngram_weight in Decide).
  std::vector<double> ngram_affinity;
  // Per candidate: summed n-gram shares of the common words met before any
  // word gave other evidence (tier-1, tier-2 or unknown), and their number.
  // Decide uses them only when no other word gave evidence, so that a forced
  // verdict on "hello" names a language. Empty when there were none.
  std::vector<double> common_ngram;
  std::uint32_t n_common_ngram = 0;
  // Han characters that mark simplified and traditional Chinese writing
  // (most characters mark neither). Decide names "zh-Hans" or "zh-Hant" for
  // "zh" when one kind clearly outnumbers the other.
  std::uint32_t han_simplified = 0;
  std::uint32_t han_traditional = 0;
  // Per candidate: for a written variant (Model::variants(), Nynorsk), the
  // variant tier's sum (ln P_variant - ln P_base per letter n-gram) over the
  // paragraphs its base wins, or the whole text when the base wins none but
  // has at least 0.7 of the strongest candidate's evidence; at most the first
  // 1 KB, and no further once the sum is 20 from 0 (langid/src/variant.h).
  // Decide names the variant for its base when the sum is above 0. For the
  // first of a close pair (Model::pairs(), Xhosa), the same sum of ln P_first
  // - ln P_second over the paragraphs either wins, or the whole text when
  // either has 0.7 of the strongest's evidence: Decide names the first where
  // the verdict names the second when the sum is above 0, and the second where
  // it names the first when below. 0 for other candidates and for a text not
  // read. Empty when the model has neither variants nor pairs.
  std::vector<double> variant;
};

// How long the n-gram tier scores the words no dictionary has. It scores
// such a word while the text has given fewer than `text` words of dictionary
// evidence (tier-1 and tier-2 words, Evidence::n_pure + n_shared), or its
// paragraph fewer than `paragraph`; later unknown words count as unknown for
// every language. A subject or a few sentences keep every word's evidence; a
// long text is decided by its dictionary words, and the tier, most of the
// cost of a long text, stops, except at the start of each paragraph, whose
// winner the bilingual rule reads (docs/langid.md, "Speed"). 0 and 0 = no
// limit.
struct NgramLimits {
  std::uint32_t text = 64;
  std::uint32_t paragraph = 8;
  static constexpr NgramLimits None() { return {0, 0}; }
};

Evidence Collect(std::string_view normalised_text, const Model& model,
                 NgramLimits limits = {});
Language Decide(const Evidence& evidence, const Model& model,
                const Options& options);
// Test and benchmark hook: Collect without its per-text memo, looking up and
// scoring every occurrence of a word afresh. Collect gives the same Evidence,
// to the bit (the memo only replays each word's cached evidence in text
// order); langid_accuracy_test and langid_eval check it.
Evidence TEST_CollectEveryWord(std::string_view normalised_text,
                               const Model& model, NgramLimits limits = {});

// The code of candidate `i` of an Evidence built with `model`.
std::string_view CandidateCode(const Model& model, std::size_t i);

// Detect(t, m, o) is Decide(Collect(t, m), m, o).
// REQUIRES: `normalised_text` is NFKC case-folded UTF-8 (mime::Normalise /
// NormaliseText); invalid UTF-8 is tolerated (such bytes end a word). C1
// control characters are read as the windows-1252 characters they usually stand
// for (U+0092 as an apostrophe).
Language Detect(std::string_view normalised_text, const Model& model,
                const Options& options);

// Replaces C1 control characters (U+0080-U+009F) by the characters windows-1252
// has at those bytes (U+0092 -> U+2019, U+0085 -> U+2026, ...); undefined ones
// (U+0081 ...) become spaces. Text mis-decoded as ISO-8859-1 carries them;
// apply before normalisation, which would otherwise delete them as invisible.
std::string MapC1Controls(std::string_view utf8);

// The language a script decides alone ("el" for "Greek"), or empty. `script` is
// an ICU script name as in Language::scripts.
std::string_view ScriptLanguage(std::string_view script);

}  // namespace mw::langid

#endif  // MW_LANGID_LANGID_H_
