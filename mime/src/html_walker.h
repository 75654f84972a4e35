// The walk over gumbo's tree that writes the text a reader sees, private to
// mw::mime: which elements are dropped or hidden (with css.h), and where
// paragraphs, lines and cell spaces go (with text_builder.h). html.cc lists
// the rules.
#ifndef MW_MIME_HTML_WALKER_H_
#define MW_MIME_HTML_WALKER_H_

#include <gumbo.h>

#include <cstdint>
#include <string>

#include "css.h"
#include "text_builder.h"

namespace mw::mime::internal {

// What an element does to the text around it: nothing (inline), a paragraph
// break before and after (block), a line break (table rows and sections), a
// space (cells), or its whole subtree is never shown (drop).
enum class Layout { kInline, kBlock, kLine, kCell, kDrop };

Layout LayoutOf(GumboTag tag);

// Elements whose whitespace and line breaks are kept.
bool IsPreformatted(GumboTag tag);

// What an element hands its children.
struct Inherited {
  bool pre = false;
  bool invisible = false;    // visibility:hidden
  bool transparent = false;  // color:transparent
  bool zero_font = false;
  // Mail clients show black text on white unless told otherwise. The backdrop
  // is the nearest ancestor's painted background: not inherited in CSS, but
  // what the text is seen against (positioning aside).
  Paint colour{true, {0, 0, 0}};
  Paint backdrop{true, {255, 255, 255}};
  bool Shows() const {
    return !invisible && !transparent && !zero_font &&
           !LooksTheSame(colour, backdrop);
  }
};

// Walks one tree with an explicit stack (no recursion, whatever its depth).
// Not thread-safe; one Walker per tree.
class Walker {
 public:
  // `styles` (the document's <style> rules) must outlive the Walker.
  // Elements deeper than `nesting_limit` (html is depth 1) are skipped with
  // their subtrees; their line or paragraph break is kept.
  Walker(const StyleSheet& styles, std::uint32_t nesting_limit)
      : styles_(styles), limit_(nesting_limit) {}

  // The text of the tree under `document` (a GUMBO_NODE_DOCUMENT or an
  // element), as TextBuilder::Finish returns it. Call once.
  std::string Walk(const GumboNode* document);

  // Walk skipped an element for the nesting limit.
  bool nesting_limit_hit() const { return nesting_limit_hit_; }

 private:
  // Computes the element's state and opens its layout; false when it and its
  // subtree are skipped.
  bool Enter(const GumboElement& element, Inherited* state, Layout* layout);

  // The same break before an element as after it.
  void Open(Layout layout) { Close(layout); }
  void Close(Layout layout);

  const StyleSheet& styles_;
  std::uint32_t limit_;
  TextBuilder text_;
  bool nesting_limit_hit_ = false;
};

}  // namespace mw::mime::internal

#endif  // MW_MIME_HTML_WALKER_H_
