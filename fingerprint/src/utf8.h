// Minimal UTF-8 helpers for the fingerprint module (private).
#ifndef MW_FINGERPRINT_SRC_UTF8_H_
#define MW_FINGERPRINT_SRC_UTF8_H_

#include <cstddef>
#include <string_view>

namespace mw::fingerprint::internal {

// Decodes the code point at s[i] and stores its length in *len (at least 1).
// Invalid sequences decode as U+FFFD of length 1, so callers always make
// progress.
char32_t DecodeUtf8(std::string_view s, std::size_t i, std::size_t* len);

// Letters and digits: ASCII alphanumerics, and any non-ASCII code point outside
// the common punctuation, symbol and space blocks (the text is already NFKC
// case-folded, so this coarse test is enough to tell words from separators).
bool IsWordChar(char32_t c);

// Scripts written without spaces between words, where a character is a word of
// its own.
bool IsUnspacedScript(char32_t c);

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_SRC_UTF8_H_
