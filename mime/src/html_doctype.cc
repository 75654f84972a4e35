// The quirks mode of a doctype (see html_doctype.h).
#include "html_doctype.h"

#include <cstddef>
#include <string>
#include <string_view>

#include "html_chars.h"

namespace mw::mime::internal {

QuirksMode QuirksModeOf(std::string_view doctype) {
  if (doctype.size() < 10 || doctype.back() != '>') return QuirksMode::kUnknown;
  const std::string_view in = doctype.substr(9, doctype.size() - 10);
  std::size_t i = 0;
  auto skip = [&] {
    while (i < in.size() && IsHtmlSpace(in[i])) ++i;
  };
  auto quoted = [&](std::string* out) {
    if (i >= in.size() || (in[i] != '"' && in[i] != '\'')) return false;
    const char quote = in[i++];
    const std::size_t close = in.find(quote, i);
    if (close == std::string_view::npos) return false;
    *out = std::string(in.substr(i, close - i));
    i = close + 1;
    return true;
  };
  skip();
  const std::size_t name_begin = i;
  while (i < in.size() && !IsHtmlSpace(in[i])) ++i;
  const std::string name = AsciiLower(in.substr(name_begin, i - name_begin));
  if (name.empty()) return QuirksMode::kQuirks;  // gumbo's force-quirks
  skip();
  std::string public_id, system_id;
  if (StartsWithNoCase(in, i, "public")) {
    i += 6;
    skip();
    if (!quoted(&public_id)) return QuirksMode::kUnknown;
    skip();
    if (i < in.size() && !quoted(&system_id)) return QuirksMode::kUnknown;
  } else if (StartsWithNoCase(in, i, "system")) {
    i += 6;
    skip();
    if (!quoted(&system_id)) return QuirksMode::kUnknown;
  }
  skip();
  if (i != in.size()) return QuirksMode::kUnknown;
  if (name != "html" || public_id == "HTML" ||
      public_id == "-/W3C/DTD HTML 4.0 Transitional/EN" ||
      system_id ==
          "http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd") {
    return QuirksMode::kQuirks;
  }
  if (public_id.size() >= 2 &&
      public_id.compare(public_id.size() - 2, 2, "//") == 0) {
    return QuirksMode::kUnknown;
  }
  return QuirksMode::kNoQuirks;
}

}  // namespace mw::mime::internal
