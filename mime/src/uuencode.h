// Inline uuencoded files inside plain text, private to mw::mime.
//
// Before MIME, and still from some mailers and scripts, files were sent as
// "begin 644 name" ... "end" blocks inside an ordinary text body. Their lines
// are not text a reader reads, and they would dominate a fingerprint, so the
// parser cuts them out and lists them as attachments.
#ifndef MW_MIME_UUENCODE_H_
#define MW_MIME_UUENCODE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mw::mime {

struct UuBlock {
  std::size_t begin = 0;  // offset of the "begin" line in the text
  std::size_t end = 0;    // offset just past the "end" line (or the data)
  std::string filename;   // as written after the mode; may be empty
  std::string data;       // the decoded bytes
  bool complete = false;  // closed by an "end" line
};

// The uuencoded blocks of `text`, in order, not overlapping. A block starts at
// a line "begin MODE NAME" (MODE three or four octal digits) followed directly
// by a data line, and runs over the data lines (each line's length character
// agreeing with its length) to an "end" line; a block cut off by the end of
// the text or by a line that is not uuencoded counts from two data lines.
// Anything else, such as prose that happens to start with "begin 644", is left
// alone.
std::vector<UuBlock> FindUuBlocks(std::string_view text);

}  // namespace mw::mime

#endif  // MW_MIME_UUENCODE_H_
