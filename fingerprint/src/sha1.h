// SHA-1 of short blocks with the x86 SHA extensions (private).
//
// A block list hashes one short block (a line, a sentence: 40-100 bytes) at a
// time. OpenSSL compresses with the same instructions, but its EVP interface
// costs about as much per call as the compression itself (init, update,
// final, context cleansing), so HashSink calls this where the CPU has the
// extensions (checked at run time, as the binary runs on any x86-64) and
// OpenSSL elsewhere. tests/fingerprint/blocks_test.cc checks it against
// OpenSSL on every length up to several blocks.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_SRC_SHA1_H_
#define MW_FINGERPRINT_SRC_SHA1_H_

#include <array>
#include <cstdint>
#include <string_view>

namespace mw::fingerprint::internal {

// Whether this CPU has the SHA extensions (and SSE4.1, which the code uses).
bool HasShaNi();

// The SHA-1 of `bytes` into `out`. REQUIRES: HasShaNi().
void Sha1ShaNi(std::string_view bytes, std::array<std::uint8_t, 20>& out);

// The SHA-1s of `a` and of `b`, computed together: about the time of one for
// two short blocks (the two messages' rounds fill each other's waits).
// REQUIRES: HasShaNi().
void Sha1ShaNi2(std::string_view a, std::string_view b,
                std::array<std::uint8_t, 20>& out_a,
                std::array<std::uint8_t, 20>& out_b);

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_SRC_SHA1_H_
