// The attributes of one start tag, read as gumbo's tokenizer reads them,
// private to mw::mime (html_stream.cc builds elements from them).
#ifndef MW_MIME_HTML_ATTRIBUTES_H_
#define MW_MIME_HTML_ATTRIBUTES_H_

#include <gumbo.h>

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "html_walker.h"

namespace mw::mime::internal {

// The attributes of one start tag that the Walker reads, decoded, and with
// `all` every attribute (a formatting element's: gumbo compares them in the
// Noah's Ark clause). A tag that names an attribute twice is refused: gumbo's
// tokenizer does not clear its buffer after a repeated name without a value
// (html_prepare.cc), so Prepare keeps only the first of each name and no such
// tag should reach this.
class TagAttributes {
 public:
  // Reads a tag's attributes, `in` being what lies between its name and its
  // '>' (gumbo's attribute states; `tag` says whether `color` or `text` is
  // the colour, and keeps `type` for <input>), and with `all` every
  // attribute. False where gumbo would read them otherwise or a value holds
  // a reference DecodeReferences leaves to gumbo.
  [[nodiscard]] bool Read(std::string_view in, GumboTag tag, bool all);

  // As newly made, keeping the strings' storage.
  void Clear();

  // The values the Walker reads; they point into this object.
  ElementAttributes View() const;

  // Which of the attributes the Walker reads are present, one bit each.
  unsigned Present() const;

  // gumbo's merge_attributes: those of `other` this element lacks.
  void MergeMissing(const TagAttributes& other);

  // <input type=hidden>, compared as gumbo's attribute_matches does.
  bool TypeIsHidden() const;

  // gumbo's all_attributes_match, on attributes read with `all`.
  bool SameAs(const TagAttributes& other) const;

 private:
  // The attributes kept, in Present()'s bit order (type last: not the
  // Walker's).
  enum Which {
    kHidden,
    kBackground,
    kBgcolor,
    kColour,
    kClass,
    kStyle,
    kAlt,
    kType,
    kSlots
  };
  struct Slot {
    bool present = false;
    std::string value;
  };

  Slot* SlotOf(std::string_view name, GumboTag tag);
  const char* Value(Which which) const {
    return slots_[which].present ? slots_[which].value.c_str() : nullptr;
  }

  std::array<Slot, kSlots> slots_;
  std::vector<std::pair<std::string, std::string>> all_;
};

}  // namespace mw::mime::internal

#endif  // MW_MIME_HTML_ATTRIBUTES_H_
