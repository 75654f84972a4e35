// SHA-1 block lists: the body split into sentences (short bodies) or lines
// (long bodies), each block hashed with SHA-1.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_BLOCKS_H_
#define MW_FINGERPRINT_BLOCKS_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/core.h"

namespace mw::fingerprint {

using Sha1 = std::array<std::uint8_t, 20>;

// The numbers are those of the published method's fingerprint tuple.
enum class BlockKind : std::uint8_t { kParagraphs = 0, kSentences = 1 };

struct BlockList {
  BlockKind kind = BlockKind::kSentences;
  std::vector<Sha1>
      hashes;  // SHA-1 of each block, in message order; size() = block count
  std::vector<BlockKey>
      keys;  // the same blocks as (32-bit key, position), sorted
};

// SHA-1 of `bytes` (OpenSSL EVP one-shot).
Sha1 Sha1Of(std::string_view bytes);

// Test hook: the SHA-1 of `bytes` as a block list computes it, by each way it
// can (OpenSSL, and the SHA extensions where the CPU has them), each used
// twice in a row, for tests against Sha1Of.
std::vector<Sha1> TEST_BlockSha1(std::string_view bytes);

// Lower-case hexadecimal.
std::string Hex(const Sha1& sha1);

// Splits normalised text into sentences. Paragraphs ("\n\n"-separated) are
// split separately and their lines joined with a space first, since mail is
// hard-wrapped at ~72 columns. Dotted abbreviations ("e.g.", "i.e.", "u.s.",
// "mr.", "dr.", "etc.", ...) lose their dots first so they do not end
// sentences. Boundaries come from ICU's sentence BreakIterator, which also
// splits Chinese and Japanese text (no spaces) at "。！？". Each block is
// whitespace-folded and trimmed; blocks without a letter or digit ("--", "!!")
// are dropped.
std::vector<std::string> SplitSentences(std::string_view text);

// Test hook: SplitSentences with the whole text given to ICU's iterator at
// once (no ASCII fast path, no cutting at paragraphs), the reference
// SplitSentences is checked against.
std::vector<std::string> TEST_SplitSentencesIcu(std::string_view text);

// Splits normalised text into its non-empty lines, folded and trimmed like
// sentences.
std::vector<std::string> SplitParagraphs(std::string_view text);

// Hashes blocks into a BlockList of the given kind.
BlockList HashBlocks(const std::vector<std::string>& blocks, BlockKind kind);

// The block list of `text`: HashBlocks(SplitSentences(text), kind) or
// HashBlocks(SplitParagraphs(text), kind), without building the strings.
BlockList ComputeBlocks(std::string_view text, BlockKind kind);

}  // namespace mw::fingerprint

#endif  // MW_FINGERPRINT_BLOCKS_H_
