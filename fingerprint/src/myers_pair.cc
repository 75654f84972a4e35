// One pair: Myers' bit-parallel edit distance split in two halves that run
// side by side (see MyersDistance in core.h).
//
// A single chain of Myers' recurrence is one dependent sequence of about nine
// operations per text symbol, so one pair of 64-symbol signatures costs some
// 600 cycles however the code around it is arranged. Here the text b is cut at
// h = n / 2 and the two halves run at once, as the two 64-bit lanes of one
// 128-bit vector:
//
//   lane 0 (forward):  a against b[0, h), giving the DP column
//                      F[i] = D(a[0, i), b[0, h))          for i = 0..m;
//   lane 1 (backward): reversed a against reversed b[h, n), giving
//                      B[k] = D(a[m - k, m), b[h, n))      for k = 0..m.
//
// Every alignment of a with b crosses the cut between b[h - 1] and b[h] at
// some row i, so D(a, b) = min over i of F[i] + B[m - i] (Hirschberg's
// observation). Each lane then runs only ceil(n / 2) columns, and AVX-512's
// three-input logic operations (vpternlog) shorten a column to five dependent
// operations. The two columns are combined with byte-wise prefix sums over the
// 64 rows.
//
// On the dev machine (AMD Zen 5) a simple vector integer operation takes two
// cycles against one for a scalar one, so a vector column costs about ten
// cycles, not five. Two scalar chains with the same rearrangement (six
// dependent operations a column, but about twenty operations per chain and
// column) measured slower (152 against 129 ns for n = 64, best of five), it
// seems for want of scalar ports.
#include <cstdint>
#include <string_view>

#include "cpu.h"
#include "fingerprint/core.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define MW_MYERS_PAIR_X86 1
#endif

namespace mw::fingerprint {
namespace {

#ifdef MW_MYERS_PAIR_X86
#define MW_AVX512_TARGET \
  __attribute__((        \
      target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512bitalg,popcnt")))

// Truth tables for vpternlog: with operands A, B, C (in that order), an
// immediate is the wanted function applied to these three bytes.
constexpr int kA = 0xF0;
constexpr int kB = 0xCC;
constexpr int kC = 0xAA;
constexpr int kXorOr = ((kA ^ kB) | kC) & 0xFF;  // (A ^ B) | C
constexpr int kMajority = ((kA & kB) | (kA & kC) | (kB & kC)) & 0xFF;
constexpr int kOrNotOr = (kA | ~(kB | kC)) & 0xFF;  // A | ~(B | C)
constexpr int kOrAnd = ((kA | kB) & kC) & 0xFF;     // (A | B) & C
constexpr int kNor3 = ~(kA | kB | kC) & 0xFF;       // ~(A | B | C)

// One column of Myers' recurrence in both lanes. The textbook column (Hyyrö)
// with X = Eq | Mv | 1 is
//
//   Xh  = (((Eq & Pv) + Pv) ^ Pv) | Eq
//   Ph  = Mv | ~(Xh | Pv)            Mh  = Pv & Xh
//   Pv' = (Mh << 1) | ~(X | (Ph << 1))
//   Mv' = ((Ph << 1) | 1) & (Eq | Mv)
//
// Shifting commutes with the bitwise operations, and X's bit 0 is set, so
//   Pv' = (Mh | (Y & ~Ph)) << 1   with Y = ~X >> 1 = ~((Eq >> 1) | (Mv >> 1))
// (up to bit 63 of the part shifted out). Mv & Pv = 0, so Y & ~Ph =
// Y & ~Mv & (Xh | Pv), and with Y' = Y & ~Mv,
//   Mh | (Y' & (Xh | Pv)) = Majority(Xh, Pv, Y').
// Y' depends only on Eq and on Mv, which is ready a step before Xh, so the
// dependent path from Pv to Pv' is and, add, ternlog, ternlog, shift.
MW_AVX512_TARGET inline void Step(__m128i eq, __m128i& pv, __m128i& mv) {
  const __m128i one = _mm_set1_epi64x(1);
  const __m128i y = _mm_ternarylogic_epi64(_mm_srli_epi64(eq, 1),
                                           _mm_srli_epi64(mv, 1), mv, kNor3);
  const __m128i s = _mm_add_epi64(_mm_and_si128(eq, pv), pv);
  const __m128i xh = _mm_ternarylogic_epi64(s, pv, eq, kXorOr);
  const __m128i ph = _mm_ternarylogic_epi64(mv, xh, pv, kOrNotOr);
  const __m128i next_mv = _mm_ternarylogic_epi64(_mm_slli_epi64(ph, 1), one,
                                                 _mm_or_si128(eq, mv), kOrAnd);
  pv = _mm_slli_epi64(_mm_ternarylogic_epi64(xh, pv, y, kMajority), 1);
  mv = next_mv;
}

// Bytes 63, 62, ..., 0.
MW_AVX512_TARGET inline __m512i Descending() {
  return _mm512_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                         16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29,
                         30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
                         44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57,
                         58, 59, 60, 61, 62, 63);
}

// Inclusive prefix sums of 64 bytes: byte t of the result is the sum of bytes
// 0..t of v, modulo 256.
MW_AVX512_TARGET inline __m512i PrefixSums(__m512i v) {
  // Within each 16-byte lane.
  v = _mm512_add_epi8(v, _mm512_bslli_epi128(v, 1));
  v = _mm512_add_epi8(v, _mm512_bslli_epi128(v, 2));
  v = _mm512_add_epi8(v, _mm512_bslli_epi128(v, 4));
  v = _mm512_add_epi8(v, _mm512_bslli_epi128(v, 8));
  // Each lane's total in all its bytes, then the totals of the lanes below.
  const __m512i total = _mm512_shuffle_epi8(v, _mm512_set1_epi8(15));
  const __m512i below1 =
      _mm512_maskz_shuffle_i64x2(0xFC, total, total, _MM_SHUFFLE(2, 1, 0, 0));
  const __m512i below2 =
      _mm512_maskz_shuffle_i64x2(0xF0, total, total, _MM_SHUFFLE(1, 0, 0, 0));
  const __m512i below3 =
      _mm512_maskz_shuffle_i64x2(0xC0, total, total, _MM_SHUFFLE(0, 0, 0, 0));
  return _mm512_add_epi8(_mm512_add_epi8(v, below1),
                         _mm512_add_epi8(below2, below3));
}

// Smallest of 64 unsigned bytes.
MW_AVX512_TARGET inline unsigned MinByte(__m512i v) {
  __m256i y = _mm256_min_epu8(_mm512_maskz_extracti64x4_epi64(0xF, v, 0),
                              _mm512_maskz_extracti64x4_epi64(0xF, v, 1));
  __m128i x =
      _mm_min_epu8(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
  x = _mm_min_epu8(x, _mm_srli_epi16(x, 8));
  x = _mm_minpos_epu16(_mm_and_si128(x, _mm_set1_epi16(0xFF)));
  return static_cast<unsigned>(_mm_cvtsi128_si32(x)) & 0xFFFF;
}

// The two lanes' match masks for one step: bit i of lane 0 is set where
// fwd_pattern[i] == fwd_symbol, of lane 1 where bwd_pattern[i] == bwd_symbol
// (rows i outside `rows` clear).
MW_AVX512_TARGET inline __m128i MatchMasks(__mmask64 rows, __m512i fwd_pattern,
                                           char fwd_symbol, __m512i bwd_pattern,
                                           char bwd_symbol) {
  const std::uint64_t f = _mm512_mask_cmpeq_epi8_mask(
      rows, fwd_pattern, _mm512_set1_epi8(fwd_symbol));
  const std::uint64_t r = _mm512_mask_cmpeq_epi8_mask(
      rows, bwd_pattern, _mm512_set1_epi8(bwd_symbol));
  return _mm_insert_epi64(_mm_cvtsi64_si128(static_cast<long long>(f)),
                          static_cast<long long>(r), 1);
}

// D(a, b) from the two lanes' last columns: pv_fwd / mv_fwd the vertical
// deltas of F, pv_bwd / mv_bwd those of B (bit r for row r + 1).
MW_AVX512_TARGET std::uint32_t Combine(std::size_t m, std::size_t n,
                                       __m512i rev, std::uint64_t pv_fwd,
                                       std::uint64_t mv_fwd,
                                       std::uint64_t pv_bwd,
                                       std::uint64_t mv_bwd) {
  const std::uint64_t low =
      m == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << m) - 1;
  const __mmask64 rows = low;
  const __m512i descending = Descending();
  // With Fx[i] = F[i] - h and Bx[k] = B[k] - (n - h) (sums of the vertical
  // deltas of rows below i and k), D(a, b) = n + min over i of
  // c[i] = Fx[i] + Bx[m - i]. Going from c[t] to c[t + 1] adds row t's
  // forward delta and takes away row m - 1 - t's backward delta, so
  //   c[t + 1] = c[0] + P[t],  P = inclusive prefix sums of
  //   e[t] = fwd delta[t] - bwd delta[m - 1 - t]   (0 for t >= m),
  // and D = n + c[0] + min(0, min over t of P[t]); the rows t >= m repeat
  // P[m - 1] = c[m] - c[0], which is a term of the minimum anyway.
  //
  // Range: the bytes are added modulo 256, so only the final P[t] must fit
  // int8. F[i] <= max(i, h) and B[k] <= max(k, n - h), so c[i] <= m, and
  // c[i] >= -n as the distances are >= 0. c[0] = h + B[m] - n lies in
  // [-(n - h), max(0, m - (n - h))] (|m - (n - h)| <= B[m] <= max(m, n - h)),
  // hence -max(n, m + h) <= P[t] = c[t + 1] - c[0] <= m + (n - h): |P[t]| <=
  // 64 + 32 = 96 for m, n <= 64 (h = n / 2 <= 32).
  const __m512i iota =
      _mm512_add_epi8(_mm512_set1_epi8(63),
                      _mm512_sub_epi8(_mm512_setzero_si512(), descending));
  const __m512i pv_f = _mm512_set1_epi64(static_cast<long long>(pv_fwd));
  const __m512i mv_f = _mm512_set1_epi64(static_cast<long long>(mv_fwd));
  const __m512i pv_b = _mm512_set1_epi64(static_cast<long long>(pv_bwd));
  const __m512i mv_b = _mm512_set1_epi64(static_cast<long long>(mv_bwd));
  // vpmovm2b gives -1 for a set bit.
  const __m512i e = _mm512_add_epi8(
      _mm512_sub_epi8(
          _mm512_movm_epi8(_mm512_mask_bitshuffle_epi64_mask(rows, mv_f, iota)),
          _mm512_movm_epi8(
              _mm512_mask_bitshuffle_epi64_mask(rows, pv_f, iota))),
      _mm512_sub_epi8(
          _mm512_movm_epi8(_mm512_mask_bitshuffle_epi64_mask(rows, pv_b, rev)),
          _mm512_movm_epi8(
              _mm512_mask_bitshuffle_epi64_mask(rows, mv_b, rev))));
  // Biased by 128 so that the minimum is an unsigned one.
  const __m512i p = _mm512_xor_si512(PrefixSums(e),
                                     _mm512_set1_epi8(static_cast<char>(0x80)));
  const int min_p = static_cast<int>(MinByte(p)) - 128;
  const int c0 = static_cast<int>(_mm_popcnt_u64(pv_bwd & low)) -
                 static_cast<int>(_mm_popcnt_u64(mv_bwd & low));
  return static_cast<std::uint32_t>(static_cast<int>(n) + c0 +
                                    (min_p < 0 ? min_p : 0));
}

MW_AVX512_TARGET std::uint32_t Avx512Distance(std::string_view a,
                                              std::string_view b) {
  const std::size_t m = a.size();
  const std::size_t n = b.size();
  const std::uint64_t low =
      m == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << m) - 1;
  const __mmask64 rows = low;
  // rev[t] = m - 1 - t (mod 64): the row of reversed a that row t of a is.
  const __m512i descending = Descending();
  const __m512i rev =
      _mm512_add_epi8(descending, _mm512_set1_epi8(static_cast<char>(m)));
  const __m512i fwd_pattern = _mm512_maskz_loadu_epi8(rows, a.data());
  const __m512i bwd_pattern =
      _mm512_maskz_permutexvar_epi8(rows, rev, fwd_pattern);

  // The match masks of a step's two columns come from one compare per lane,
  // with no table to fill first; they do not depend on the chain, so the
  // out-of-order core computes them ahead while the chain runs. With n odd the
  // backward lane has one column more: the forward lane sits out step 0.
  // (No lambda for the masks: a lambda does not take this function's target
  // attribute, and clang refuses to pass it a 512-bit vector.)
  const std::size_t h = n / 2;
  __m128i pv = _mm_set1_epi64x(-1);
  __m128i mv = _mm_setzero_si128();
  if (n % 2 != 0) {
    Step(MatchMasks(rows, fwd_pattern, b[0], bwd_pattern, b[n - 1]), pv, mv);
    pv = _mm_mask_mov_epi64(pv, 1, _mm_set1_epi64x(-1));
    mv = _mm_mask_mov_epi64(mv, 1, _mm_setzero_si128());
  }
  for (std::size_t j = 0; j < h; ++j) {
    Step(MatchMasks(rows, fwd_pattern, b[j], bwd_pattern, b[2 * h - 1 - j]), pv,
         mv);
  }

  return Combine(m, n, rev, static_cast<std::uint64_t>(_mm_cvtsi128_si64(pv)),
                 static_cast<std::uint64_t>(_mm_cvtsi128_si64(mv)),
                 static_cast<std::uint64_t>(_mm_extract_epi64(pv, 1)),
                 static_cast<std::uint64_t>(_mm_extract_epi64(mv, 1)));
}

bool HasAvx512() { return internal::Cpu().avx512_myers; }
#endif

}  // namespace

namespace internal {

bool MyersDistanceAvx512(std::string_view a, std::string_view b,
                         std::uint32_t* distance) {
#ifdef MW_MYERS_PAIR_X86
  if (!HasAvx512() || a.empty() || a.size() > 64 || b.empty() ||
      b.size() > 64) {
    return false;
  }
  *distance = Avx512Distance(a, b);
  return true;
#else
  (void)a;
  (void)b;
  (void)distance;
  return false;
#endif
}

}  // namespace internal

std::uint32_t MyersDistance(std::string_view a, std::string_view b) {
  std::uint32_t d;
  if (internal::MyersDistanceAvx512(a, b, &d)) return d;
  return internal::MyersDistanceScalar(a, b);
}

}  // namespace mw::fingerprint
