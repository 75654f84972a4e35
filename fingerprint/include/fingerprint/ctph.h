// CTPH (context-triggered piecewise hash, spamsum/ssdeep) signatures, byte for
// byte those of libfuzzy.
//
// A rolling hash over 7 bytes cuts a piece where r mod B = B − 1; each piece
// contributes one base64 symbol; B doubles from 3 until the signature has at
// most 64 symbols. libfuzzy keeps ssdeep compatibility and also returns the
// signature for 2B, which we keep untruncated (FUZZY_FLAG_NOTRUNC), with runs
// of more than 3 equal symbols shortened (FUZZY_FLAG_ELIMSEQ) as ssdeep's
// comparison does.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_CTPH_H_
#define MW_FINGERPRINT_CTPH_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mw::fingerprint {

inline constexpr std::size_t kCtphMaxLength =
    64;  // S: a DP column fits one 64-bit word

struct Ctph {
  std::uint32_t block_size = 0;  // B; 0 for an empty input
  std::string sig;               // signature at B, at most 64 symbols
  std::string sig2;              // signature at 2B, at most 64 symbols
  friend bool operator==(const Ctph&, const Ctph&) = default;
};

// Signature of `bytes`: what libfuzzy's fuzzy_digest(FUZZY_FLAG_ELIMSEQ |
// FUZZY_FLAG_NOTRUNC) gives after fuzzy_update over `bytes`, computed here for
// the two block sizes it needs (libfuzzy hashes every block size at once;
// inputs past 50 GB still go to it). An empty Ctph for empty input.
Ctph ComputeCtph(std::string_view bytes);

// Test hook: the same signature from libfuzzy itself, the reference
// ComputeCtph is checked against.
Ctph TEST_ComputeCtphLibfuzzy(std::string_view bytes);

namespace internal {
// The pieces behind ComputeCtph, for tests.

// spamsum's rolling hash of the 7 bytes ending at bytes[i] (those before the
// start count as 0), from its closed form. REQUIRES: i < bytes.size().
std::uint32_t CtphWindowHash(std::string_view bytes, std::size_t i);

// A position where the rolling hash cuts: horg = window hash + 1, which is
// divisible by 3·2^k for every level k that cuts there.
struct CtphCut {
  std::size_t pos;
  std::uint32_t horg;
  friend bool operator==(const CtphCut&, const CtphCut&) = default;
};

// Every position, in order, that cuts at `level` or above (horg != 0 and
// divisible by 3·2^level), found by the scalar recurrence and by the AVX2
// closed form. CtphCutsAvx2 returns nullopt where the CPU has no AVX2.
// REQUIRES: level < 32.
std::vector<CtphCut> CtphCutsPortable(std::string_view bytes, unsigned level);
std::optional<std::vector<CtphCut>> CtphCutsAvx2(std::string_view bytes,
                                                 unsigned level);
}  // namespace internal

// "B:sig:sig2", the ssdeep text form.
std::string ToString(const Ctph& ctph);

// Edit rate (see EditRate in core.h) of the signatures of a and b at a common
// block size: when B is equal, the smaller of the rates at B and at 2B; when
// one B is twice the other, the rate of the smaller one's 2B signature against
// the larger one's B signature. nullopt when the block sizes are not comparable
// or a signature needed is empty.
std::optional<double> CtphEditRate(const Ctph& a, const Ctph& b);

}  // namespace mw::fingerprint

#endif  // MW_FINGERPRINT_CTPH_H_
