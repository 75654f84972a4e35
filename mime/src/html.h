// HTML to plain text, private to mw::mime.
#ifndef MW_MIME_HTML_H_
#define MW_MIME_HTML_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace mw::mime {

struct HtmlText {
  std::string text;               // UTF-8; '\n' between lines, "\n\n" between paragraphs
  bool nesting_limit_hit = false; // elements deeper than the limit were skipped
};

// Converts an HTML document or fragment (UTF-8) to the text a reader sees: drops script, style,
// head, template, comments and elements hidden by display:none, visibility:hidden, a zero font
// size or the `hidden` attribute; decodes entities; turns block elements into paragraph breaks
// and <br> into line breaks; collapses whitespace as a browser would (except inside <pre>).
HtmlText HtmlToText(std::string_view html, std::uint32_t nesting_limit);

}  // namespace mw::mime

#endif  // MW_MIME_HTML_H_
