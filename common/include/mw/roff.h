// Man-page (roff, man macros) output for text the programs already print:
// the man pages are generated from the same declarations as --help and
// `mailwave config --defaults`, so they cannot drift from them.
#ifndef MW_ROFF_H_
#define MW_ROFF_H_

#include <string>
#include <string_view>

namespace mw::roff {

// One line of running text made safe for roff: backslashes printed as such,
// '-' as a real minus (so options copy and paste), and a line that starts
// with '.' or '\'' kept from being read as a request. REQUIRES: no newline.
std::string Escape(std::string_view line);

// The .TH line. `date` may be empty (reproducible builds).
std::string Title(std::string_view name, std::string_view section,
                  std::string_view date, std::string_view source,
                  std::string_view manual);

// A section heading (.SH) or subsection heading (.SS), escaped.
std::string Section(std::string_view title);
std::string Subsection(std::string_view title);

// A text block printed as laid out (the help texts are formatted for an 80
// column terminal): no filling, no hyphenation; blank lines become .sp.
std::string Preformatted(std::string_view text);

// A tagged paragraph (.TP): `tag` in bold on its own line (quotes kept), `text`
// filled below it. Both escaped; `text` may hold several lines (joined).
std::string Tagged(std::string_view tag, std::string_view text);

// A filled paragraph (.PP), escaped; newlines in `text` are spaces.
std::string Paragraph(std::string_view text);

}  // namespace mw::roff

#endif  // MW_ROFF_H_
