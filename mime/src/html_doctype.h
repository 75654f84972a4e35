// A doctype's quirks mode as gumbo computes it, private to mw::mime
// (html_stream.cc: whether <table> closes an open <p>).
#ifndef MW_MIME_HTML_DOCTYPE_H_
#define MW_MIME_HTML_DOCTYPE_H_

#include <string_view>

namespace mw::mime::internal {

// kNoQuirks stands for gumbo's no-quirks and limited-quirks modes alike (both
// close an open <p> at <table>); kUnknown for a doctype this file does not
// read as gumbo does.
enum class QuirksMode { kQuirks, kNoQuirks, kUnknown };

// The mode of a document whose first token is `doctype` (a whole doctype
// token, "<!doctype" to '>', any case), as gumbo's compute_quirks_mode sets
// it, for a well-formed doctype: a name, then PUBLIC "id" ["id"] or SYSTEM
// "id". gumbo 0.10 compares the ids with its lists whole (is_in_static_list
// uses strcasecmp, not a prefix): every public id in them but two ends in
// "//", which the ids of real doctypes ("...//EN") do not; an id that does
// is kUnknown rather than the lists copied here.
QuirksMode QuirksModeOf(std::string_view doctype);

}  // namespace mw::mime::internal

#endif  // MW_MIME_HTML_DOCTYPE_H_
