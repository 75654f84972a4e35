// ASCII helpers shared by the units of mw::sender. Header fields, addresses
// and domains are compared without case in ASCII only: an internationalised
// domain reaches us as A-labels in Authentication-Results and DKIM, and a
// UTF-8 local part is compared byte for byte.
#ifndef MW_SENDER_SRC_TEXT_H_
#define MW_SENDER_SRC_TEXT_H_

#include <string>
#include <string_view>

#include "mw/ascii.h"

namespace mw::sender::internal {

inline char Lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string Lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

inline bool EqualNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

inline bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         EqualNoCase(s.substr(0, prefix.size()), prefix);
}

inline bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

inline bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// `name` is `domain` or a subdomain of it (both lower case).
inline bool IsSameOrSubdomain(std::string_view name, std::string_view domain) {
  if (domain.empty() || name.size() < domain.size()) return false;
  if (name.size() == domain.size()) return name == domain;
  return name.substr(name.size() - domain.size()) == domain &&
         name[name.size() - domain.size() - 1] == '.';
}

}  // namespace mw::sender::internal

#endif  // MW_SENDER_SRC_TEXT_H_
