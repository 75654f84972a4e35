// Byte-level helpers shared by the HTML-to-text units (html.cc and the files
// it is built from) and the header and charset names parse.cc and charset.cc
// read, private to mw::mime. ASCII only, as the HTML tokenizer, CSS and MIME
// names are: no locale, no Unicode case mapping.
#ifndef MW_MIME_HTML_CHARS_H_
#define MW_MIME_HTML_CHARS_H_

#include <cstddef>
#include <cstdint>
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

// Whether `a` and `b` are equal, ignoring ASCII case.
bool EqualNoCase(std::string_view a, std::string_view b);

// Whether `s` holds `lower` (lower case, starting with '<') at one of its
// '<', ignoring ASCII case: a cheap look for a tag ("<body") before a
// tokenizer is run for it.
bool HasTagNoCase(std::string_view s, std::string_view lower);

// What gumbo's UTF-8 iterator (its src/utf8.c) makes of `s`: each invalid
// sequence (a maximal subpart, where its DFA rejects it) and each code point
// its utf8_is_invalid_code_point names (controls but tab, LF, FF and CR; C1
// controls; noncharacters) becomes U+FFFD. Every ASCII byte stays, so an
// HTML tokenizer finds the same tokens in both. kAsIs: nothing changes (the
// usual case; `*out` untouched); kReplaced: `*out` holds the result; kNul:
// `s` holds a NUL, which gumbo's tokenizer drops or keeps by state.
enum class GumboInput { kAsIs, kReplaced, kNul };
GumboInput ReadAsGumbo(std::string_view s, std::string* out);

// `s` with every invalid UTF-8 sequence (overlong forms, surrogates, code
// points above U+10FFFF, stray or missing continuation bytes) replaced by
// U+FFFD, one per offending byte. Valid input is returned unchanged.
std::string ValidUtf8(std::string s);

}  // namespace mw::mime::internal

#endif  // MW_MIME_HTML_CHARS_H_
