// One CTPH signature against many: Myers' bit-parallel edit distance, several
// texts at a time (see MyersDistances in core.h).
//
// Both paths keep, per text, the DP column of the pattern as Myers' vertical
// delta vectors (pv: +1 steps, mv: -1 steps) and freeze it once the text has
// ended, so the distance is read off the last column at the end:
//   D[m][n] = n + popcount(pv & low_m) - popcount(mv & low_m)
// (row 0 of column n is n, and each row below adds its vertical delta). Bits
// above m - 1 hold garbage that never reaches the low bits: the addition
// carries and the shifts only move bits upwards.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "cpu.h"
#include "fingerprint/core.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define MW_MYERS_X86 1
#endif

namespace mw::fingerprint {
namespace {

std::uint64_t LowMask(std::size_t m) {
  return m >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << m) - 1;
}

std::uint32_t Distance(std::size_t n, std::uint64_t pv, std::uint64_t mv,
                       std::uint64_t low) {
  return static_cast<std::uint32_t>(static_cast<std::int64_t>(n) +
                                    std::popcount(pv & low) -
                                    std::popcount(mv & low));
}

// Match masks of `pattern` per byte value.
void BuildPeq(std::string_view pattern, std::uint64_t (&peq)[256]) {
  std::memset(peq, 0, sizeof peq);
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    peq[static_cast<unsigned char>(pattern[i])] |= std::uint64_t{1} << i;
  }
}

// True when the pattern is empty: every distance is then the text's length.
bool EmptyPattern(std::string_view pattern,
                  std::span<const std::string_view> texts,
                  std::span<std::uint32_t> out) {
  if (!pattern.empty()) return false;
  for (std::size_t k = 0; k < texts.size(); ++k) {
    out[k] = static_cast<std::uint32_t>(texts[k].size());
  }
  return true;
}

#ifdef MW_MYERS_X86
// One column of Myers' recurrence for four lanes. With kFreeze, lanes whose
// text has ended (len <= column) keep their state; without, every lane must
// still be inside its text.
template <bool kFreeze>
__attribute__((target("avx2"), always_inline)) inline void Avx2Step(
    __m256i eq, __m256i len, __m256i column, __m256i& pv, __m256i& mv) {
  const __m256i ones = _mm256_set1_epi64x(-1);
  const __m256i xv = _mm256_or_si256(eq, mv);
  const __m256i xh = _mm256_or_si256(
      _mm256_xor_si256(_mm256_add_epi64(_mm256_and_si256(eq, pv), pv), pv), eq);
  __m256i ph =
      _mm256_or_si256(mv, _mm256_xor_si256(_mm256_or_si256(xh, pv), ones));
  __m256i mh = _mm256_and_si256(pv, xh);
  ph = _mm256_or_si256(_mm256_slli_epi64(ph, 1), _mm256_set1_epi64x(1));
  mh = _mm256_slli_epi64(mh, 1);
  const __m256i next_pv =
      _mm256_or_si256(mh, _mm256_xor_si256(_mm256_or_si256(xv, ph), ones));
  const __m256i next_mv = _mm256_and_si256(ph, xv);
  if constexpr (kFreeze) {
    const __m256i active = _mm256_cmpgt_epi64(len, column);
    pv = _mm256_blendv_epi8(pv, next_pv, active);
    mv = _mm256_blendv_epi8(mv, next_mv, active);
  } else {
    (void)len;
    (void)column;
    pv = next_pv;
    mv = next_mv;
  }
}

// Up to 4·kChains texts (group.size()) per step, in kChains vectors of four
// lanes: independent dependency chains in flight, held in registers. One
// column of one chain is a chain of about twelve dependent operations; with
// three of them the vector units have work while each waits on its own.
//
// The match masks of the texts' symbols are looked up in scalar code, which
// runs on other ports than the vector units, kLookahead columns ahead of the
// column being computed, into a ring of columns; by the time a column's
// vector loads read them, the scalar stores have long completed (a vector load
// right after the stores it reads would wait for them). Past a text's end the
// lookup reads its first symbol instead (no branch per lane): the freeze
// discards those columns.
template <std::size_t kChains>
__attribute__((target("avx2"))) void Avx2Group(
    const std::uint64_t (&peq)[256], std::uint64_t low,
    std::span<const std::string_view> group, std::span<std::uint32_t> out) {
  constexpr std::size_t kLanes = 4 * kChains;
  constexpr std::size_t kRing = 16;  // columns; a power of two
  constexpr std::size_t kLookahead = 4;
  static_assert(kLookahead < kRing);
  static constexpr char kNoText = 0;  // what the lanes without a text read
  const char* text[kLanes];
  std::size_t len[kLanes];  // 0 for the lanes without a text
  std::size_t longest = 0;
  std::size_t shortest = group.size() < kLanes ? 0 : group[0].size();
  for (std::size_t l = 0; l < kLanes; ++l) {
    const bool here = l < group.size() && !group[l].empty();
    text[l] = here ? group[l].data() : &kNoText;
    len[l] = l < group.size() ? group[l].size() : 0;
    longest = std::max(longest, len[l]);
    if (l < group.size()) shortest = std::min(shortest, len[l]);
  }
  alignas(64) std::uint64_t eqs[kRing * kLanes];
  const auto fill = [&](std::size_t column) {
    std::uint64_t* row = &eqs[(column % kRing) * kLanes];
#pragma GCC unroll 12
    for (std::size_t l = 0; l < kLanes; ++l) {
      const std::size_t at = column < len[l] ? column : 0;
      row[l] = peq[static_cast<unsigned char>(text[l][at])];
    }
  };
  for (std::size_t j = 0; j < std::min(kLookahead, longest); ++j) fill(j);
  __m256i pv[kChains];
  __m256i mv[kChains];
  __m256i lens[kChains];
#pragma GCC unroll 3
  for (std::size_t c = 0; c < kChains; ++c) {
    pv[c] = _mm256_set1_epi64x(-1);
    mv[c] = _mm256_setzero_si256();
    lens[c] = _mm256_set_epi64x(static_cast<std::int64_t>(len[4 * c + 3]),
                                static_cast<std::int64_t>(len[4 * c + 2]),
                                static_cast<std::int64_t>(len[4 * c + 1]),
                                static_cast<std::int64_t>(len[4 * c]));
  }
  // Up to the shortest text every lane is active and nothing need freeze.
  std::size_t j = 0;
  for (; j < shortest; ++j) {
    if (j + kLookahead < longest) fill(j + kLookahead);
    const __m256i* eq =
        reinterpret_cast<const __m256i*>(&eqs[(j % kRing) * kLanes]);
#pragma GCC unroll 3
    for (std::size_t c = 0; c < kChains; ++c) {
      Avx2Step<false>(_mm256_load_si256(eq + c), lens[c], lens[c], pv[c],
                      mv[c]);
    }
  }
  for (; j < longest; ++j) {
    if (j + kLookahead < longest) fill(j + kLookahead);
    const __m256i column = _mm256_set1_epi64x(static_cast<std::int64_t>(j));
    const __m256i* eq =
        reinterpret_cast<const __m256i*>(&eqs[(j % kRing) * kLanes]);
#pragma GCC unroll 3
    for (std::size_t c = 0; c < kChains; ++c) {
      Avx2Step<true>(_mm256_load_si256(eq + c), lens[c], column, pv[c], mv[c]);
    }
  }
  alignas(32) std::uint64_t pvs[kLanes];
  alignas(32) std::uint64_t mvs[kLanes];
#pragma GCC unroll 3
  for (std::size_t c = 0; c < kChains; ++c) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(&pvs[4 * c]), pv[c]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(&mvs[4 * c]), mv[c]);
  }
  for (std::size_t l = 0; l < group.size(); ++l) {
    out[l] = Distance(len[l], pvs[l], mvs[l], low);
  }
}

// Twelve texts at a time; the last group with only as many chains as it
// fills, as an empty lane costs as much as a full one.
__attribute__((target("avx2"))) void Avx2Batch(
    std::string_view pattern, std::span<const std::string_view> texts,
    std::span<std::uint32_t> out) {
  alignas(64) std::uint64_t peq[256];
  BuildPeq(pattern, peq);
  const std::uint64_t low = LowMask(pattern.size());
  for (std::size_t base = 0; base < texts.size(); base += 12) {
    const std::size_t n = std::min<std::size_t>(12, texts.size() - base);
    const auto group = texts.subspan(base, n);
    const auto group_out = out.subspan(base, n);
    if (n > 8) {
      Avx2Group<3>(peq, low, group, group_out);
    } else if (n > 4) {
      Avx2Group<2>(peq, low, group, group_out);
    } else {
      Avx2Group<1>(peq, low, group, group_out);
    }
  }
}

#endif

}  // namespace

namespace internal {

void MyersDistancesPortable(std::string_view pattern,
                            std::span<const std::string_view> texts,
                            std::span<std::uint32_t> out) {
  if (EmptyPattern(pattern, texts, out)) return;
  std::uint64_t peq[256];
  BuildPeq(pattern, peq);
  const std::uint64_t low = LowMask(pattern.size());
  constexpr std::size_t kLanes = 4;
  for (std::size_t base = 0; base < texts.size(); base += kLanes) {
    const std::size_t lanes = std::min(kLanes, texts.size() - base);
    std::uint64_t pv[kLanes];
    std::uint64_t mv[kLanes];
    std::size_t longest = 0;
    for (std::size_t l = 0; l < kLanes; ++l) {
      pv[l] = ~std::uint64_t{0};
      mv[l] = 0;
      if (l < lanes) longest = std::max(longest, texts[base + l].size());
    }
    for (std::size_t j = 0; j < longest; ++j) {
      for (std::size_t l = 0; l < kLanes; ++l) {
        if (l >= lanes || j >= texts[base + l].size()) continue;
        const std::uint64_t eq =
            peq[static_cast<unsigned char>(texts[base + l][j])];
        const std::uint64_t xv = eq | mv[l];
        const std::uint64_t xh = (((eq & pv[l]) + pv[l]) ^ pv[l]) | eq;
        std::uint64_t ph = mv[l] | ~(xh | pv[l]);
        std::uint64_t mh = pv[l] & xh;
        ph = (ph << 1) | 1;
        mh <<= 1;
        pv[l] = mh | ~(xv | ph);
        mv[l] = ph & xv;
      }
    }
    for (std::size_t l = 0; l < lanes; ++l) {
      out[base + l] = Distance(texts[base + l].size(), pv[l], mv[l], low);
    }
  }
}

bool MyersDistancesAvx2(std::string_view pattern,
                        std::span<const std::string_view> texts,
                        std::span<std::uint32_t> out) {
#ifdef MW_MYERS_X86
  if (!internal::Cpu().avx2) return false;
  if (!EmptyPattern(pattern, texts, out)) Avx2Batch(pattern, texts, out);
  return true;
#else
  (void)pattern;
  (void)texts;
  (void)out;
  return false;
#endif
}

}  // namespace internal

void MyersDistances(std::string_view pattern,
                    std::span<const std::string_view> texts,
                    std::span<std::uint32_t> out) {
  if (!internal::MyersDistancesAvx2(pattern, texts, out)) {
    internal::MyersDistancesPortable(pattern, texts, out);
  }
}

}  // namespace mw::fingerprint
