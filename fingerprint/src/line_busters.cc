#include "line_busters.h"

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mw::fingerprint::internal {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// 4 to 19 letters: any length a buster takes below the 20 where the token
// fold (IsHashBuster) removes it anyway. Three letters and fewer end prose
// lines too often ("out", "inc", "now") for the pattern to mean anything.
bool IsLettersToken(std::string_view t) {
  if (t.size() < 4 || t.size() > 19) return false;
  for (const char c : t) {
    if (c < 'a' || c > 'z') return false;
  }
  return true;
}

struct Line {
  std::string_view text;
  std::string_view last;  // the last token; empty when the line has < 2
};

}  // namespace

std::optional<std::string> FoldLineBusters(std::string_view text) {
  // First a pass that allocates nothing: most mail does not show the pattern
  // and leaves here.
  {
    std::size_t counted = 0;
    std::size_t candidates = 0;
    for (std::size_t i = 0; i <= text.size();) {
      const void* nl = std::memchr(text.data() + i, '\n', text.size() - i);
      const std::size_t e = nl ? static_cast<std::size_t>(
                                     static_cast<const char*>(nl) - text.data())
                               : text.size();
      std::size_t end = e;
      while (end > i && IsSpace(text[end - 1])) --end;
      std::size_t begin = end;
      while (begin > i && !IsSpace(text[begin - 1])) --begin;
      std::size_t before = begin;
      while (before > i && IsSpace(text[before - 1])) --before;
      if (before > i) {
        ++counted;
        candidates += IsLettersToken(text.substr(begin, end - begin));
      }
      i = e + 1;
    }
    if (counted < kLineBusterMinLines || candidates * 10 < counted * 8) {
      return std::nullopt;
    }
  }
  std::vector<Line> lines;
  for (std::size_t i = 0; i <= text.size();) {
    std::size_t e = text.find('\n', i);
    if (e == std::string_view::npos) e = text.size();
    Line line{text.substr(i, e - i), {}};
    std::size_t end = line.text.size();
    while (end > 0 && IsSpace(line.text[end - 1])) --end;
    std::size_t begin = end;
    while (begin > 0 && !IsSpace(line.text[begin - 1])) --begin;
    std::size_t before = begin;
    while (before > 0 && IsSpace(line.text[before - 1])) --before;
    if (before > 0) line.last = line.text.substr(begin, end - begin);
    lines.push_back(line);
    i = e + 1;
  }
  std::size_t counted = 0;
  std::size_t candidates = 0;
  std::unordered_map<std::string_view, std::size_t> uses;
  for (const Line& l : lines) {
    if (l.last.empty()) continue;
    ++counted;
    if (IsLettersToken(l.last)) {
      ++candidates;
      uses.emplace(l.last, 0);
    }
  }
  if (counted < kLineBusterMinLines || candidates * 10 < counted * 8) {
    return std::nullopt;
  }
  // Each candidate must occur once in the whole text, as a token.
  for (std::size_t i = 0; i < text.size();) {
    while (i < text.size() && (IsSpace(text[i]) || text[i] == '\n')) ++i;
    std::size_t e = i;
    while (e < text.size() && !IsSpace(text[e]) && text[e] != '\n') ++e;
    auto it = uses.find(text.substr(i, e - i));
    if (it != uses.end()) ++it->second;
    i = e;
  }
  std::size_t unique = 0;
  for (const Line& l : lines) {
    if (!l.last.empty() && IsLettersToken(l.last) && uses[l.last] == 1) {
      ++unique;
    }
  }
  if (unique * 10 < counted * 8) return std::nullopt;
  std::string out;
  out.reserve(text.size());
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const Line& l = lines[k];
    if (!l.last.empty() && IsLettersToken(l.last) && uses[l.last] == 1) {
      std::size_t cut = static_cast<std::size_t>(l.last.data() - l.text.data());
      while (cut > 0 && IsSpace(l.text[cut - 1])) --cut;
      out.append(l.text.substr(0, cut));
    } else {
      out.append(l.text);
    }
    if (k + 1 < lines.size()) out += '\n';
  }
  return out;
}

}  // namespace mw::fingerprint::internal
