// The evaluations' ground truth for "the same text", and the bases chosen by
// it. The rule reads the two normalised bodies and nothing else: no
// fingerprint, index key or threshold of a method under test. Every
// evaluation (fingerprint_eval, store_eval, scan_eval) applies it to every
// pair it samples, whether or not a method flagged the pair, so that what a
// method finds cannot move what counts as right.
#ifndef MW_VARIANTS_TRUTH_H_
#define MW_VARIANTS_TRUTH_H_

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "variants/variants.h"

namespace mw::variants {

// Two texts are natural near-duplicates (the same FAQ posted twice, two issues
// of a newsletter that changed a line) when their Levenshtein distance is
// under this share of their combined length: about a fifth of the text
// changed.
inline constexpr double kNaturalEditRate = 0.1;

// fingerprint::TextEditRate(a, b) < kNaturalEditRate, for texts of any size:
// the length difference bounds the distance from below, and the banded
// distance (TextEditDistanceWithin) stops as soon as the bound is passed, so
// distinct texts cost little.
bool NaturalNearDuplicate(std::string_view a, std::string_view b);

// Every pair of `docs` (indexes into corpus.docs) whose normalised bodies are
// natural near-duplicates.
class NaturalPairs {
 public:
  NaturalPairs(const Corpus& corpus, const std::vector<std::size_t>& docs);

  bool Contains(std::size_t a, std::size_t b) const;
  // The pairs with both ends in `subset` (indexes into corpus.docs).
  std::size_t CountWithin(const std::vector<std::size_t>& subset) const;
  std::size_t size() const { return pairs_.size(); }
  const std::set<std::pair<std::size_t, std::size_t>>& pairs() const {
    return pairs_;
  }

 private:
  std::set<std::pair<std::size_t, std::size_t>> pairs_;  // (lower, higher)
};

struct Selection {
  std::vector<std::size_t> bases;  // indexes into corpus.docs
  std::size_t dropped = 0;         // candidates that clashed with a kept one
};

// The first `n` candidates, in order, that are no natural near-duplicate of a
// candidate kept before them, so that a variant of one base matching another
// base is an error of the method and not the truth.
Selection SelectBases(const Corpus& corpus,
                      const std::vector<std::size_t>& candidates,
                      std::size_t n);

// The thread a message belongs to: its Subject (Doc::subject) without
// leading reply and forward markers ("Re:", "Fwd:", "Fw:", "AW:", "WG:",
// "SV:", any case, repeated) and list tags ("[ILUG]"), case-folded,
// whitespace collapsed.
std::string ThreadKey(std::string_view subject);

// The half (1 or 2) of the evaluations' --half split a ham message falls in:
// by its thread, so that the replies of one thread, which quote each other
// and share most of their words, are in one half. Taking every other
// message instead put a thread's neighbours in both halves, and tuning on
// one half could not see the false positives its rules make across them.
// A message without a Subject is its own thread (by its name).
int HalfOf(const Doc& doc);

}  // namespace mw::variants

#endif  // MW_VARIANTS_TRUTH_H_
