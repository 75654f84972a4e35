// The walk over gumbo's tree that writes the text a reader sees, private to
// mw::mime: which elements are dropped or hidden (with css.h), and where
// paragraphs, lines and cell spaces go (with text_builder.h). html.cc lists
// the rules.
#ifndef MW_MIME_HTML_WALKER_H_
#define MW_MIME_HTML_WALKER_H_

#include <gumbo.h>

#include <cstdint>
#include <string>
#include <string_view>

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

// The attributes of one element that decide what it shows, values as the
// tokenizer decoded them (null: the attribute is absent). The first of two
// attributes with one name counts, as in HTML.
struct ElementAttributes {
  bool hidden = false;
  bool background = false;  // `background`: an image under the element
  const char* bgcolor = nullptr;
  const char* colour = nullptr;  // <font color> and <body text>
  const char* cls = nullptr;
  const char* style = nullptr;
  const char* alt = nullptr;

  // Read from a gumbo element.
  static ElementAttributes Of(const GumboElement& element);
};

// The fields of Inherited an element sets (Walker::Enter's `sets`).
constexpr unsigned kSetsInvisible = 1u << 0;
constexpr unsigned kSetsTransparent = 1u << 1;
constexpr unsigned kSetsColour = 1u << 2;
constexpr unsigned kSetsBackdrop = 1u << 3;
constexpr unsigned kSetsZeroFont = 1u << 4;
constexpr unsigned kSetsPre = 1u << 5;

// `state` with the fields in `fields` (kSets*) taken from `from`.
inline Inherited WithFields(Inherited state, const Inherited& from,
                            unsigned fields) {
  if (fields & kSetsInvisible) state.invisible = from.invisible;
  if (fields & kSetsTransparent) state.transparent = from.transparent;
  if (fields & kSetsColour) state.colour = from.colour;
  if (fields & kSetsBackdrop) state.backdrop = from.backdrop;
  if (fields & kSetsZeroFont) state.zero_font = from.zero_font;
  if (fields & kSetsPre) state.pre = from.pre;
  return state;
}

// Walks one tree with an explicit stack (no recursion, whatever its depth),
// or takes the same calls from a builder that reads the document as a stream
// (html_stream.h: Enter, Text and Close in document order, then Finish).
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

  // Computes the state of an element of `tag` under `*state` and opens its
  // layout; false when it and its subtree are not shown (then nothing was
  // written and Close must not be called for it). With `sets`, which fields
  // of the state it set (kSets*: whatever they were, the element's value
  // replaced them).
  bool Enter(GumboTag tag, const ElementAttributes& attributes,
             Inherited* state, Layout* layout, unsigned* sets = nullptr);
  // Ends an element Enter accepted.
  void Close(Layout layout);
  // A text node's text under `state`.
  void Text(const Inherited& state, std::string_view text);
  // The text written so far, as TextBuilder::Finish returns it. Call once.
  std::string Finish() { return text_.Finish(); }

 private:
  // The style sheet's, the presentational attributes' and the style
  // attribute's declarations for an element, later ones winning.
  StyleEffect EffectOf(GumboTag tag, const ElementAttributes& attributes) const;
  // The same break before an element as after it.
  void Open(Layout layout) { Close(layout); }

  const StyleSheet& styles_;
  std::uint32_t limit_;
  TextBuilder text_;
  bool nesting_limit_hit_ = false;
};

}  // namespace mw::mime::internal

#endif  // MW_MIME_HTML_WALKER_H_
