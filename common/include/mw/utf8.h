// UTF-8 decoding shared by the modules that walk text byte by byte.
//
// Thread-safety: pure functions.
#ifndef MW_UTF8_H_
#define MW_UTF8_H_

#include <cstddef>
#include <string_view>

namespace mw {

// Decodes the code point at s[i] and stores its length in *len (at least 1).
// Invalid sequences (bad lead or continuation bytes, overlong forms,
// surrogates, values past U+10FFFF, a sequence cut by the end of `s`) decode as
// U+FFFD of length 1, so callers always make progress. REQUIRES: i < s.size().
char32_t DecodeUtf8(std::string_view s, std::size_t i, std::size_t* len);

}  // namespace mw

#endif  // MW_UTF8_H_
