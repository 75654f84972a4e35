// The word sketch: a MinHash of the set of words of a text, the signature
// that survives what keeps every other fingerprint apart: spun text (every
// copy picks other synonyms in a quarter of its words), a letters-only token
// appended to every line, sentences shuffled, text inserted between lines.
// All of these keep most of the words; none keeps the blocks, the CTPH pieces
// or the 3-word shingles.
//
// One-permutation hashing (Li, Owen and Zhang 2012): each distinct word's
// XXH3-64 hash (the hash the SimHash and word bag use) falls into one of
// kSketchSlots bins by its top bits; a bin keeps the word whose remaining bits
// are smallest, as 8 bits taken from the low end of that word's hash
// (SketchValue: never 0, which marks an empty bin). Two sketches estimate the
// Jaccard similarity of the two word sets as
//
//   J ≈ matches / slots,   matches = bins equal and non-empty in both,
//                          slots   = bins non-empty in at least one,
//
// (empty bins in both say nothing). 128 bins put the estimate's standard
// deviation at sqrt(J(1 − J)/128) (0.044 at J = 0.5).
//
// Eight bits per bin (b-bit minwise hashing, Li and König 2010) make two
// different words in a bin agree by accident with probability about 1/255,
// so the estimate reads high by at most (1 − J)/255 < 0.004: a tenth of its
// standard deviation, which is why it is left uncorrected (the CPU and CUDA
// comparators then share the plain count). Sixteen bits (stored forms before
// version 3) cost twice the bytes for a bias of 1.5e-5.
//
// Thread-safety: pure functions over value types.
#ifndef MW_FINGERPRINT_SKETCH_H_
#define MW_FINGERPRINT_SKETCH_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "fingerprint/ctph.h"

namespace mw::fingerprint {

inline constexpr std::size_t kSketchSlots = 128;
inline constexpr unsigned kSketchSlotBits = 7;  // log2(kSketchSlots)

// The value a bin keeps for a word whose XXH3-64 hash ends in `low` (at least
// its low 8 bits): those 8 bits, 1 for 0.
inline constexpr std::uint16_t SketchValue(std::uint64_t low) {
  const auto v = static_cast<std::uint16_t>(low & 0xff);
  return v == 0 ? 1 : v;
}

struct WordSketch {
  // 0: empty bin, else SketchValue (1..255; 16 bits wide so that the
  // comparators' 16-bit SIMD lanes read it as before).
  std::array<std::uint16_t, kSketchSlots> slots{};
  std::uint32_t words = 0;  // words in the text (with repeats)
  friend bool operator==(const WordSketch&, const WordSketch&) = default;
};

// The sketch of a text given its words' XXH3-64 hashes in text order (as
// ComputeWordHashes hashes them). Repeats count once.
WordSketch ComputeSketch(std::span<const std::uint64_t> word_hashes);

// The sketch of normalised (folded) text: its Words() hashed with XXH3-64.
WordSketch ComputeSketch(std::string_view text);

// The sampled word sequence: the text's words, in order, each as one byte of
// its hash, keeping only the words whose hash falls in a 1-in-`step` sample
// (a content-defined choice, so two texts sample the same words where they
// agree), `step` the smallest power of two that keeps at most kCtphMaxLength
// symbols, and the same at 2·step. Returned as a Ctph (block_size = step,
// sig, sig2) so that CtphEditRate and the CTPH comparison kernels apply as
// they are: the edit rate of two sequences is the share of words that differ
// in order, which spinning, hash busters and insertions keep low and
// unrelated text does not. Words shorter than `min_length` bytes are left out
// (the short function words all texts of a language share).
Ctph ComputeWordSequence(std::span<const std::uint64_t> word_hashes,
                         std::span<const std::uint8_t> word_lengths,
                         std::size_t min_length);

// How two word sequences (ComputeWordSequence, at a common step by
// CtphEditRate's rule) differ: the Levenshtein distance and the number of
// separate runs of edits in one optimal alignment (matches preferred, so
// runs are as few as an optimal alignment allows). Spinning, hash busters
// and scattered insertions spread their edits over many runs; two mails of
// one template differ in the few places their content goes. nullopt when
// the sequences are not comparable.
struct SequenceDiff {
  std::uint32_t distance = 0;
  std::uint32_t runs = 0;
  std::uint32_t length = 0;  // the two sequences' lengths summed
  // The best alignment of the shorter sequence with a prefix of the longer:
  // `tail` symbols at the longer one's end left out (a footer, a disclaimer
  // or a signature added to one copy), then its distance, runs and length
  // (both sequences' symbols, the tail not counted). tail == 0 when leaving
  // no tail out is as good: then the three equal the fields above.
  std::uint32_t tail = 0;
  std::uint32_t tail_longer = 0;  // the longer sequence's length
  bool tail_in_first = false;     // the longer one is the first argument's
  std::uint32_t trimmed_distance = 0;
  std::uint32_t trimmed_runs = 0;
  std::uint32_t trimmed_length = 0;
};
std::optional<SequenceDiff> DiffWordSequences(const Ctph& a, const Ctph& b);

// Bins equal and non-empty in both (`matches`) and bins non-empty in either
// (`slots`), over n bins of plain arrays: the per-pair core the CPU comparator
// and the CUDA kernel share (no library calls, no allocation).
struct SketchScore {
  std::uint32_t matches = 0;
  std::uint32_t slots = 0;
};
inline SketchScore ScoreSketches(const std::uint16_t* a, const std::uint16_t* b,
                                 std::size_t n) {
  SketchScore s;
  for (std::size_t i = 0; i < n; ++i) {
    s.matches += static_cast<std::uint32_t>(a[i] == b[i] && a[i] != 0);
    s.slots += static_cast<std::uint32_t>((a[i] | b[i]) != 0);
  }
  return s;
}

// matches / slots; 0 when both sketches are empty.
inline double SketchJaccard(const WordSketch& a, const WordSketch& b) {
  const SketchScore s =
      ScoreSketches(a.slots.data(), b.slots.data(), kSketchSlots);
  return s.slots == 0
             ? 0.0
             : static_cast<double>(s.matches) / static_cast<double>(s.slots);
}

}  // namespace mw::fingerprint

#endif  // MW_FINGERPRINT_SKETCH_H_
