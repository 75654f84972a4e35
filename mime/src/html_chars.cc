// UTF-8 helpers of the HTML-to-text units (see html_chars.h).
#include "html_chars.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace mw::mime::internal {

std::size_t Utf8Boundary(std::string_view s, std::size_t max) {
  if (s.size() <= max) return s.size();
  std::size_t end = max;
  // Step back over at most three continuation bytes to the start of the cut
  // character.
  for (int i = 0;
       i < 3 && end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80;
       ++i) {
    --end;
  }
  return end;
}

// Replaces every invalid UTF-8 sequence with U+FFFD (gumbo already does; this
// is the contract).
std::string ValidUtf8(std::string s) {
  auto valid_at = [&s](std::size_t i) -> std::size_t {
    auto b = [&s](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    if (c < 0x80) return 1;
    std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
      if ((b(i + k) & 0xC0) != 0x80) return 0;
    }
    if (c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(i + 1) >= 0xA0) return 0;  // surrogate
    if (c == 0xF0 && b(i + 1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(i + 1) >= 0x90) return 0;  // above U+10FFFF
    return n;
  };
  std::size_t i = 0;
  while (i < s.size() && valid_at(i) != 0) i += valid_at(i);
  if (i == s.size()) return s;
  std::string out = s.substr(0, i);
  while (i < s.size()) {
    std::size_t n = valid_at(i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

bool EqualNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

bool HasTagNoCase(std::string_view s, std::string_view lower) {
  for (std::size_t i = s.find('<'); i != std::string_view::npos;
       i = s.find('<', i + 1)) {
    if (StartsWithNoCase(s, i, lower)) return true;
  }
  return false;
}

GumboInput ReadAsGumbo(std::string_view s, std::string* out) {
  const auto* begin = reinterpret_cast<const unsigned char*>(s.data());
  const auto* p = begin;
  const auto* end = p + s.size();
  const unsigned char* copied = begin;  // s[copied - begin, p) not yet in out
  bool changed = false;
  auto replace = [&](const unsigned char* from, const unsigned char* to) {
    if (!changed) {
      out->clear();
      out->reserve(s.size() + 16);
      changed = true;
    }
    out->append(reinterpret_cast<const char*>(copied),
                static_cast<std::size_t>(from - copied));
    out->append("\xEF\xBF\xBD");
    copied = to;
  };
  while (p < end) {
    const unsigned char c = *p;
    if (c < 0x80) {
      if (c == 0) return GumboInput::kNul;
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r') ||
          c == 0x7F) {
        replace(p, p + 1);
      }
      ++p;
      continue;
    }
    // The second byte's range for each lead byte (Unicode table 3-7); a lead
    // byte outside C2-F4 is rejected alone.
    int len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    if (len == 0) {
      replace(p, p + 1);
      ++p;
      continue;
    }
    std::uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
    int k = 1;
    for (; k < len && p + k < end; ++k) {
      const unsigned char b = p[k];
      if (k == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80) break;
      cp = (cp << 6) | (b & 0x3F);
    }
    if (k < len) {  // rejected at p[k], or cut by the end of the input
      replace(p, p + k);
      p += k;
      continue;
    }
    if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0xFDD0 && cp <= 0xFDEF) ||
        (cp & 0xFFFE) == 0xFFFE) {
      replace(p, p + len);
    }
    p += len;
  }
  if (!changed) return GumboInput::kAsIs;
  out->append(reinterpret_cast<const char*>(copied),
              static_cast<std::size_t>(end - copied));
  return GumboInput::kReplaced;
}

}  // namespace mw::mime::internal
