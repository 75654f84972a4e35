// Byte scans shared by the fingerprint passes (private): where a run of one
// kind of ASCII byte ends, sixteen bytes per step.
//
// Every pass over the folded text (fold, sentences, lines, words) spends most
// of its time finding the end of a word or of a run of spaces, byte by byte,
// with a mispredicted branch at the end of each run. SSE2 is part of x86-64
// itself, so these need no run-time dispatch; elsewhere the same scans run
// byte by byte. Each returns the first index >= i (at most text.size()) where
// the run ends, exactly as the byte loop in its comment would.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_SRC_SCAN_H_
#define MW_FINGERPRINT_SRC_SCAN_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#define MW_SCAN_SSE2 1
#endif

namespace mw::fingerprint::internal {

inline bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

#ifdef MW_SCAN_SSE2
// Bit k set when p[k] is an ASCII letter or digit. Bytes >= 0x80 are negative
// to the signed compares, so never in a range.
inline std::uint32_t AlnumMask16(__m128i v) {
  const __m128i lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
  const __m128i alpha =
      _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
                    _mm_cmpgt_epi8(_mm_set1_epi8('z' + 1), lower));
  const __m128i digit =
      _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
                    _mm_cmpgt_epi8(_mm_set1_epi8('9' + 1), v));
  return static_cast<std::uint32_t>(
      _mm_movemask_epi8(_mm_or_si128(alpha, digit)));
}

inline __m128i Load16(const char* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
#endif

// while (i < n && IsAsciiAlnum(text[i])) ++i;
inline std::size_t SkipAsciiAlnum(std::string_view text, std::size_t i) {
  const std::size_t n = text.size();
#ifdef MW_SCAN_SSE2
  for (; i + 16 <= n; i += 16) {
    const std::uint32_t stop = ~AlnumMask16(Load16(text.data() + i)) & 0xffff;
    if (stop != 0) return i + static_cast<std::size_t>(std::countr_zero(stop));
  }
#endif
  while (i < n && IsAsciiAlnum(text[i])) ++i;
  return i;
}

// while (i < n && text[i] < 0x80 && !IsAsciiAlnum(text[i])) ++i;
inline std::size_t SkipAsciiSeparators(std::string_view text, std::size_t i) {
  const std::size_t n = text.size();
#ifdef MW_SCAN_SSE2
  for (; i + 16 <= n; i += 16) {
    const __m128i v = Load16(text.data() + i);
    const std::uint32_t stop =
        AlnumMask16(v) | static_cast<std::uint32_t>(_mm_movemask_epi8(v));
    if (stop != 0) return i + static_cast<std::size_t>(std::countr_zero(stop));
  }
#endif
  while (i < n && static_cast<unsigned char>(text[i]) < 0x80 &&
         !IsAsciiAlnum(text[i])) {
    ++i;
  }
  return i;
}

// while (i < n && text[i] != a && text[i] != b && text[i] != c) ++i;
// (memchr for up to three bytes.)
inline std::size_t FindAnyOf3(std::string_view text, std::size_t i, char a,
                              char b, char c) {
  const std::size_t n = text.size();
#ifdef MW_SCAN_SSE2
  const __m128i va = _mm_set1_epi8(a);
  const __m128i vb = _mm_set1_epi8(b);
  const __m128i vc = _mm_set1_epi8(c);
  for (; i + 16 <= n; i += 16) {
    const __m128i v = Load16(text.data() + i);
    const __m128i hit =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)),
                     _mm_cmpeq_epi8(v, vc));
    const auto m = static_cast<std::uint32_t>(_mm_movemask_epi8(hit));
    if (m != 0) return i + static_cast<std::size_t>(std::countr_zero(m));
  }
#endif
  while (i < n && text[i] != a && text[i] != b && text[i] != c) ++i;
  return i;
}

// What ScanFolded found in a block.
struct FoldedScan {
  bool folded = true;       // its only whitespace is single ' ' bytes
  bool ascii_word = false;  // it holds an ASCII letter or digit
  bool non_ascii = false;   // it holds a byte >= 0x80
};

// Reads `block`, which REQUIRES no whitespace at either end: whether runs of
// whitespace (' ', '\t', '\n', '\v', '\f', '\r') would fold it to anything
// else (no: it is its own folded form, the common case), and what it holds.
inline FoldedScan ScanFolded(std::string_view block) {
  FoldedScan r;
  const std::size_t n = block.size();
  std::size_t i = 0;
  std::uint32_t prev_space = 0;  // the byte before i is ' '
#ifdef MW_SCAN_SSE2
  std::uint32_t bad = 0;
  std::uint32_t alnum = 0;
  std::uint32_t high = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = Load16(block.data() + i);
    const auto space = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' '))));
    // '\t' .. '\r' are 9 .. 13.
    const auto other = static_cast<std::uint32_t>(
        _mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(8)),
                                        _mm_cmpgt_epi8(_mm_set1_epi8(14), v))));
    bad |= other | (space & ((space << 1) | prev_space));
    prev_space = space >> 15;
    alnum |= AlnumMask16(v);
    high |= static_cast<std::uint32_t>(_mm_movemask_epi8(v));
  }
  r.folded = bad == 0;
  r.ascii_word = alnum != 0;
  r.non_ascii = high != 0;
#endif
  for (; i < n; ++i) {
    const char c = block[i];
    if (c == ' ') {
      if (prev_space != 0) r.folded = false;
      prev_space = 1;
      continue;
    }
    prev_space = 0;
    if (c >= '\t' && c <= '\r') r.folded = false;
    if (IsAsciiAlnum(c)) r.ascii_word = true;
    if (static_cast<unsigned char>(c) >= 0x80) r.non_ascii = true;
  }
  return r;
}

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_SRC_SCAN_H_
