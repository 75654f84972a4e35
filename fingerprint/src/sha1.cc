#include "sha1.h"

#include <algorithm>
#include <cstring>
#include <utility>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#define MW_SHA1_X86 1
#endif

namespace mw::fingerprint::internal {

#ifdef MW_SHA1_X86
namespace {

// The 80 rounds in 20 groups of four (FIPS 180-4, with Intel's SHA
// extensions): group g uses the round function g / 5 and the message words
// w[g % 4], the schedule being w_g = msg2(msg1(w_{g-4}, w_{g-3}) ^ w_{g-2},
// w_{g-1}) from group 4 on. sha1nexte derives the next group's E from the
// state before the previous group; group 0 adds E to the words itself.
// Registers hold A in the top lane, as the instructions want.
struct Sha1State {
  __m128i abcd;
  __m128i e;
};

template <int kGroup>
__attribute__((target("sha,sse4.1"), always_inline)) inline void Group(
    __m128i (&w)[4], __m128i& abcd, __m128i& prev) {
  constexpr int k = kGroup % 4;
  if constexpr (kGroup >= 4) {
    w[k] = _mm_sha1msg2_epu32(
        _mm_xor_si128(_mm_sha1msg1_epu32(w[k], w[(k + 1) % 4]), w[(k + 2) % 4]),
        w[(k + 3) % 4]);
  }
  const __m128i e =
      kGroup == 0 ? _mm_add_epi32(prev, w[0]) : _mm_sha1nexte_epu32(prev, w[k]);
  prev = abcd;
  abcd = _mm_sha1rnds4_epu32(abcd, e, kGroup / 5);
}

template <int... kGroups>
__attribute__((target("sha,sse4.1"), always_inline)) inline void Rounds(
    std::integer_sequence<int, kGroups...>, __m128i (&w)[4], __m128i& abcd,
    __m128i& prev) {
  (Group<kGroups>(w, abcd, prev), ...);
}

// The 64-byte block at p as the rounds read it: big-endian words, word 0 in
// the top lane.
__attribute__((target("sha,sse4.1"), always_inline)) inline void LoadWords(
    const unsigned char* p, __m128i (&w)[4]) {
  const __m128i swap =
      _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
  for (int i = 0; i < 4; ++i) {
    w[i] = _mm_shuffle_epi8(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), swap);
  }
}

// Adds the rounds' result to the state, as a block's compression ends.
__attribute__((target("sha,sse4.1"), always_inline)) inline void AddRounds(
    Sha1State& s, __m128i abcd, __m128i prev) {
  s.e = _mm_sha1nexte_epu32(prev, s.e);
  s.abcd = _mm_add_epi32(abcd, s.abcd);
}

// Compresses one 64-byte block into `s`.
__attribute__((target("sha,sse4.1"))) void Compress(Sha1State& s,
                                                    const unsigned char* p) {
  __m128i w[4];
  LoadWords(p, w);
  __m128i abcd = s.abcd;
  __m128i prev = s.e;  // group 0 adds E to the words
  Rounds(std::make_integer_sequence<int, 20>(), w, abcd, prev);
  AddRounds(s, abcd, prev);
}

template <int... kGroups>
__attribute__((target("sha,sse4.1"), always_inline)) inline void Rounds2(
    std::integer_sequence<int, kGroups...>, __m128i (&w0)[4], __m128i& abcd0,
    __m128i& prev0, __m128i (&w1)[4], __m128i& abcd1, __m128i& prev1) {
  ((Group<kGroups>(w0, abcd0, prev0), Group<kGroups>(w1, abcd1, prev1)), ...);
}

// Compress for two independent blocks, their rounds interleaved: a round
// group waits for the one before it (sha1rnds4 takes several cycles), so a
// single message leaves the SHA unit idle most of the time, and a second one
// fills it.
__attribute__((target("sha,sse4.1"))) void Compress2(Sha1State& s0,
                                                     const unsigned char* p0,
                                                     Sha1State& s1,
                                                     const unsigned char* p1) {
  __m128i w0[4];
  __m128i w1[4];
  LoadWords(p0, w0);
  LoadWords(p1, w1);
  __m128i abcd0 = s0.abcd;
  __m128i prev0 = s0.e;
  __m128i abcd1 = s1.abcd;
  __m128i prev1 = s1.e;
  Rounds2(std::make_integer_sequence<int, 20>(), w0, abcd0, prev0, w1, abcd1,
          prev1);
  AddRounds(s0, abcd0, prev0);
  AddRounds(s1, abcd1, prev1);
}

// One message as the 64-byte blocks SHA-1 compresses: those of the bytes
// themselves, then the tail, 0x80, zeros and the length in bits (big-endian)
// in the last 64 bytes: one block, or two when the tail leaves fewer than 9
// bytes.
class Padded {
 public:
  explicit Padded(std::string_view bytes)
      : p_(reinterpret_cast<const unsigned char*>(bytes.data())),
        full_(bytes.size() / 64) {
    const std::size_t n = bytes.size();
    const std::size_t tail = n - 64 * full_;
    std::memcpy(last_, p_ + 64 * full_, tail);
    last_[tail] = 0x80;
    last_blocks_ = tail + 9 <= 64 ? 1 : 2;
    const std::uint64_t bits = static_cast<std::uint64_t>(n) * 8;
    for (int i = 0; i < 8; ++i) {
      last_[64 * last_blocks_ - 1 - i] =
          static_cast<unsigned char>(bits >> (8 * i));
    }
  }
  std::size_t blocks() const { return full_ + last_blocks_; }
  const unsigned char* block(std::size_t k) const {
    return k < full_ ? p_ + 64 * k : last_ + 64 * (k - full_);
  }

 private:
  const unsigned char* p_;
  std::size_t full_;
  std::size_t last_blocks_ = 1;
  unsigned char last_[128] = {};
};

__attribute__((target("sha,sse4.1"))) Sha1State Initial() {
  Sha1State s;
  // A, B, C, D from the top lane down; E in the top lane.
  s.abcd = _mm_set_epi32(0x67452301, static_cast<int>(0xefcdab89),
                         static_cast<int>(0x98badcfe), 0x10325476);
  s.e = _mm_set_epi32(static_cast<int>(0xc3d2e1f0), 0, 0, 0);
  return s;
}

__attribute__((target("sha,sse4.1"))) void Digest(
    const Sha1State& s, std::array<std::uint8_t, 20>& out) {
  alignas(16) std::uint32_t words[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(words), s.abcd);
  const std::uint32_t state[5] = {
      words[3], words[2], words[1], words[0],
      static_cast<std::uint32_t>(_mm_extract_epi32(s.e, 3))};
  for (int i = 0; i < 5; ++i) {
    for (int k = 0; k < 4; ++k) {
      out[4 * i + k] = static_cast<std::uint8_t>(state[i] >> (24 - 8 * k));
    }
  }
}

}  // namespace

__attribute__((target("sha,sse4.1"))) void Sha1ShaNi(
    std::string_view bytes, std::array<std::uint8_t, 20>& out) {
  Sha1State s = Initial();
  const Padded m(bytes);
  for (std::size_t k = 0; k < m.blocks(); ++k) Compress(s, m.block(k));
  Digest(s, out);
}

__attribute__((target("sha,sse4.1"))) void Sha1ShaNi2(
    std::string_view a, std::string_view b, std::array<std::uint8_t, 20>& out_a,
    std::array<std::uint8_t, 20>& out_b) {
  Sha1State sa = Initial();
  Sha1State sb = Initial();
  const Padded ma(a);
  const Padded mb(b);
  const std::size_t both = std::min(ma.blocks(), mb.blocks());
  for (std::size_t k = 0; k < both; ++k)
    Compress2(sa, ma.block(k), sb, mb.block(k));
  for (std::size_t k = both; k < ma.blocks(); ++k) Compress(sa, ma.block(k));
  for (std::size_t k = both; k < mb.blocks(); ++k) Compress(sb, mb.block(k));
  Digest(sa, out_a);
  Digest(sb, out_b);
}

bool HasShaNi() {
  // CPUID itself: clang 14's __builtin_cpu_supports does not know "sha".
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
    const bool sse41 = (ecx & bit_SSE4_1) != 0 && (ecx & bit_SSSE3) != 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
    return sse41 && (ebx & bit_SHA) != 0;
  }();
  return has;
}

#else

bool HasShaNi() { return false; }

void Sha1ShaNi(std::string_view, std::array<std::uint8_t, 20>&) {}

void Sha1ShaNi2(std::string_view, std::string_view,
                std::array<std::uint8_t, 20>&, std::array<std::uint8_t, 20>&) {}

#endif

}  // namespace mw::fingerprint::internal
