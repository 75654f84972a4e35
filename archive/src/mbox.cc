#include "archive/mbox.h"

#include <cstring>

#include "mw/ascii.h"

namespace mw::archive {
namespace {

// A line, its end excluded, and where the next one begins.
struct Line {
  std::string_view text;
  std::size_t next = 0;
};

Line LineAt(std::string_view data, std::size_t pos) {
  const void* nl = std::memchr(data.data() + pos, '\n', data.size() - pos);
  const std::size_t end =
      nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - data.data())
         : data.size();
  std::string_view text = data.substr(pos, end - pos);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return {text, nl ? end + 1 : end};
}

}  // namespace

bool IsFromLine(std::string_view line) {
  if (!line.starts_with("From ")) return false;
  std::string_view rest = line.substr(5);
  // The sender: one word (an address, MAILER-DAEMON, "-").
  const std::size_t sender_end = rest.find(' ');
  if (sender_end == 0 || sender_end == std::string_view::npos) return false;
  rest = rest.substr(sender_end);
  // A time of day: D:DD or DD:DD.
  for (std::size_t i = 1; i + 2 < rest.size(); ++i) {
    if (rest[i] == ':' && IsDigit(rest[i - 1]) && IsDigit(rest[i + 1]) &&
        IsDigit(rest[i + 2])) {
      return true;
    }
  }
  return false;
}

MboxIndex IndexMbox(std::string_view data) {
  MboxIndex index;
  // Start offsets of the From_ lines, each with the offset after it.
  std::vector<std::pair<std::size_t, std::size_t>> froms;
  bool after_blank = true;  // the start of the file counts as one
  for (std::size_t pos = 0; pos < data.size();) {
    const Line line = LineAt(data, pos);
    if (after_blank && IsFromLine(line.text)) {
      froms.emplace_back(pos, line.next);
    }
    after_blank = line.text.empty();
    pos = line.next;
  }
  if (froms.empty()) {
    index.leading_bytes = data.size();
    return index;
  }
  index.leading_bytes = froms.front().first;
  for (std::size_t i = 0; i < froms.size(); ++i) {
    const std::size_t begin = froms[i].second;
    std::size_t end = i + 1 < froms.size() ? froms[i + 1].first : data.size();
    // The empty line before the next From_ line (or at the end of the file)
    // separates; it is not part of the message.
    if (end > begin && data[end - 1] == '\n') {
      std::size_t blank = end - 1;
      if (blank > begin && data[blank - 1] == '\r') --blank;
      if (blank > begin && data[blank - 1] == '\n') end = blank;
    }
    MboxMessage m;
    m.offset = begin;
    m.length = end - begin;
    m.has_nul = std::memchr(data.data() + begin, '\0', end - begin) != nullptr;
    index.messages.push_back(m);
  }
  index.truncated = !data.empty() && data.back() != '\n';
  return index;
}

std::string UnquoteFrom(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (std::size_t pos = 0; pos < message.size();) {
    const Line line = LineAt(message, pos);
    std::string_view raw = message.substr(pos, line.next - pos);
    const std::size_t quotes = raw.find_first_not_of('>');
    if (quotes != 0 && quotes != std::string_view::npos &&
        raw.substr(quotes).starts_with("From ")) {
      raw.remove_prefix(1);
    }
    out.append(raw);
    pos = line.next;
  }
  return out;
}

}  // namespace mw::archive
