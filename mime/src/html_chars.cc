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

}  // namespace mw::mime::internal
