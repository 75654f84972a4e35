// What Collect does to a text before segmenting it: C1 controls read as
// windows-1252, addresses blanked.
#include "preprocess.h"

#include <algorithm>
#include <cstddef>

#include "langid/langid.h"

namespace mw::langid {
namespace internal {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

}  // namespace

bool HasC1(std::string_view s) {
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    if (static_cast<unsigned char>(s[i]) == 0xC2) {
      const auto c = static_cast<unsigned char>(s[i + 1]);
      if (c >= 0x80 && c <= 0x9F) return true;
    }
  }
  return false;
}

// `text` with every address replaced by as many spaces, so that line and
// paragraph breaks stay where they are: a whitespace-delimited token holding
// "://" (a URL) or "@" (an e-mail address), or beginning with "www.". Empty
// when there is none. Only the tokens around the markers are visited: a text
// without them costs three searches.
std::string BlankAddresses(std::string_view text) {
  std::string out;
  for (const std::string_view marker : {"://", "@", "www."}) {
    const std::string_view in = out.empty() ? text : std::string_view(out);
    std::size_t p = in.find(marker);
    while (p != std::string_view::npos) {
      if (out.empty()) out.assign(text);
      std::size_t begin = p, end = p;
      while (begin > 0 && !IsSpace(out[begin - 1])) --begin;
      while (end < out.size() && !IsSpace(out[end])) ++end;
      if (marker != "www." || begin == p) {
        std::fill(out.begin() + static_cast<std::ptrdiff_t>(begin),
                  out.begin() + static_cast<std::ptrdiff_t>(end), ' ');
      }
      p = std::string_view(out).find(marker, end);
    }
  }
  return out;
}

}  // namespace internal

std::string MapC1Controls(std::string_view utf8) {
  // windows-1252 0x80-0x9F; empty where the code page leaves the byte
  // undefined.
  static const char* const kCp1252[32] = {
      "€", nullptr, "‚",     "ƒ", "„",     "…",     "†", "‡",     "ˆ", "‰", "Š",
      "‹", "Œ",     nullptr, "Ž", nullptr, nullptr, "‘", "’",     "“", "”", "•",
      "–", "—",     "˜",     "™", "š",     "›",     "œ", nullptr, "ž", "Ÿ"};
  std::string out;
  out.reserve(utf8.size());
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const auto b = static_cast<unsigned char>(utf8[i]);
    if (b == 0xC2 && i + 1 < utf8.size()) {
      const auto c = static_cast<unsigned char>(utf8[i + 1]);
      if (c >= 0x80 && c <= 0x9F) {
        const char* r = kCp1252[c - 0x80];
        out += r ? r : " ";
        ++i;
        continue;
      }
    }
    out.push_back(static_cast<char>(b));
  }
  return out;
}

}  // namespace mw::langid
