#include "sender/address.h"

#include "text.h"

namespace mw::sender {

namespace {

using internal::Lowered;
using internal::Trim;

// Skips a quoted-string or a (nested) comment starting at s[i]; returns the
// index after it, s.size() when it is unterminated.
std::size_t SkipQuoted(std::string_view s, std::size_t i) {
  if (s[i] == '"') {
    for (++i; i < s.size(); ++i) {
      if (s[i] == '\\') {
        ++i;
      } else if (s[i] == '"') {
        return i + 1;
      }
    }
    return s.size();
  }
  int depth = 0;
  for (; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '(') {
      ++depth;
    } else if (s[i] == ')' && --depth == 0) {
      return i + 1;
    }
  }
  return s.size();
}

}  // namespace

std::string AddressOf(std::string_view mailbox) {
  // The first '<' outside quotes and comments opens the address; a display
  // name may hold '<', '@' and ',' inside quotes. Without angle brackets the
  // text is the address, less comments ("user@example.org (Name)", the old
  // form), up to a ',' that would start a second mailbox.
  std::string bare;
  for (std::size_t i = 0; i < mailbox.size();) {
    const char c = mailbox[i];
    if (c == '"' || c == '(') {
      const std::size_t end = SkipQuoted(mailbox, i);
      if (c == '"') bare.append(mailbox.substr(i, end - i));
      i = end;
    } else if (c == '<') {
      const std::size_t close = mailbox.find('>', i + 1);
      std::string_view inside = mailbox.substr(
          i + 1, close == std::string_view::npos ? std::string_view::npos
                                                 : close - i - 1);
      // An obsolete source route ("<@relay.example:user@example.org>").
      if (const std::size_t colon = inside.rfind(':');
          colon != std::string_view::npos && !inside.empty() &&
          Trim(inside).starts_with('@')) {
        inside.remove_prefix(colon + 1);
      }
      return std::string(Trim(inside));
    } else if (c == ',') {
      break;
    } else {
      bare.push_back(c);
      ++i;
    }
  }
  return std::string(Trim(bare));
}

std::string DomainOf(std::string_view address) {
  const std::size_t at = address.rfind('@');
  if (at == std::string_view::npos) return "";
  std::string_view domain = Trim(address.substr(at + 1));
  if (domain.ends_with('.')) domain.remove_suffix(1);
  return Lowered(domain);
}

}  // namespace mw::sender
