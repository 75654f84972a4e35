// The variant tier: telling a written variant (Nynorsk) from the language the
// word lists name for it (Bokmål) by letter n-grams (private to mw::langid).
#ifndef MW_LANGID_SRC_VARIANT_H_
#define MW_LANGID_SRC_VARIANT_H_

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

#include "langid/model.h"

namespace mw::langid::internal {

// Only the first this many bytes of a text are read for a variant: a hundred
// words or so decide between two forms of one language, and the tier costs
// about five dictionary lookups per letter of each distinct word.
inline constexpr std::size_t kVariantMaxBytes = 1024;
// Reading stops once the sum is this far from 0 (odds of e^20 on the n-grams
// read so far; a few words at most can follow, to the end of a 64-byte
// slice): the tune half's sentences lose one nb line in 250 against no stop
// (docs/langid.md).
inline constexpr double kVariantDecisive = 20.0;

// The sum, over the letter n-grams (1-5 letters) inside the Latin, Cyrillic,
// Arabic and Devanagari words of the first kVariantMaxBytes of `parts` (an
// Arabic or Devanagari word's runs of letters between combining marks, as
// Lingua's models count them; pieces of a normalised text, read in order, in
// slices of 64 bytes cut at white space, until the sum reaches
// +-kVariantDecisive), of the values the variant tier gives language `variant`
// (Model::VariantValue: ln P_variant - ln P_base; an n-gram without a value
// adds 0). Positive: the text reads more as the variant than as its base.
double VariantScore(const std::vector<std::string_view>& parts,
                    const Model& model, std::size_t variant);

// ReadForVariant's share in Collect. A variant is named only where the verdict
// names its base, which then has most of the evidence; at 0.3 Danish text was
// read too (15% slower) for the same verdicts on the tune half, at 0.9 Nynorsk
// sentences read as Bokmål by a small margin were missed (docs/langid.md).
inline constexpr double kVariantReadShare = 0.7;

// A close pair whose other is a variant (Swedish told from Nynorsk) is read
// only where the variant's base has this share of the strongest candidate's
// evidence: a Nynorsk text that Swedish words win still shares words with
// Bokmål. Tune half: Swedish short texts read about 1.6 times faster, Danish
// sentences that begin with English web headers no longer read as Nynorsk
// (97.6 -> 98.8), Nynorsk sentences 89.6 -> 89.2 (docs/langid.md).
inline constexpr double kPairOfVariantReadShare = 0.3;

// Whether a text is read for the variants of `base`: the base's evidence (its
// tier-1 hits, tier-2 weights and n-gram shares) is at least `share` of the
// strongest candidate's, `strongest` (StrongestEvidence of the same vectors:
// a text is asked this for every variant and both languages of every pair,
// so the strongest candidate is found once). Elsewhere the variant cannot be
// named, so the tier's cost is spared.
bool ReadForVariant(const std::vector<double>& pure,
                    const std::vector<double>& shared,
                    const std::vector<double>& ngram, std::size_t base,
                    double share, double strongest);
// The strongest candidate's evidence: the largest pure + shared + ngram.
double StrongestEvidence(const std::vector<double>& pure,
                         const std::vector<double>& shared,
                         const std::vector<double>& ngram);

}  // namespace mw::langid::internal

#endif  // MW_LANGID_SRC_VARIANT_H_
