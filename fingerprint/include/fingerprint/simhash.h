// 64-bit SimHash over weighted word shingles, and the bucket keys that let a
// store find every SimHash within Hamming distance k by exact key lookups.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_SIMHASH_H_
#define MW_FINGERPRINT_SIMHASH_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/sketch.h"

namespace mw::fingerprint {

// Splits normalised text into words: runs of letters and digits (ASCII or not).
// A character of a script written without spaces (Han, Hiragana, Katakana,
// Thai, Lao, Khmer, Myanmar) is a word of its own, so shingles still see word
// order in those scripts.
std::vector<std::string_view> Words(std::string_view text);

// SimHash of the shingles of 3 consecutive words (one shingle of all words when
// there are fewer than 3). Each distinct shingle, hashed with XXH3-64, votes on
// every bit with weight 1 + ln(count). 0 for text without words.
std::uint64_t ComputeSimHash(std::string_view text);

// The words of a text as a multiset, independent of their order: the sum
// (mod 2^64) of the words' XXH3-64 hashes, and their number. Two texts have
// equal bags when they have the same words the same number of times, in any
// order (up to a 2^-64 chance); one word more, less or changed changes the
// hash.
struct WordBag {
  std::uint64_t hash = 0;
  std::uint32_t words = 0;
  friend bool operator==(const WordBag&, const WordBag&) = default;
};
WordBag ComputeWordBag(std::string_view text);

// ComputeSimHash and ComputeWordBag of `text` in one pass: both hash the same
// words, once here.
struct WordHashes {
  std::uint64_t simhash = 0;
  WordBag word_bag;
  WordSketch sketch;  // sketch.h
  Ctph sequence;      // ComputeWordSequence (sketch.h)
};
WordHashes ComputeWordHashes(std::string_view text);

// Test hook: ComputeWordHashes with the shingles counted by sorting their
// hashes, the path ComputeWordHashes falls back to when its hash table probes
// too long (a text crafted to collide in it).
WordHashes TEST_ComputeWordHashesSorted(std::string_view text);

// Test hook: for each way of counting the SimHash's weight-1 votes that this
// CPU can run (portable first, then AVX2, then AVX-512BW), count[b] = how many
// of `hashes` have bit b set.
std::vector<std::array<std::uint32_t, 64>> TEST_CountBits(
    const std::vector<std::uint64_t>& hashes);

// Band keys for Hamming distance k (REQUIRES k < 64): the 64 bits are cut into
// k + 1 bands of near-equal width, and key b is the band's index with its bits.
// If two SimHashes differ in at most k bits, at least one of the k + 1 bands
// holds none of the differing bits (pigeonhole), so the two share that band's
// key. A store indexes every key and looks all of them up; candidates are then
// checked with Hamming(). Returns k + 1 keys, band 0 first.
std::vector<std::uint64_t> SimHashKeys(std::uint64_t simhash, std::uint32_t k);

}  // namespace mw::fingerprint

#endif  // MW_FINGERPRINT_SIMHASH_H_
