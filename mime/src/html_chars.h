// Byte-level helpers shared by the HTML-to-text units (html.cc and the files
// it is built from) and the header and charset names parse.cc and charset.cc
// read, private to mw::mime. ASCII only, as the HTML tokenizer, CSS and MIME
// names are: no locale, no Unicode case mapping.
#ifndef MW_MIME_HTML_CHARS_H_
#define MW_MIME_HTML_CHARS_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace mw::mime::internal {

// HTML's ASCII whitespace (space, tab, LF, CR, FF); CSS uses the same set.
inline bool IsHtmlSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}
inline bool IsAsciiAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline char AsciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}
// True when `s` holds `prefix` at `pos`, ignoring ASCII case.
// REQUIRES: `prefix` is lower case.
inline bool StartsWithNoCase(std::string_view s, std::size_t pos,
                             std::string_view prefix) {
  if (pos > s.size() || s.size() - pos < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (AsciiLower(s[pos + i]) != prefix[i]) return false;
  }
  return true;
}
// `s` without leading and trailing HTML whitespace.
inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsHtmlSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsHtmlSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Length of the longest prefix of `s` of at most `max` bytes that does not end
// inside a UTF-8 sequence (at most three bytes shorter than `max`; `s.size()`
// when `s` is no longer than `max`).
std::size_t Utf8Boundary(std::string_view s, std::size_t max);

// `s` with every invalid UTF-8 sequence (overlong forms, surrogates, code
// points above U+10FFFF, stray or missing continuation bytes) replaced by
// U+FFFD, one per offending byte. Valid input is returned unchanged.
std::string ValidUtf8(std::string s);

}  // namespace mw::mime::internal

#endif  // MW_MIME_HTML_CHARS_H_
