// [langid]: language identification (issue 4; defaults in LangidSettings,
// config.h).
//
// K1, K2 and K_unknown are weights in the score L_i = 100*(...) of issue 4,
// tuned on the dev set (docs/langid.md); the bounds only exclude negative
// weights and absurd ones. Scores are at most 100 as mailwave normalises them,
// but min_score keeps a wide bound so that a file written for another
// normalisation still loads.
#include "params.h"

namespace mw::config {

Table LangidTable() {
  using S = LangidSettings;
  static const Param kParams[] = {
      {.key = "dictionary",
       .kind = Kind::kString,
       .meaning = "language dictionary file; empty: <program "
                  "dir>/../share/mailwave/langid.dict, else "
                  "/usr/local/share/mailwave/langid.dict, else "
                  "/usr/share/mailwave/langid.dict",
       .field = Member<&Settings::langid, &S::dictionary>},
      {.key = "k1",
       .kind = Kind::kReal,
       .min = 0,
       .max = 100,
       .meaning = "K1: how much a language's tier-1 (own-word) share boosts "
                  "its tier-2 (shared-word) weight",
       .field = Member<&Settings::langid, &S::k1>},
      {.key = "k2",
       .kind = Kind::kReal,
       .min = 0,
       .max = 100,
       .meaning = "K2: weight of tier-2 (shared) words for a language with "
                  "no tier-1 hit",
       .field = Member<&Settings::langid, &S::k2>},
      {.key = "k_unknown",
       .kind = Kind::kReal,
       .min = 0,
       .max = 100,
       .meaning = "K_unknown: weight, in the normaliser N, of words found in "
                  "no dictionary",
       .field = Member<&Settings::langid, &S::k_unknown>},
      {.key = "min_words",
       .kind = Kind::kCount,
       .min = 0,
       .max = 10000,
       .meaning = "texts with fewer words than this are \"und\" "
                  "(too little text to name a language)",
       .field = Member<&Settings::langid, &S::min_words>},
      {.key = "min_score",
       .kind = Kind::kReal,
       .min = 0,
       .max = 10000,
       .meaning = "a best score below this gives \"und\", or bilingual when "
                  "two together pass it",
       .field = Member<&Settings::langid, &S::min_score>},
      {.key = "bilingual_min_score",
       .kind = Kind::kReal,
       .min = 0,
       .max = 10000,
       .meaning = "the second language of a bilingual verdict needs at least "
                  "this score",
       .field = Member<&Settings::langid, &S::bilingual_min_score>},
      {.key = "bilingual_min_lines",
       .kind = Kind::kReal,
       .min = 0,
       .max = 1,
       .meaning = "in a text of several lines, each language of a bilingual "
                  "verdict must win lines holding this share of the words",
       .field = Member<&Settings::langid, &S::bilingual_min_lines>},
      {.key = "bilingual_min_paragraphs",
       .kind = Kind::kReal,
       .min = 0,
       .max = 2,
       .meaning = "in a text of several paragraphs, each language of a "
                  "bilingual verdict must win paragraphs holding this share "
                  "of the words; above 1 = off",
       .field = Member<&Settings::langid, &S::bilingual_min_paragraphs>},
      {.key = "ngram_weight",
       .kind = Kind::kReal,
       .min = 0,
       .max = 1,
       .meaning = "share of each unknown word that the character-trigram tier "
                  "turns into evidence; 0 = dictionaries alone",
       .field = Member<&Settings::langid, &S::ngram_weight>},
      {.key = "close_ratio",
       .kind = Kind::kReal,
       .min = 0,
       .max = 1,
       .meaning = "languages scoring at least this share of the best's are "
                  "close; the word evidence decides among them; 1 = off",
       .field = Member<&Settings::langid, &S::close_ratio>},
  };
  return {.name = "langid",
          .meaning = "language identification",
          .params = kParams};
}

}  // namespace mw::config
