// Plain-text output with a browser's whitespace, line and paragraph rules,
// private to mw::mime. html_walker.cc feeds it the visible text of a tree.
#ifndef MW_MIME_TEXT_BUILDER_H_
#define MW_MIME_TEXT_BUILDER_H_

#include <algorithm>
#include <string>
#include <string_view>

namespace mw::mime::internal {

// Breaks and spaces are pending until the next text: a break wins over a
// space, the stronger of two breaks wins (Line then Paragraph is one blank
// line), and breaks or spaces before the first text or after the last are
// dropped. The result has no leading whitespace, no trailing spaces or line
// breaks, no space before a line break, no space at the start of a line
// outside preformatted text, and never two blank lines in a row.
// Not thread-safe; one per document.
class TextBuilder {
 public:
  // Inline text: each run of HTML whitespace and U+00A0 (&nbsp;) becomes a
  // pending space; other bytes are copied (UTF-8 is not checked).
  void Inline(std::string_view s);

  // Preformatted text: spaces (U+00A0 too, as a plain space) and tabs are
  // kept; each '\n' is a LineBreak. Trailing spaces of a line are trimmed
  // when a break follows; a '\n' before any text is dropped.
  void Preformatted(std::string_view s);

  // A space before the next text, unless a break or a space is there already.
  void Space() { pending_space_ = true; }
  // A blank line before the next text.
  void Paragraph() { pending_break_ = 2; }
  // A line break before the next text (a pending blank line stays).
  void Line() { pending_break_ = std::max(pending_break_, 1); }
  // One more line break (<br>): two in a row make a blank line, never more.
  void LineBreak() { pending_break_ = std::min(2, pending_break_ + 1); }

  // The text, trailing spaces and line breaks removed. Call once, last.
  std::string Finish();

 private:
  void Flush();

  std::string out_;
  int pending_break_ = 0;  // 1: line break, 2: paragraph break, before the
                           // next text
  bool pending_space_ = false;
};

}  // namespace mw::mime::internal

#endif  // MW_MIME_TEXT_BUILDER_H_
