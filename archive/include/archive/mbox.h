// mbox files: where each message starts and ends, and how its quoted
// ">From " lines read back.
//
// A message begins after a From_ line: a line that starts with "From ", comes
// first in the file or after an empty line, and holds a time of day (H:MM or
// HH:MM) after the sender, as every mbox writer puts an asctime date there
// ("From MAILER-DAEMON Thu Aug 22 14:44:07 2002"). The time is required so
// that an unquoted "From here on..." after a blank line (mboxo writers leave
// some) does not split a message. A message ends where the empty line before
// the next From_ line begins, or at the end of the file. Content-Length
// headers are not trusted: they are wrong in mboxes that were edited.
//
// Thread-safety: pure functions.
#ifndef MW_ARCHIVE_MBOX_H_
#define MW_ARCHIVE_MBOX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mw::archive {

// One message of an mbox: bytes [offset, offset + length) of the file, the
// From_ line excluded, still quoted.
struct MboxMessage {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool has_nul = false;  // NUL bytes inside: binary junk overwrote part of it
  friend bool operator==(const MboxMessage&, const MboxMessage&) = default;
};

struct MboxIndex {
  std::vector<MboxMessage> messages;
  // Bytes before the first From_ line (junk, or a damaged first message);
  // they are not read as a message.
  std::uint64_t leading_bytes = 0;
  // The file does not end with a line end: the last message was cut off. It
  // is still listed.
  bool truncated = false;
};

// True when `line` (without its line end) is a From_ line as defined above.
bool IsFromLine(std::string_view line);

// The messages of the mbox `data`. An input without a From_ line gives no
// messages and leading_bytes = data.size().
MboxIndex IndexMbox(std::string_view data);

// The message as it was before the mbox writer quoted it: one '>' is removed
// from every line that matches ^>+From  (mboxrd; on mboxo files this also
// unquotes lines the writer quoted, and turns ">>From " written by the sender
// into ">From ", which mboxo cannot tell apart).
std::string UnquoteFrom(std::string_view message);

}  // namespace mw::archive

#endif  // MW_ARCHIVE_MBOX_H_
