// libFuzzer target for the stored form (fingerprint/encoding.h): Decode on
// arbitrary bytes, as a store reads them back from disk. Beyond "no crash, no
// sanitizer report, bounded time and memory", it checks that what decodes is
// a fingerprint like any other:
//   - Encode(decoded) decodes again, to the same fingerprint, field by field;
//   - Compare(decoded, decoded) runs (whatever the keys, lists and
//     signatures hold), its scores in range, and agrees with the copy.
// Seed it with the golden encodings (tests/fixtures/fingerprint/*.fp.hex as
// bytes; scripts/test does), or it spends its time finding the magic byte.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fingerprint/encoding.h"
#include "fingerprint/fingerprint.h"

namespace {

namespace fp = mw::fingerprint;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

bool SameList(const fp::BlockList& x, const fp::BlockList& y) {
  return x.kind == y.kind && x.keys == y.keys && x.hashes == y.hashes;
}

bool SameFingerprint(const fp::Fingerprint& x, const fp::Fingerprint& y) {
  if (x.other_blocks.has_value() != y.other_blocks.has_value()) return false;
  return x.body_sha1 == y.body_sha1 && x.body_bytes == y.body_bytes &&
         SameList(x.blocks, y.blocks) &&
         (!x.other_blocks || SameList(*x.other_blocks, *y.other_blocks)) &&
         x.ctph == y.ctph && x.simhash == y.simhash &&
         x.word_bag == y.word_bag && x.sketch == y.sketch &&
         x.word_sequence == y.word_sequence && x.degraded == y.degraded;
}

bool SameComparison(const fp::Comparison& x, const fp::Comparison& y) {
  return x.similarity == y.similarity && x.kind == y.kind &&
         x.containment == y.containment && x.edit_rate == y.edit_rate &&
         x.hamming == y.hamming && x.duplicate == y.duplicate &&
         x.method == y.method;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const fp::Options options;
  const mw::Result<fp::Fingerprint> decoded = fp::Decode(input, options);
  if (!decoded) {
    Check(!decoded.error().message().empty());
    return 0;
  }
  const std::string again = fp::Encode(*decoded, options);
  const mw::Result<fp::Fingerprint> redecoded = fp::Decode(again, options);
  Check(redecoded.has_value());
  Check(SameFingerprint(*redecoded, *decoded));
  // Not byte for byte: a block may be stored again where Encode would refer
  // back to it, and Decode takes both.

  const fp::Comparison self = fp::Compare(*decoded, *decoded, options);
  if (self.similarity) {
    Check(*self.similarity >= 0.0 && *self.similarity <= 1.0 + 1e-12);
  }
  if (self.containment) {
    Check(*self.containment >= 0.0 && *self.containment <= 1.0 + 1e-12);
  }
  if (self.edit_rate) Check(*self.edit_rate >= 0.0 && *self.edit_rate <= 1.0);
  Check(self.hamming == 0);
  Check(!decoded->degraded || !self.duplicate);
  Check(SameComparison(self, fp::Compare(*redecoded, *decoded, options)));
  return 0;
}
