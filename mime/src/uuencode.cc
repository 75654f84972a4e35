#include "uuencode.h"

namespace mw::mime {
namespace {

// One line of `text` from `pos`, without its '\n' and a trailing '\r'.
struct Line {
  std::string_view text;
  std::size_t next = 0;  // offset of the next line
};

Line LineAt(std::string_view text, std::size_t pos) {
  std::size_t nl = text.find('\n', pos);
  std::size_t stop = nl == std::string_view::npos ? text.size() : nl;
  Line line{text.substr(pos, stop - pos),
            nl == std::string_view::npos ? text.size() : nl + 1};
  if (!line.text.empty() && line.text.back() == '\r')
    line.text.remove_suffix(1);
  return line;
}

int UuValue(char c) { return (static_cast<unsigned char>(c) - 0x20) & 0x3F; }

bool IsUuChar(char c) { return c >= 0x20 && c <= 0x60; }

// "begin 644 name": the name, or false when `line` is no begin line.
bool ParseBegin(std::string_view line, std::string* name) {
  constexpr std::string_view kBegin = "begin ";
  if (!line.starts_with(kBegin)) return false;
  line.remove_prefix(kBegin.size());
  std::size_t digits = 0;
  while (digits < line.size() && line[digits] >= '0' && line[digits] <= '7')
    ++digits;
  if (digits < 3 || digits > 4) return false;
  if (digits < line.size() && line[digits] != ' ') return false;
  line.remove_prefix(digits);
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t'))
    line.remove_suffix(1);
  name->assign(line);
  return true;
}

// Decodes one data line into `out`; false when it is not one. The length
// character says how many bytes follow; encoders pad the last group and some
// add a checksum character, so up to two characters more are accepted.
bool DecodeLine(std::string_view line, std::string* out) {
  // Some encoders strip trailing spaces, which stand for zero bits.
  if (line.empty() || !IsUuChar(line[0])) return false;
  const std::size_t n = static_cast<std::size_t>(UuValue(line[0]));
  const std::size_t want = (n + 2) / 3 * 4;
  const std::size_t have = line.size() - 1;
  if (n == 0 || have > want + 2 || have + 3 < want) return false;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (!IsUuChar(line[i])) return false;
  }
  auto at = [&](std::size_t i) { return i < have ? UuValue(line[1 + i]) : 0; };
  for (std::size_t i = 0, got = 0; got < n; i += 4) {
    const int a = at(i), b = at(i + 1), c = at(i + 2), d = at(i + 3);
    const char bytes[3] = {static_cast<char>((a << 2) | (b >> 4)),
                           static_cast<char>(((b & 0xF) << 4) | (c >> 2)),
                           static_cast<char>(((c & 0x3) << 6) | d)};
    for (int k = 0; k < 3 && got < n; ++k, ++got) out->push_back(bytes[k]);
  }
  return true;
}

}  // namespace

std::vector<UuBlock> FindUuBlocks(std::string_view text) {
  std::vector<UuBlock> blocks;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const Line first = LineAt(text, pos);
    UuBlock block;
    if (!ParseBegin(first.text, &block.filename)) {
      pos = first.next;
      continue;
    }
    block.begin = pos;
    std::size_t at = first.next;
    int data_lines = 0;
    while (at < text.size()) {
      const Line line = LineAt(text, at);
      if (line.text == "end") {
        block.complete = data_lines > 0;
        at = line.next;
        break;
      }
      // The zero-length line ("`" or a space) before "end".
      if (line.text == "`" || line.text == " ") {
        at = line.next;
        continue;
      }
      if (!DecodeLine(line.text, &block.data)) break;
      ++data_lines;
      at = line.next;
    }
    if (block.complete || data_lines >= 2) {
      block.end = at;
      pos = at;
      blocks.push_back(std::move(block));
    } else {
      pos = first.next;
    }
  }
  return blocks;
}

}  // namespace mw::mime
