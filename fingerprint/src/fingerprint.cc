#include "fingerprint/fingerprint.h"

#include <algorithm>
#include <bitset>
#include <string>
#include <vector>

#include "checked.h"
#include "fingerprint/core.h"
#include "fingerprint/simhash.h"

namespace mw::fingerprint {
namespace {

// Whether the method compares two block lists: same kind, block counts within
// the ratio (the published method's prefilter), and line lists of at least
// `min_lines` lines (shorter ones do not mean anything).
bool Comparable(const BlockList& a, const BlockList& b, const Options& options,
                std::size_t min_lines) {
  if (a.kind != b.kind) return false;
  const double m = static_cast<double>(a.keys.size());
  const double n = static_cast<double>(b.keys.size());
  if (m == 0 || n == 0) return false;
  if (std::max(m, n) > options.block_count_ratio * std::min(m, n)) {
    return false;
  }
  return a.kind != BlockKind::kParagraphs ||
         std::min(a.keys.size(), b.keys.size()) >= min_lines;
}

// Similarity of two comparable block lists.
double ListSimilarity(const BlockList& a, const BlockList& b,
                      const Options& options) {
  const double counted = BlockSimilarity(a.keys, b.keys);
  if (!options.weigh_blocks) return counted;
  return std::min(counted, WeightedBlockSimilarity(a.keys, b.keys));
}

// The keys of `list` in message order (keys[pos] is the block at pos).
// REQUIRES: the positions are 0..n-1, as ComputeBlocks and Decode make them.
std::vector<std::uint64_t> KeysInMessageOrder(const BlockList& list) {
  std::vector<std::uint64_t> out(list.keys.size());
  for (const BlockKey& k : list.keys) {
    if (k.pos < out.size()) out[k.pos] = k.key;
  }
  return out;
}

// Whether `a` and `b` (of one kind) are one text with different trailers: the
// same first blocks, at least `min_blocks` of them, and after them at most
// `max_tail` bytes in each, never more than the shared blocks hold. Blocks are
// told apart by their 64-bit keys, not their whole SHA-1s, so that a stored
// fingerprint (encoding.h, which keeps only the keys) compares as the one it
// was made from.
bool SameLeadDifferentTail(const BlockList& a, const BlockList& b,
                           std::size_t min_blocks, std::uint64_t max_tail) {
  if (min_blocks == 0 || a.kind != b.kind) return false;
  if (a.keys.size() < min_blocks || b.keys.size() < min_blocks) return false;
  const std::vector<std::uint64_t> ka = KeysInMessageOrder(a);
  const std::vector<std::uint64_t> kb = KeysInMessageOrder(b);
  std::size_t lead = 0;
  while (lead < ka.size() && lead < kb.size() && ka[lead] == kb[lead]) {
    ++lead;
  }
  if (lead < min_blocks) return false;
  std::uint64_t shared = 0;
  std::uint64_t tail_a = 0;
  std::uint64_t tail_b = 0;
  for (const BlockKey& k : a.keys) (k.pos < lead ? shared : tail_a) += k.len;
  for (const BlockKey& k : b.keys) {
    if (k.pos >= lead) tail_b += k.len;
  }
  return tail_a <= max_tail && tail_b <= max_tail && tail_a <= shared &&
         tail_b <= shared;
}

std::size_t DistinctSymbols(std::string_view sig) {
  std::bitset<256> seen;
  for (const char ch : sig) seen.set(static_cast<unsigned char>(ch));
  return seen.count();
}

// Edits spread as spinning, busters and personalisation spread them: at
// least words_min_runs separate runs and words_spread runs per edit.
bool EditsSpread(std::uint32_t runs, double distance, const Options& options) {
  return runs >= options.words_min_runs &&
         static_cast<double>(runs) >= options.words_spread * distance;
}

// The words path's rule for two texts of about as many words: the sampled
// sequences within words_edit_rate, and their edits spread.
bool SequencesAgree(const Fingerprint& a, const Fingerprint& b,
                    const Comparison& c, const SequenceDiff& d,
                    const Options& options) {
  if (static_cast<double>(d.distance) >
      options.words_edit_rate * static_cast<double>(d.length)) {
    return false;
  }
  if (static_cast<double>(d.distance) <=
      options.words_close_rate * static_cast<double>(d.length)) {
    if (d.runs >= 2) return true;
    // The sampled words agree but for one run at most, so what lowers the
    // sketch lies in words the sample missed: hash busters (anywhere in a
    // line) add about as many words to each copy; a template mail's other
    // content changes the count.
    // The agreement means something only if the sample holds many different
    // words: a text of a small vocabulary samples one or two, in any order.
    const double wa = a.sketch.words;
    const double wb = b.sketch.words;
    if (c.sketch >= options.words_near_jaccard &&
        std::max(wa, wb) <=
            options.words_near_length_ratio * std::min(wa, wb) &&
        std::min(DistinctSymbols(a.word_sequence.sig),
                 DistinctSymbols(b.word_sequence.sig)) >=
            options.words_near_min_symbols) {
      return true;
    }
  }
  return EditsSpread(d.runs, d.distance, options);
}

// The words path for a copy with an added end (a personalised newsletter
// with a footer; Options::words_tail_length_ratio): the alignment without the
// longer sequence's unmatched end, the words of the text it belongs to
// counted in proportion to the sampled words kept. An end of more than
// words_tail_max_share of the longer sample is not a footer but as much new
// text as old. The rest must be spread as spinning and personalisation
// spread edits, or close (few edits, or none the sample saw) with the block
// lists at least words_tail_similarity alike: the lines are kept, which a
// quoted original with a reply below, every line of it prefixed, does not do.
bool EndAddedAgree(const SequenceDiff& d, double wa, double wb,
                   const Comparison& c, const Options& options) {
  if (options.words_tail_length_ratio <= 0 || d.tail == 0 ||
      d.trimmed_length == 0 ||
      d.tail > options.words_tail_max_share * d.tail_longer) {
    return false;
  }
  // The words of the text whose sample has the end, without it.
  const double kept_share = static_cast<double>(d.tail_longer - d.tail) /
                            static_cast<double>(d.tail_longer);
  const double ka = d.tail_in_first ? wa * kept_share : wa;
  const double kb = d.tail_in_first ? wb : wb * kept_share;
  if (std::max(ka, kb) > options.words_length_ratio * std::min(ka, kb)) {
    return false;
  }
  const double distance = d.trimmed_distance;
  const double length = d.trimmed_length;
  if (distance > options.words_tail_edit_rate * length) return false;
  if (EditsSpread(d.trimmed_runs, distance, options)) return true;
  return distance <= options.words_close_rate * length && c.similarity &&
         *c.similarity >= options.words_tail_similarity;
}

// The words path (Options::words_jaccard). The word sequences are aligned
// (c.words, a 65 x 65 DP) only for a pair that passes the cheap tests first
// and that no other path decided.
bool WordsAgree(const Fingerprint& a, const Fingerprint& b, Comparison& c,
                const Options& options) {
  if (options.words_jaccard > 1 || c.sketch < options.words_jaccard) {
    return false;
  }
  const double wa = a.sketch.words;
  const double wb = b.sketch.words;
  const double lo = std::min(wa, wb);
  const double hi = std::max(wa, wb);
  if (lo < options.words_min_words ||
      hi > WordsLengthRatioBound(options) * lo) {
    return false;
  }
  c.words = DiffWordSequences(a.word_sequence, b.word_sequence);
  if (!c.words || c.words->length == 0) return false;
  const SequenceDiff& d = *c.words;
  return (hi <= options.words_length_ratio * lo &&
          SequencesAgree(a, b, c, d, options)) ||
         EndAddedAgree(d, wa, wb, c, options);
}

}  // namespace

double WordsLengthRatioBound(const Options& options) {
  return std::max(options.words_length_ratio, options.words_tail_length_ratio);
}

Fingerprint Compute(std::string_view text, const Options& options) {
  Fingerprint fp;
  fp.body_bytes = text.size();
  if (!internal::Sha1Checked(text, fp.body_sha1)) fp.degraded = true;
  const std::string folded = Fold(text, options.folds);
  // The body's size picks the kind, as in the published method; inside the band
  // around the threshold the other kind is kept too, so that a variant that
  // crossed the threshold is still compared on a common kind (weakness (c):
  // sentences against paragraphs scored 0.02-0.26).
  const double size = static_cast<double>(text.size());
  const double threshold = static_cast<double>(options.paragraph_threshold);
  const BlockKind kind =
      size > threshold ? BlockKind::kParagraphs : BlockKind::kSentences;
  fp.blocks = internal::ComputeBlocksChecked(folded, kind, &fp.degraded);
  if (size <= threshold * (1.0 + options.paragraph_band)) {
    fp.other_blocks = internal::ComputeBlocksChecked(
        folded,
        kind == BlockKind::kSentences ? BlockKind::kParagraphs
                                      : BlockKind::kSentences,
        &fp.degraded);
  }
  fp.ctph = ComputeCtph(folded);
  const WordHashes words = ComputeWordHashes(folded);
  fp.simhash = words.simhash;
  fp.word_bag = words.word_bag;
  fp.sketch = words.sketch;
  fp.word_sequence = words.sequence;
  return fp;
}

std::string_view MethodName(Method method) {
  switch (method) {
    case Method::kExact:
      return "exact";
    case Method::kBlocks:
      return "blocks";
    case Method::kContainment:
      return "containment";
    case Method::kTrailer:
      return "trailer";
    case Method::kReordered:
      return "reordered";
    case Method::kCtph:
      return "ctph";
    case Method::kSimHash:
      return "simhash";
    case Method::kWords:
      return "words";
    case Method::kNone:
      break;
  }
  return "none";
}

Comparison Compare(const Fingerprint& a, const Fingerprint& b,
                   const Options& options) {
  Comparison c;
  const BlockList* lists_a[2] = {&a.blocks,
                                 a.other_blocks ? &*a.other_blocks : nullptr};
  const BlockList* lists_b[2] = {&b.blocks,
                                 b.other_blocks ? &*b.other_blocks : nullptr};
  // The best similarity and containment over the kinds both fingerprints
  // have.
  for (const BlockList* la : lists_a) {
    for (const BlockList* lb : lists_b) {
      if (la == nullptr || lb == nullptr) continue;
      if (Comparable(*la, *lb, options, options.min_paragraph_blocks)) {
        const double s = ListSimilarity(*la, *lb, options);
        if (!c.similarity || s > *c.similarity) {
          c.similarity = s;
          c.kind = la->kind;
        }
      }
      // Containment asks more of a line list (every line, in a message at
      // most a little longer), so it can look at shorter ones.
      if (Comparable(*la, *lb, options, options.containment_min_lines)) {
        const double k = BlockContainment(la->keys, lb->keys,
                                          options.containment_length_ratio);
        if (!c.containment || k > *c.containment) c.containment = k;
      }
    }
  }
  c.edit_rate = CtphEditRate(a.ctph, b.ctph);
  c.hamming = Hamming(a.simhash, b.simhash);
  c.sketch = SketchJaccard(a.sketch, b.sketch);
  // A degraded fingerprint's zero SHA-1s would match those of any other
  // failure: exact or block matches there mean nothing.
  if (a.body_bytes == 0 || b.body_bytes == 0 || a.degraded || b.degraded) {
    return c;
  }
  if (a.body_sha1 == b.body_sha1) {
    c.method = Method::kExact;
  } else if (c.similarity && *c.similarity >= options.duplicate_threshold) {
    c.method = Method::kBlocks;
  } else if (c.containment && *c.containment >= options.containment_threshold &&
             c.hamming <= options.containment_hamming) {
    // All or nearly all blocks of one message in the other, which is at most
    // a little longer: text inserted between lines shifts every position and
    // splits sentences, but leaves the lines alone.
    c.method = Method::kContainment;
  } else if (SameLeadDifferentTail(a.blocks, b.blocks,
                                   options.trailer_min_blocks,
                                   options.trailer_max_bytes)) {
    c.method = Method::kTrailer;
  } else if (options.reorder_min_words > 0 &&
             a.word_bag.words >= options.reorder_min_words &&
             a.word_bag == b.word_bag && c.hamming <= options.reorder_hamming) {
    // The same words the same number of times in another order: shuffled
    // sentences break the lines, and the sentences that lose or gain an
    // unterminated fragment, but not the bag of words.
    c.method = Method::kReordered;
  } else if (options.reorder_min_words > 0 &&
             std::min(a.word_bag.words, b.word_bag.words) >=
                 options.reorder_min_words &&
             c.sketch >= options.reorder_sketch && c.containment &&
             *c.containment >= options.reorder_containment &&
             c.hamming <= options.reorder_near_hamming) {
    // Most words kept (the sketch) and a share of the blocks verbatim in any
    // order, with edits besides the new order (a greeting, a footer, a few
    // words inserted). Mails of one template share their boilerplate lines
    // and much of their vocabulary, but not most words and a close SimHash.
    c.method = Method::kReordered;
  } else if (c.edit_rate && *c.edit_rate < options.ctph_edit_rate &&
             std::min(a.body_bytes, b.body_bytes) >= options.ctph_min_bytes) {
    c.method = Method::kCtph;
  } else if (c.edit_rate && *c.edit_rate < 3 * options.ctph_edit_rate &&
             c.similarity && *c.similarity >= options.confirm_similarity &&
             c.hamming <= options.confirm_hamming) {
    // A CTPH candidate (signature edit rate below 3P), confirmed by the two
    // other fingerprints agreeing more loosely than they would alone: the
    // variants that split sentences and lines (scattered insertions) keep
    // their CTPH pieces, and unrelated templated messages do not agree on all
    // three.
    c.method = Method::kCtph;
  } else if (a.simhash != 0 && c.hamming <= options.simhash_max_distance) {
    c.method = Method::kSimHash;
  } else if (WordsAgree(a, b, c, options)) {
    c.method = Method::kWords;
  }
  c.duplicate = c.method != Method::kNone;
  return c;
}

}  // namespace mw::fingerprint
