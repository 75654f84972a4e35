// Byte scans shared by the fingerprint passes (private), sixteen bytes per
// step: where a run of one kind of ASCII byte ends, and what a block or a line
// holds.
//
// Every pass over the folded text (fold, sentences, lines, words) spent most
// of its time finding the end of a word or of a run of spaces, byte by byte,
// with a mispredicted branch at the end of each run. SSE2 is part of x86-64
// itself, so these need no run-time dispatch; elsewhere the same scans run
// byte by byte. The Skip/Find scans return the first index >= i (at most
// text.size()) where the run ends, exactly as the byte loop in their comment
// would; vector loads never read past text.size().
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_SRC_SCAN_H_
#define MW_FINGERPRINT_SRC_SCAN_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
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

// What a 64-byte block holds: bit k of `word` when byte k is an ASCII letter
// or digit, of `high` when it is >= 0x80.
struct Masks64 {
  std::uint64_t word;
  std::uint64_t high;
};

// REQUIRES: p[0..64) readable.
inline Masks64 ClassifyAscii64(const char* p) {
  Masks64 m{0, 0};
  for (int k = 0; k < 4; ++k) {
    const __m128i v = Load16(p + 16 * k);
    m.word |= std::uint64_t{AlnumMask16(v)} << (16 * k);
    m.high |= std::uint64_t{static_cast<std::uint32_t>(_mm_movemask_epi8(v))}
              << (16 * k);
  }
  return m;
}

// Bit k set when byte k of `v` is `c`.
inline std::uint32_t ByteMask16(__m128i v, char c) {
  return static_cast<std::uint32_t>(
      _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(c))));
}

// Bit k set when byte k of `v` is one of '\t' .. '\r' (9 .. 13).
inline std::uint32_t ControlSpaceMask16(__m128i v) {
  return static_cast<std::uint32_t>(
      _mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(8)),
                                      _mm_cmpgt_epi8(_mm_set1_epi8(14), v))));
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

// while (i < n && text[i] is none of . ! ? \r \n) ++i;
// (The ASCII characters after which UAX #29 may break a sentence.)
inline std::size_t FindSentenceEnd(std::string_view text, std::size_t i) {
  const std::size_t n = text.size();
  const auto is_end = [](char c) {
    return c == '.' || c == '!' || c == '?' || c == '\r' || c == '\n';
  };
#ifdef MW_SCAN_SSE2
  for (; i + 16 <= n; i += 16) {
    const __m128i v = Load16(text.data() + i);
    const __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('.')),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('!'))),
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('?')),
                                  _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'))),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))));
    const auto m = static_cast<std::uint32_t>(_mm_movemask_epi8(hit));
    if (m != 0) return i + static_cast<std::size_t>(std::countr_zero(m));
  }
#endif
  while (i < n && !is_end(text[i])) ++i;
  return i;
}

// Whether every byte of `text` is below 0x80.
inline bool IsAscii(std::string_view text) {
  const std::size_t n = text.size();
  std::size_t i = 0;
#ifdef MW_SCAN_SSE2
  __m128i any = _mm_setzero_si128();
  for (; i + 16 <= n; i += 16) any = _mm_or_si128(any, Load16(text.data() + i));
  if (_mm_movemask_epi8(any) != 0) return false;
#endif
  for (; i < n; ++i) {
    if (static_cast<unsigned char>(text[i]) >= 0x80) return false;
  }
  return true;
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
    const std::uint32_t space = ByteMask16(v, ' ');
    const std::uint32_t other = ControlSpaceMask16(v);
    bad |= other | (space & ((space << 1) | prev_space));
    prev_space = space >> 15;
    alnum |= AlnumMask16(v);
    high |= static_cast<std::uint32_t>(_mm_movemask_epi8(v));
  }
  if (i < n) {
    // The last 1-15 bytes in one more vector (a byte loop here cost as much
    // as the rest, blocks being short): the 16 bytes that end the block when
    // it has as many, where the bytes already read tell the first new one
    // whether a space comes before it; else a copy padded with zeros, which
    // count as nothing. `fresh` marks the bytes not read yet.
    const std::size_t left = n - i;
    __m128i v;
    std::uint32_t fresh;
    if (n >= 16) {
      v = Load16(block.data() + n - 16);
      fresh = 0xffffu & ~((1u << (16 - left)) - 1);
    } else {
      alignas(16) char tail[16] = {};
      std::memcpy(tail, block.data(), n);
      v = _mm_load_si128(reinterpret_cast<const __m128i*>(tail));
      fresh = (1u << n) - 1;
    }
    const std::uint32_t space = ByteMask16(v, ' ');
    bad |= (ControlSpaceMask16(v) | (space & (space << 1))) & fresh;
    alnum |= AlnumMask16(v) & fresh;
    high |= static_cast<std::uint32_t>(_mm_movemask_epi8(v)) & fresh;
    i = n;
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

// What ScanLine found in the line it read.
struct LineScan {
  std::size_t end = 0;       // index of the '\n' that ends the line, or size()
  bool other_space = false;  // it holds '\t', '\v', '\f' or '\r'
  bool non_space = false;    // it holds a byte other than those and ' '
  bool dot = false;          // it holds a '.'
};

// Reads the line that starts at text[i] (REQUIRES: i <= text.size()).
inline LineScan ScanLine(std::string_view text, std::size_t i) {
  LineScan r;
  const std::size_t n = text.size();
#ifdef MW_SCAN_SSE2
  std::uint32_t other = 0;
  std::uint32_t solid = 0;
  std::uint32_t dot = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i v = Load16(text.data() + i);
    const std::uint32_t nl = ByteMask16(v, '\n');
    const std::uint32_t controls = ControlSpaceMask16(v);  // '\n' among them
    const std::uint32_t space = ByteMask16(v, ' ');
    const std::uint32_t dots = ByteMask16(v, '.');
    const std::uint32_t in_line = nl == 0 ? 0xffff : (nl & (0 - nl)) - 1;
    other |= controls & ~nl & in_line;
    solid |= ~(controls | space) & in_line;
    dot |= dots & in_line;
    if (nl != 0) {
      r.end = i + static_cast<std::size_t>(std::countr_zero(nl));
      r.other_space = other != 0;
      r.non_space = solid != 0;
      r.dot = dot != 0;
      return r;
    }
  }
  r.other_space = other != 0;
  r.non_space = solid != 0;
  r.dot = dot != 0;
#endif
  for (; i < n && text[i] != '\n'; ++i) {
    const char c = text[i];
    if (c == '.') r.dot = true;
    if (c >= '\t' && c <= '\r') {
      r.other_space = true;
    } else if (c != ' ') {
      r.non_space = true;
    }
  }
  r.end = i;
  return r;
}

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_SRC_SCAN_H_
