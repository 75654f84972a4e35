// Tag attributes (see html_attributes.h): gumbo's attribute states
// (src/tokenizer.c), for the attributes the Walker reads.
#include "html_attributes.h"

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include "html_chars.h"
#include "html_entities.h"
#include "html_tokenizer.h"

namespace mw::mime::internal {
namespace {

const char* ValueOf(bool present, const std::string& value) {
  return present ? value.c_str() : nullptr;
}

}  // namespace

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
  for (Slot* slot : {&hidden_, &background_, &bgcolor_, &colour_, &cls_,
                     &style_, &alt_, &type_}) {
    slot->present = false;
    slot->value.clear();
  }
  all_.clear();
}

ElementAttributes TagAttributes::View() const {
  ElementAttributes a;
  a.hidden = hidden_.present;
  a.background = background_.present;
  a.bgcolor = ValueOf(bgcolor_.present, bgcolor_.value);
  a.colour = ValueOf(colour_.present, colour_.value);
  a.cls = ValueOf(cls_.present, cls_.value);
  a.style = ValueOf(style_.present, style_.value);
  a.alt = ValueOf(alt_.present, alt_.value);
  return a;
}

unsigned TagAttributes::Present() const {
  unsigned bits = 0;
  unsigned bit = 1;
  for (const Slot* slot :
       {&hidden_, &background_, &bgcolor_, &colour_, &cls_, &style_, &alt_}) {
    if (slot->present) bits |= bit;
    bit <<= 1;
  }
  return bits;
}

void TagAttributes::MergeMissing(const TagAttributes& other) {
  Slot* mine[] = {&hidden_, &background_, &bgcolor_, &colour_,
                  &cls_,    &style_,      &alt_,     &type_};
  const Slot* theirs[] = {&other.hidden_, &other.background_, &other.bgcolor_,
                          &other.colour_, &other.cls_,        &other.style_,
                          &other.alt_,    &other.type_};
  for (std::size_t i = 0; i < std::size(mine); ++i) {
    if (!mine[i]->present) *mine[i] = *theirs[i];
  }
}

bool TagAttributes::TypeIsHidden() const {
  return type_.present && EqualNoCase(type_.value, "hidden");
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
  if (EqualNoCase(name, "style")) return &style_;
  if (EqualNoCase(name, "class")) return &cls_;
  if (EqualNoCase(name, "hidden")) return &hidden_;
  if (EqualNoCase(name, "bgcolor")) return &bgcolor_;
  if (EqualNoCase(name, "background")) return &background_;
  if (EqualNoCase(name, "alt")) return &alt_;
  if (tag == GUMBO_TAG_FONT && EqualNoCase(name, "color")) return &colour_;
  if (tag == GUMBO_TAG_BODY && EqualNoCase(name, "text")) return &colour_;
  if (tag == GUMBO_TAG_INPUT && EqualNoCase(name, "type")) return &type_;
  return nullptr;
}

}  // namespace mw::mime::internal
