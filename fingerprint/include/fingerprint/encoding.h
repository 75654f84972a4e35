// A fingerprint that can be stored: a versioned, compact binary encoding.
//
// Layout (docs/fingerprint.md, "Stored form"): a magic byte, a format version,
// a digest of the Options that shape a fingerprint (paragraph_threshold,
// paragraph_band and the folds: a fingerprint made under others must not be
// compared with one made under these), then the body SHA-1, the body size, the
// block lists (32-bit block keys in message order with their lengths), the
// CTPH signatures, the SimHash and the word bag. Every integer is
// little-endian or a LEB128 varint, whatever the host.
//
// Decode(Encode(f)) compares under Compare exactly as f does with any other
// fingerprint; it is not equal to f in one respect: BlockList::hashes holds
// only each block's 32-bit key in its first 4 bytes (big-endian, as BlockKey
// takes it from the SHA-1), the other 16 bytes zero.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_ENCODING_H_
#define MW_FINGERPRINT_ENCODING_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "fingerprint/fingerprint.h"
#include "mw/result.h"

namespace mw::fingerprint {

// 2 added the word sketch and the sampled word sequences (sketch.h); 3 keeps
// 32 bits of each block key (4 bytes, not 8) and one byte per sketch bin (not
// two). Decode still reads versions 1 (no sketch, no sequences) and 2 (cut to
// what version 3 keeps, so it compares as a fresh fingerprint does).
inline constexpr std::uint8_t kEncodingVersion = 3;

// The digest of the options a fingerprint depends on, as Encode records it.
std::uint32_t OptionsDigest(const Options& options);

// The stored form of `fp`, computed under `options`. REQUIRES: `fp` as
// Compute or Decode makes it: each list's block positions are 0..n-1, and the
// CTPH signatures hold at most kCtphMaxLength base64 symbols. The degraded
// flag is stored with the rest.
std::string Encode(const Fingerprint& fp, const Options& options);

// Reads Encode's form. Fails with kCorrupt on any malformed, truncated or
// oversized input (never reads past `bytes`, never allocates more than a
// small multiple of bytes.size()), and with kInvalidArgument when the
// fingerprint was made under options whose digest differs from `options`'.
Result<Fingerprint> Decode(std::string_view bytes, const Options& options);

}  // namespace mw::fingerprint

#endif  // MW_FINGERPRINT_ENCODING_H_
