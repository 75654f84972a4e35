// HTML to plain text, private to mw::mime.
#ifndef MW_MIME_HTML_H_
#define MW_MIME_HTML_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "mw/budget.h"

namespace mw::mime {

struct HtmlText {
  // UTF-8; '\n' between lines, "\n\n" between paragraphs.
  std::string text;
  // Elements deeper than the nesting limit were skipped.
  bool nesting_limit_hit = false;
  // The input was over 2 MiB, or a memory, time or work guard degraded the
  // parse (see html.cc); what could be read is still in `text`.
  bool input_truncated = false;
};

// Converts an HTML document or fragment (UTF-8; invalid bytes become U+FFFD) to
// the text a reader sees: drops head, title, script, style, template, comments
// (conditional ones included) and elements hidden by the `hidden` attribute,
// display:none, opacity:0 or a zero size with overflow:hidden; drops text under
// visibility:hidden, color:transparent, a font size below 1px, a colour like
// its backdrop's or an off-screen position (inline styles, presentational
// attributes and simple <style> rules); keeps noscript, anchor and img alt
// text; decodes entities; turns block elements into paragraphs separated by
// exactly one blank line, table rows and <br> into line breaks and table cells
// into spaces; collapses whitespace as a browser does (except inside <pre> and
// <textarea>). No leading or trailing blank lines. html.cc lists the exact
// rules and the guards against hostile input.
//
// Elements deeper than `nesting_limit` (html is depth 1; at most 1024 is
// honoured) are skipped with their subtrees. Time and memory are bounded for
// any input: no recursion, input cut at 2 MiB, gumbo's memory capped (32 MiB
// plus 48 bytes per input byte), tag work capped, and each gumbo parse stopped
// after 1 s of CPU time and retried in a cheaper mode (about 3 s of CPU in the
// worst case found). Each cut sets a flag and keeps what was read.
//
// The text comes from a one-pass builder of our own where the document needs
// only the common part of HTML5's tree construction (html_stream.h), and from
// gumbo's tree otherwise; both give the same text (`kGumbo` asks gumbo always:
// the tests' oracle).
// Thread-safe: no shared state.
enum class TreeBuilder { kStreamFirst, kGumbo };
HtmlText HtmlToText(std::string_view html, std::uint32_t nesting_limit,
                    const Budget& budget = Budget(),
                    TreeBuilder builder = TreeBuilder::kStreamFirst);

}  // namespace mw::mime

#endif  // MW_MIME_HTML_H_
