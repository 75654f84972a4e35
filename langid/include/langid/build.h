// Building a langid dictionary from per-language word lists (`mailwave dict
// build`).
//
// Thread-safety: pure functions.
#ifndef MW_LANGID_BUILD_H_
#define MW_LANGID_BUILD_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "langid/model.h"
#include "mw/result.h"

namespace mw::langid {

// Word counts of one language. Words are normalised keys (see NormaliseWord in
// langid.h).
struct WordList {
  std::string code;
  std::vector<std::pair<std::string, std::uint64_t>>
      words;  // any order, duplicates summed
  // Optional outside evidence for the n-gram tier: letter trigrams inside
  // words (no word boundary) with their frequency per billion trigrams of
  // running text (`<code>.trigrams`, ParseTrigramList). Empty: the tier takes
  // every trigram's probability from `words`.
  std::vector<std::pair<std::string, std::uint64_t>> inner_trigrams = {};
};

// Reads one `<code>.txt`: either a frequency list (every non-empty line "word
// count") or plain UTF-8 text, whose words are counted with the detector's own
// tokeniser. The format is decided from the first 100 non-empty lines: all of
// the form "token integer" means a frequency list. Words are normalised (NFKC
// case folding, apostrophes split), words with digits are skipped. Fails
// (kInvalidArgument) on text that is not valid UTF-8 or holds no word.
Result<WordList> ParseWordList(std::string code, std::string_view text);

// Reads one `<code>.trigrams`: every non-empty line "trigram count", the
// trigram three letters (normalised as words are; one that normalises to
// another length is dropped) and the count its frequency per billion
// trigrams. Fails (kInvalidArgument) on text that is not valid UTF-8, on a
// malformed line (naming its number) and on a total above one billion.
Result<std::vector<std::pair<std::string, std::uint64_t>>> ParseTrigramList(
    std::string_view text);

// A written variant of a language that has a word list (Nynorsk beside Bokmål),
// told from it by letter n-grams: a text the tiers name `base` is named `code`
// when its n-grams' values add up high enough (Evidence::variant). The variant
// has no words of its own.
struct VariantList {
  std::string code;  // the variant, "nn"
  std::string base;  // the language with a list it is told from, "nb"
  // Letter n-grams (1-5 letters inside a word, normalised as words are) and
  // 100 * ln(P_variant(g) / P_base(g)), in -32768..32767; any order.
  std::vector<std::pair<std::string, std::int32_t>> ngrams;
  // A close pair instead: `code` and `base` both have word lists, which
  // confuse them (Xhosa and Zulu); wherever the verdict names one of the two,
  // the n-grams' sum names the one they favour (Evidence::variant of `code`).
  // `base` may instead be a variant (Swedish told from Nynorsk), which the
  // tiers alone never name.
  bool pair = false;
  // A pair's sums smaller than this (nats, 0-255) leave the verdict to the
  // word tiers: for a pair where one list is strong (Hindi beside Marathi),
  // a short text's few n-grams are weaker evidence than its known words.
  std::uint32_t pair_min = 0;
};

// Reads one `<code>.variant` or `<code>.pair`: a first non-empty line
// "variant-of BASE" (or "pair-with OTHER [MIN]", which sets `pair` and
// `pair_min`), then
// every non-empty line "n-gram value" (langid/data/prepare_lingua.py writes
// them). Fails (kInvalidArgument) on text that is not valid UTF-8, on a
// missing first line, on a malformed line or an n-gram that is not 1-5 letters
// once normalised (naming the line's number), and on no n-grams.
Result<VariantList> ParseVariantList(std::string code, std::string_view text);

// Adds, for every Latin word of `list`, its Serbian Cyrillic transliteration
// (lj -> љ, nj -> њ, dž -> џ, then letter by letter). Serbian is written in
// both scripts and the mapping from Cyrillic to Latin is one to one, so the
// Cyrillic list is the Latin one transliterated.
void AddSerbianCyrillic(WordList& list);

// Progress messages ("en: 20000 words"), for stderr. May be empty.
using Progress = std::function<void(std::string_view)>;

// Builds the dictionary file image. Deterministic: the same lists and
// parameters give the same bytes (languages are sorted by code, words by hash).
// A list with `inner_trigrams` keeps its own probabilities for the trigrams
// that touch a word boundary and takes those of the trigrams inside words
// from `inner_trigrams`, scaled to the share the inside trigrams have in its
// own words. Languages whose list is mostly in a script that identifies a
// language alone (Greek, Hangul, Thai, ...) are recorded as script-decided and
// contribute no words. Fails (kInvalidArgument) on duplicate or invalid codes
// (1-7 ASCII letters, digits or '_'), on an empty set of lists and when the
// result would exceed the format's limits.
Result<std::string> Build(std::vector<WordList> lists,
                          const BuildParams& params,
                          const Progress& progress = {});
// The same with written variants: each is a language of the file, flagged as a
// variant of its base, with its n-grams as the variant tier. Fails
// (kInvalidArgument) also on a variant whose code is invalid or a list's, whose
// base has no list, and on two variants of one code.
Result<std::string> Build(std::vector<WordList> lists,
                          std::vector<VariantList> variants,
                          const BuildParams& params,
                          const Progress& progress = {});

}  // namespace mw::langid

#endif  // MW_LANGID_BUILD_H_
