// Minimal UTF-8 helpers for the fingerprint module (private).
#ifndef MW_FINGERPRINT_SRC_UTF8_H_
#define MW_FINGERPRINT_SRC_UTF8_H_

#include <cstddef>
#include <string_view>

#include "mw/utf8.h"

namespace mw::fingerprint::internal {

using ::mw::DecodeUtf8;

// Letters and digits: ASCII alphanumerics, and any non-ASCII code point outside
// the common punctuation, symbol and space blocks (the text is already NFKC
// case-folded, so this coarse test is enough to tell words from separators).
bool IsWordChar(char32_t c);

// Scripts written without spaces between words, where a character is a word of
// its own.
bool IsUnspacedScript(char32_t c);

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_SRC_UTF8_H_
