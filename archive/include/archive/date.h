// The Date header of a message, for ordering an archive by time.
//
// Thread-safety: pure functions.
#ifndef MW_ARCHIVE_DATE_H_
#define MW_ARCHIVE_DATE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mw::archive {

// The unfolded value of the first header field `name` (case-insensitive) in
// the header block of `message` (up to the first empty line); nullopt when
// absent.
std::optional<std::string> HeaderValue(std::string_view message,
                                       std::string_view name);

// Seconds since 1970-01-01 UTC of an RFC 5322 date-time ("Thu, 22 Aug 2002
// 14:44:07 +0100"), lenient as mail needs: the day name and the seconds are
// optional, two-digit years are 19xx from 50 and 20xx below, the obsolete
// zones (UT, GMT, EST, EDT, CST, CDT, MST, MDT, PST, PDT) are read and an
// unknown zone counts as +0000; a trailing comment is ignored. nullopt when
// the day, month, year or time is missing or out of range.
std::optional<std::int64_t> ParseDate(std::string_view value);

// ParseDate(HeaderValue(message, "Date")).
std::optional<std::int64_t> MessageDate(std::string_view message);

}  // namespace mw::archive

#endif  // MW_ARCHIVE_DATE_H_
