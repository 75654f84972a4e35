// The header block of a raw RFC 5322 message as an ordered list of fields,
// for the sender checks that need order (Authentication-Results above the
// first Received) and raw values (List-Id, From).
//
// Thread-safety: pure functions.
#ifndef MW_SENDER_HEADER_FIELDS_H_
#define MW_SENDER_HEADER_FIELDS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mw::sender {

struct Field {
  std::string name;   // as written ("Authentication-Results")
  std::string value;  // unfolded (line breaks before white space removed),
                      // outer white space trimmed
  friend bool operator==(const Field&, const Field&) = default;
};

// The fields before the first empty line (CRLF or LF line ends), in order, at
// most `max_fields` (the rest are ignored). A line without a colon that is
// not a continuation ends the header, as a MIME parser would read it; a
// message without a body is all header.
std::vector<Field> ReadHeader(std::string_view raw,
                              std::size_t max_fields = 1000);

// Field names compare without case.
bool NameIs(const Field& field, std::string_view name);

}  // namespace mw::sender

#endif  // MW_SENDER_HEADER_FIELDS_H_
