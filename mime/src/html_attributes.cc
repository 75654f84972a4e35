// Tag attributes (see html_attributes.h): gumbo's attribute states
// (src/tokenizer.c), for the attributes the Walker reads.
#include "html_attributes.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "html_chars.h"
#include "html_entities.h"
#include "html_tokenizer.h"

namespace mw::mime::internal {

bool TagAttributes::Read(std::string_view in, GumboTag tag, bool all) {
  constexpr std::size_t kMaxNames = 32;  // more: left to gumbo
  std::string_view names[kMaxNames];
  std::size_t count = 0;
  return ForEachAttribute(in, [&](const AttributeSpan& a) {
    if (count == kMaxNames) return false;
    for (std::size_t k = 0; k < count; ++k) {
      if (EqualNoCase(names[k], a.name)) return false;  // see the header
    }
    names[count++] = a.name;
    if (all) {
      std::string decoded;
      if (a.has_value && !DecodeReferences(a.value, true, &decoded)) {
        return false;
      }
      all_.emplace_back(AsciiLower(a.name), std::move(decoded));
    }
    Slot* slot = SlotOf(a.name, tag);
    if (slot == nullptr) return true;
    slot->present = true;
    return !a.has_value || DecodeReferences(a.value, true, &slot->value);
  });
}

void TagAttributes::Clear() {
  for (Slot& slot : slots_) {
    slot.present = false;
    slot.value.clear();
  }
  all_.clear();
}

ElementAttributes TagAttributes::View() const {
  ElementAttributes a;
  a.hidden = slots_[kHidden].present;
  a.background = slots_[kBackground].present;
  a.bgcolor = Value(kBgcolor);
  a.colour = Value(kColour);
  a.cls = Value(kClass);
  a.style = Value(kStyle);
  a.alt = Value(kAlt);
  return a;
}

unsigned TagAttributes::Present() const {
  unsigned bits = 0;
  for (int i = 0; i < kType; ++i) {
    if (slots_[i].present) bits |= 1u << i;
  }
  return bits;
}

void TagAttributes::MergeMissing(const TagAttributes& other) {
  for (int i = 0; i < kSlots; ++i) {
    if (!slots_[i].present) slots_[i] = other.slots_[i];
  }
}

bool TagAttributes::TypeIsHidden() const {
  return slots_[kType].present && EqualNoCase(slots_[kType].value, "hidden");
}

bool TagAttributes::SameAs(const TagAttributes& other) const {
  if (all_.size() != other.all_.size()) return false;
  for (const auto& [name, value] : all_) {
    bool found = false;
    for (const auto& [other_name, other_value] : other.all_) {
      if (other_name == name) {
        found = other_value == value;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

TagAttributes::Slot* TagAttributes::SlotOf(std::string_view name,
                                           GumboTag tag) {
  // Names without ASCII case, as the tokenizer lower-cases them.
  Which which = kSlots;
  if (EqualNoCase(name, "style")) {
    which = kStyle;
  } else if (EqualNoCase(name, "class")) {
    which = kClass;
  } else if (EqualNoCase(name, "hidden")) {
    which = kHidden;
  } else if (EqualNoCase(name, "bgcolor")) {
    which = kBgcolor;
  } else if (EqualNoCase(name, "background")) {
    which = kBackground;
  } else if (EqualNoCase(name, "alt")) {
    which = kAlt;
  } else if ((tag == GUMBO_TAG_FONT && EqualNoCase(name, "color")) ||
             (tag == GUMBO_TAG_BODY && EqualNoCase(name, "text"))) {
    which = kColour;
  } else if (tag == GUMBO_TAG_INPUT && EqualNoCase(name, "type")) {
    which = kType;
  }
  return which == kSlots ? nullptr : &slots_[which];
}

}  // namespace mw::mime::internal
