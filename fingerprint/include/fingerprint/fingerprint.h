// Fingerprints of a message body and how near two messages are.
//
// Compute() turns the normalised body text (mime::Text::body) into three
// fingerprints: a SHA-1 block list (the method mailwave is built on), a CTPH
// signature and a 64-bit SimHash, plus the SHA-1 of the whole body for exact
// matches. Compare() says whether two fingerprints are duplicates under the
// thresholds in Options and which method decided. Headers never enter a
// fingerprint: they are easily forged and differ per recipient.
//
// docs/fingerprint.md explains the formulas, the choices (repeated blocks, the
// 20 KB band, the folds) and the evaluation behind the defaults.
//
// Thread-safety: pure functions over value types.
#ifndef MW_FINGERPRINT_FINGERPRINT_H_
#define MW_FINGERPRINT_FINGERPRINT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "fingerprint/blocks.h"
#include "fingerprint/ctph.h"
#include "fingerprint/fold.h"
#include "fingerprint/simhash.h"
#include "fingerprint/sketch.h"

namespace mw::fingerprint {

// Mirrors config::FingerprintSettings ([fingerprint] table); the programs copy
// it over.
struct Options {
  // Bodies longer than this many bytes are split into lines ("paragraphs"),
  // shorter ones into sentences.
  std::size_t paragraph_threshold = 20u << 10;
  // Bodies up to paragraph_threshold·(1 + paragraph_band) get both block lists
  // (small bodies their lines too, bodies just over the threshold their
  // sentences too), so a message just under the threshold still matches its
  // variant just over it (weakness (c)), and text inserted between wrapped
  // lines, which breaks sentences but not lines, is still matched.
  double paragraph_band = 0.25;
  // Block lists are compared only when max(m, n) ≤ ratio · min(m, n).
  double block_count_ratio = 2.0;
  // Line ("paragraph") block lists are compared only when both have at least
  // this many blocks: on a few lines, a shared signature or list footer alone
  // reaches the threshold.
  std::size_t min_paragraph_blocks = 8;
  // The similarity is the smaller of BlockSimilarity (blocks counted) and
  // WeightedBlockSimilarity (blocks weighed by length), which keeps messages
  // that share a template of short lines apart; false: counted only.
  bool weigh_blocks = true;
  // Block-list similarity at or above which two messages are duplicates (t).
  double duplicate_threshold = 0.6;
  // P: CTPH signature edit rates below this are duplicates (see Compare).
  double ctph_edit_rate = 0.05;
  // CTPH decides only when both bodies have at least this many bytes: the
  // signature of a short text has too few pieces to tell texts apart.
  std::size_t ctph_min_bytes = 512;
  // A CTPH candidate (signature edit rate below 3P) is a duplicate when the
  // block similarity is at least confirm_similarity and the SimHashes are at
  // most confirm_hamming bits apart.
  double confirm_similarity = 0.4;
  std::uint32_t confirm_hamming = 12;
  // Containment path: when one message's block list (of a common kind) is
  // contained in the other's, in any order (BlockContainment: counted and by
  // bytes, at least containment_threshold), the two lists' total lengths are
  // within containment_length_ratio, and the SimHashes are at most
  // containment_hamming bits apart, they are duplicates: text inserted between
  // many lines. containment_threshold > 1 disables.
  double containment_threshold = 0.9;
  double containment_length_ratio = 1.3;
  std::uint32_t containment_hamming = 16;
  // Line lists take part in the containment path when both have at least this
  // many lines (min_paragraph_blocks for the similarity).
  std::size_t containment_min_lines = 4;
  // Reordering path: two messages with the same words the same number of
  // times (equal WordBag, at least reorder_min_words words) whose SimHashes
  // are at most reorder_hamming bits apart are duplicates: sentences shuffled,
  // paragraphs wrapped again. Also, with edits besides the new order: word
  // sketches at least reorder_sketch alike, block containment (any order) at
  // least reorder_containment and SimHashes at most reorder_near_hamming bits
  // apart (sentences shuffled, a greeting, a footer and a few words
  // inserted). reorder_min_words = 0 disables both. Tuned on the evaluation's
  // first half (docs/fingerprint.md, "Reordered with edits").
  std::uint32_t reorder_min_words = 16;
  std::uint32_t reorder_hamming = 20;
  double reorder_sketch = 0.85;
  double reorder_containment = 0.3;
  std::uint32_t reorder_near_hamming = 13;
  // Trailer path: two messages whose block lists (of the kind their sizes
  // select) begin with the same trailer_min_blocks or more blocks, and go on
  // with at most trailer_max_bytes more in each, never more than the shared
  // part, are duplicates: one text with a list footer, a disclaimer or a
  // "sent from my phone" line added, or two different ones. Short texts need
  // this: a 200-byte footer on a 300-byte message takes the similarity, the
  // containment length ratio and the SimHash out of range.
  // trailer_min_blocks = 0 disables.
  std::uint32_t trailer_min_blocks = 2;
  std::uint64_t trailer_max_bytes = 512;
  // k: SimHashes at most this many bits apart are duplicates.
  std::uint32_t simhash_max_distance = 3;
  // Words path (spun text, letters-only busters, edits spread over the whole
  // text): the word sketches at least words_jaccard alike (sketch.h), the
  // sampled word sequences within words_edit_rate, each text at least
  // words_min_words words and the two word counts within words_length_ratio,
  // and the sequences' edits spread over at least words_min_runs separate
  // runs and words_spread runs per edit: spinning and busters change words
  // all over a text, two mails of one template differ where their content
  // goes; sequences within words_close_rate need two runs only (a few
  // edits leave few runs to count), and fewer than two runs pass when the
  // sketches are at least words_near_jaccard alike and the word counts within
  // words_near_length_ratio (hash busters anywhere in the lines add words the
  // sample rarely sees, about as many to each copy) and each sequence holds
  // words_near_min_symbols different words or more. A copy with an added
  // end (a footer or disclaimer on a personalised newsletter) is judged again
  // without it (SequenceDiff::tail, at most words_tail_max_share of the longer
  // sample): word counts up to words_tail_length_ratio apart, the longer
  // one's words without the end within words_length_ratio, the rest within
  // words_tail_edit_rate and spread as above, or within words_close_rate with
  // block similarity at least words_tail_similarity (a text and its quoted
  // reply differ only at the end and in every line's prefix);
  // words_tail_length_ratio 0 disables.
  // words_jaccard > 1 disables the path. Tuned on the evaluation's first half
  // (docs/fingerprint.md, "Words path" and "An added end").
  double words_jaccard = 0.4;
  double words_edit_rate = 0.35;
  std::uint32_t words_min_words = 32;
  double words_length_ratio = 1.3;
  std::uint32_t words_min_runs = 3;
  double words_spread = 0.4;
  double words_close_rate = 0.1;
  double words_near_jaccard = 0.7;
  double words_near_length_ratio = 1.1;
  std::uint32_t words_near_min_symbols = 8;
  double words_tail_length_ratio = 1.7;
  double words_tail_edit_rate = 0.13;
  double words_tail_max_share = 1.0 / 3;
  double words_tail_similarity = 0.2;
  FoldOptions folds;
};

struct Fingerprint {
  // SHA-1 of the normalised body, unfolded (exact duplicates).
  Sha1 body_sha1{};
  std::size_t body_bytes = 0;
  // The block list of the kind the body size selects, and, for bodies up to
  // paragraph_threshold·(1 + paragraph_band), the other kind.
  BlockList blocks;
  std::optional<BlockList> other_blocks;
  Ctph ctph;                  // of the folded text
  std::uint64_t simhash = 0;  // of the folded text
  WordBag word_bag;           // of the folded text
  WordSketch sketch;          // of the folded text (sketch.h)
  Ctph word_sequence;         // of the folded text (sketch.h)
  // A hash could not be computed (OpenSSL failed to allocate; the SHA-1s it
  // left are all zeros, which other such failures share). Compare never calls
  // a degraded fingerprint a duplicate of anything, and the stored form
  // (encoding.h) records the flag.
  bool degraded = false;
};

// Fingerprints the normalised body `text` (mime::Text::body).
Fingerprint Compute(std::string_view text, const Options& options);

enum class Method {
  kNone,
  kExact,
  kBlocks,
  kContainment,
  kTrailer,
  kReordered,
  kCtph,
  kSimHash,
  kWords
};

// "none", "exact", "blocks", "containment", "trailer", "reordered", "ctph",
// "simhash", "words".
std::string_view MethodName(Method method);

struct Comparison {
  // Block-list similarity in [0, 1] over the block lists of a common kind whose
  // counts are within the ratio (the best kind when both have two); nullopt
  // when none qualifies.
  std::optional<double> similarity;
  std::optional<BlockKind> kind;  // the kind `similarity` was measured on
  // Containment of the smaller block list in the larger (BlockContainment),
  // the best over the same pairs of lists as `similarity` (line lists from
  // containment_min_lines lines); nullopt when none qualifies.
  std::optional<double> containment;
  std::optional<double>
      edit_rate;  // CTPH signature edit rate; nullopt when not comparable
  std::uint32_t hamming = 64;  // SimHash Hamming distance
  double sketch = 0;           // word sketch Jaccard estimate (sketch.h)
  // Sampled word sequences (sketch.h): distance, edit runs and lengths;
  // measured only when the decision reaches the words path and the sketches
  // and word counts pass its first tests (an alignment costs ~20 µs); nullopt
  // otherwise or when not comparable (DiffWordSequences gives it on demand).
  std::optional<SequenceDiff> words;
  bool duplicate = false;
  Method method = Method::kNone;  // the first method, in the order below, that
                                  // said duplicate
};

// The largest ratio of two texts' word counts the words path can accept
// (words_length_ratio, or words_tail_length_ratio for a copy with an added
// end): a filter that must name every pair the path could take (the
// comparison window's sketch filter) uses it.
double WordsLengthRatioBound(const Options& options);

// Compares two fingerprints. Decision, in order (the first that holds decides):
//   exact   - equal body SHA-1 (and a non-empty body);
//   blocks  - similarity ≥ duplicate_threshold;
//   containment - containment ≥ containment_threshold (total lengths within
//             containment_length_ratio) and Hamming ≤ containment_hamming;
//   trailer - the same leading blocks (at least trailer_min_blocks), then at
//             most trailer_max_bytes in each, no more than the shared part;
//   reordered - equal word bags of at least reorder_min_words words and
//             Hamming ≤ reorder_hamming; or sketch ≥ reorder_sketch,
//             containment ≥ reorder_containment and Hamming ≤
//             reorder_near_hamming;
//   ctph    - signature edit rate < ctph_edit_rate (both bodies at least
//             ctph_min_bytes), or < 3·ctph_edit_rate with similarity ≥
//             confirm_similarity and Hamming ≤ confirm_hamming;
//   simhash - Hamming distance ≤ simhash_max_distance;
//   words   - the words path (see Options::words_jaccard).
// Empty bodies and degraded fingerprints are never duplicates of anything
// (the scores are still filled in).
Comparison Compare(const Fingerprint& a, const Fingerprint& b,
                   const Options& options);

}  // namespace mw::fingerprint

#endif  // MW_FINGERPRINT_FINGERPRINT_H_
