#include "sender/header_fields.h"

#include "text.h"

namespace mw::sender {

namespace {

using internal::EqualNoCase;
using internal::Trim;

// RFC 5322 field names are printable ASCII other than the colon. A name with
// white space inside it is not a field ("From sender@x Mon Nov 25 20:49:29",
// the mbox separator, has a colon in its time), so such a line ends the
// header like any other non-field line. White space between the name and the
// colon ("Subject :", obsolete syntax) is allowed and dropped.
bool IsFieldName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 32 || u >= 127) return false;
  }
  return true;
}

}  // namespace

std::vector<Field> ReadHeader(std::string_view raw, std::size_t max_fields) {
  std::vector<Field> fields;
  std::size_t pos = 0;
  // A file an admin hands the CLI may start with the mbox "From " line; the
  // milter never sees one. Skip it so such a file still has a header.
  if (raw.starts_with("From ")) {
    const std::size_t end = raw.find('\n');
    pos = end == std::string_view::npos ? raw.size() : end + 1;
  }
  while (pos < raw.size()) {
    std::size_t end = raw.find('\n', pos);
    const std::size_t next =
        end == std::string_view::npos ? raw.size() : end + 1;
    if (end == std::string_view::npos) end = raw.size();
    std::string_view line = raw.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = next;
    if (line.empty()) break;  // the empty line before the body
    if (line.front() == ' ' || line.front() == '\t') {
      // A continuation: the line break goes, the white space stays.
      if (!fields.empty()) fields.back().value.append(line);
      continue;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) break;
    std::string_view name = line.substr(0, colon);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) {
      name.remove_suffix(1);
    }
    if (!IsFieldName(name)) break;
    if (fields.size() >= max_fields) break;  // the rest are ignored
    fields.push_back(
        Field{std::string(name), std::string(line.substr(colon + 1))});
  }
  for (Field& f : fields) {
    const std::string_view trimmed = Trim(f.value);
    if (trimmed.size() != f.value.size()) f.value = std::string(trimmed);
  }
  return fields;
}

bool NameIs(const Field& field, std::string_view name) {
  return EqualNoCase(field.name, name);
}

}  // namespace mw::sender
