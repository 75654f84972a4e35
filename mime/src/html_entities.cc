// Character references (see html_entities.h). The rules are gumbo 0.10's
// (src/char_ref.rl there): the HTML5 tokenizer's of its time.
#include "html_entities.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mw::mime::internal {
namespace {

struct NamedReference {
  std::string_view name;
  std::uint32_t code_point;
};

#include "html_entities.inc"

// gumbo's kCharReplacements for numeric references to 0x80-0x9F: the
// windows-1252 characters (five stay C1 controls, as there).
constexpr std::uint16_t kWindows1252[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
    0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

int DigitValue(char c, bool hex) {
  if (c >= '0' && c <= '9') return c - '0';
  if (!hex) return -1;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

const NamedReference* FindNamed(std::string_view name) {
  const auto* end = std::end(kNamedReferences);
  const auto* it = std::lower_bound(
      std::begin(kNamedReferences), end, name,
      [](const NamedReference& r, std::string_view n) { return r.name < n; });
  return it != end && it->name == name ? it : nullptr;
}

bool IsLegacy(std::string_view name) {
  return std::binary_search(std::begin(kLegacyNames), std::end(kLegacyNames),
                            name);
}

// What a reference came to: appended with `*next` past it, an '&' that starts
// none, or one left to gumbo.
enum class Outcome { kDecoded, kLiteral, kUnsure };

// A numeric reference at in[i] == '#' (the '&' before it).
Outcome Numeric(std::string_view in, std::size_t i, std::size_t* next,
                std::string* out) {
  std::size_t j = i + 1;
  bool hex = false;
  if (j < in.size() && (in[j] == 'x' || in[j] == 'X')) {
    hex = true;
    ++j;
  }
  const std::size_t first = j;
  std::uint32_t cp = 0;
  while (j < in.size() && DigitValue(in[j], hex) >= 0) {
    if (j - first >= 7) return Outcome::kUnsure;  // gumbo's int overflows
    cp = cp * (hex ? 16 : 10) +
         static_cast<std::uint32_t>(DigitValue(in[j], hex));
    ++j;
  }
  if (j == first) return Outcome::kLiteral;  // "&#" or "&#x" and no digit
  if (j < in.size() && in[j] == ';') ++j;
  if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    cp = 0xFFFD;
  } else if (cp >= 0x80 && cp <= 0x9F) {
    cp = kWindows1252[cp - 0x80];
  }
  AppendUtf8(cp, out);
  *next = j;
  return Outcome::kDecoded;
}

// A named reference starting at in[i] (just past the '&').
Outcome Named(std::string_view in, std::size_t i, bool attribute,
              std::size_t* next, std::string* out) {
  std::size_t run = i;
  while (run < in.size() && IsAsciiAlnum(in[run])) ++run;
  const std::string_view name = in.substr(i, run - i);
  if (run < in.size() && in[run] == ';') {
    if (const NamedReference* r = FindNamed(name)) {
      AppendUtf8(r->code_point, out);
      *next = run + 1;
      return Outcome::kDecoded;
    }
    if (std::binary_search(std::begin(kTwoCodePointNames),
                           std::end(kTwoCodePointNames), name)) {
      return Outcome::kUnsure;
    }
    // Not a name with ';' ("&notit;"): a legacy prefix, as below.
  }
  // The longest legacy name the run starts with (every legacy name is
  // letters and digits, and a name with ';' matches only the whole run).
  for (std::size_t len = std::min<std::size_t>(name.size(), 6); len > 0;
       --len) {
    const std::string_view prefix = name.substr(0, len);
    if (!IsLegacy(prefix)) continue;
    const std::size_t after = i + len;
    if (attribute && after < in.size() &&
        (in[after] == '=' || IsAsciiAlnum(in[after]))) {
      return Outcome::kLiteral;
    }
    const NamedReference* r = FindNamed(prefix);
    if (r == nullptr) return Outcome::kUnsure;
    AppendUtf8(r->code_point, out);
    *next = after;
    return Outcome::kDecoded;
  }
  return Outcome::kLiteral;
}

}  // namespace

void AppendUtf8(std::uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool DecodeReferences(std::string_view in, bool attribute, std::string* out) {
  std::size_t i = 0;
  while (i < in.size()) {
    const std::size_t stop = in.find_first_of(std::string_view("&\r\0", 3), i);
    if (stop == std::string_view::npos) {
      out->append(in.substr(i));
      return true;
    }
    out->append(in.substr(i, stop - i));
    i = stop;
    if (in[i] == '\0') return false;
    if (in[i] == '\r') {
      out->push_back('\n');
      i += (i + 1 < in.size() && in[i + 1] == '\n') ? 2 : 1;
      continue;
    }
    // '&': a reference, or the character itself.
    const std::size_t after = i + 1;
    Outcome outcome = Outcome::kLiteral;
    std::size_t next = after;
    if (after < in.size()) {
      const char c = in[after];
      if (c == '#') {
        outcome = Numeric(in, after, &next, out);
      } else if (IsAsciiAlnum(c)) {
        outcome = Named(in, after, attribute, &next, out);
      }
    }
    if (outcome == Outcome::kUnsure) return false;
    if (outcome == Outcome::kLiteral) {
      out->push_back('&');
      i = after;
    } else {
      i = next;
    }
  }
  return true;
}

}  // namespace mw::mime::internal
