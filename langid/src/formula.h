// The decision formula of langid.h over one Evidence (private to
// mw::langid): Collect uses it to win paragraphs, Decide to name the text.
#ifndef MW_LANGID_SRC_FORMULA_H_
#define MW_LANGID_SRC_FORMULA_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "langid/langid.h"

namespace mw::langid::internal {

// Lines of fewer words are too short to say which language they are in:
// Collect counts the lines of at least this many, Decide their share.
inline constexpr std::uint32_t kMinSegmentWords = 3;

// The decision formula of langid.h over one Evidence (a text, or one of its
// paragraphs), and its best candidate as Decide picks it. The n-gram tier
// turns a share ngram_weight of each unknown word it could score into tier-2
// evidence.
class Formula {
 public:
  Formula(const Evidence& e, const Options& o)
      : e_(e),
        o_(o),
        n_(std::min(e.pure.size(), e.shared.size())),
        n_words_(e.n_pure + e.n_shared + e.n_unknown),
        w_ngram_(e.ngram.size() >= n_ ? o.ngram_weight : 0.0) {
    if (n_words_ == 0) return;
    double total_shared = 0;  // T
    for (std::size_t i = 0; i < n_; ++i) total_shared += Raw(i) - e.pure[i];
    denominator_ = e.n_pure + total_shared +
                   o.k_unknown * (e.n_unknown - w_ngram_ * e.n_ngram);
  }

  // Candidates (indices below size()).
  std::size_t size() const { return n_; }
  // Whether any word gave evidence (else no candidate has a score).
  bool valid() const { return n_words_ > 0 && denominator_ > 0; }
  double Raw(std::size_t i) const {
    const double shared =
        e_.shared[i] + (w_ngram_ > 0 ? w_ngram_ * e_.ngram[i] : 0.0);
    if (e_.pure[i] != 0) {
      const double boost = 1.0 + o_.k1 * e_.pure[i] / n_words_;
      return e_.pure[i] + boost * shared;
    }
    return o_.k2 * shared;
  }
  // L_i. REQUIRES: valid().
  double Score(std::size_t i) const { return 100.0 * Raw(i) / denominator_; }

  // The best candidate and the second (size(): none): the two highest Raw,
  // then the tie-break among the candidates within close_ratio of the best
  // (Options::close_ratio). The old best stays second when it loses, so a
  // bilingual verdict still names both.
  void Rank(std::size_t* best_out, std::size_t* second_out) const {
    const std::size_t n = n_;
    std::size_t best = n, second = n;
    double best_raw = 0, second_raw = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double r = Raw(i);
      if (r <= 0) continue;
      if (best == n || r > best_raw) {
        second = best, second_raw = best_raw;
        best = i, best_raw = r;
      } else if (second == n || r > second_raw) {
        second = i, second_raw = r;
      }
    }
    if (best != n && o_.close_ratio < 1.0 && e_.affinity.size() >= n) {
      // The word-level evidence the sums of the formula flatten (a word 60/40
      // between two relatives counts almost alike for both) decides.
      const double w_aff = e_.ngram_affinity.size() >= n ? w_ngram_ : 0.0;
      auto affinity = [&](std::size_t i) {
        return e_.affinity[i] +
               (w_aff > 0 ? w_aff * e_.ngram_affinity[i] : 0.0);
      };
      std::size_t pick = best;
      for (std::size_t i = 0; i < n; ++i) {
        // Affinity first: most candidates have none, and Raw costs more.
        if (i == best || affinity(i) <= affinity(pick)) continue;
        if (Raw(i) >= o_.close_ratio * best_raw) pick = i;
      }
      if (pick != best) second = best, best = pick;
    }
    *best_out = best;
    *second_out = second;
  }

 private:
  const Evidence& e_;
  const Options& o_;
  std::size_t n_;
  double n_words_;  // N_w: common words excluded
  double w_ngram_;
  double denominator_ = 0;  // N
};

}  // namespace mw::langid::internal

#endif  // MW_LANGID_SRC_FORMULA_H_
