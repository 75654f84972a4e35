// The depth estimate (see depth_estimate.h).
#include "depth_estimate.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mw::mime::internal {

TagKind KindOf(std::string_view name) {
  static const std::unordered_map<std::string_view, TagKind> kKinds = [] {
    std::unordered_map<std::string_view, TagKind> m;
    for (auto n :
         {"area",  "base", "basefont", "bgsound", "br",    "col",     "embed",
          "frame", "hr",   "image",    "img",     "input", "isindex", "keygen",
          "link",  "meta", "param",    "source",  "track", "wbr"}) {
      m[n] = TagKind::kVoid;
    }
    // Elements the tree builder closes implicitly when a sibling starts, so
    // they never nest in themselves without a counted element in between
    // (outside svg and math): the depth estimate ignores them.
    for (auto n : {"p", "option", "tr", "td", "th", "tbody", "thead", "tfoot",
                   "caption", "colgroup", "html", "head", "body"}) {
      m[n] = TagKind::kUncounted;
    }
    for (auto n : {"a", "b", "big", "code", "em", "font", "i", "nobr", "s",
                   "small", "strike", "strong", "tt", "u"}) {
      m[n] = TagKind::kFormatting;
    }
    // Scope boundaries: end tags never close elements below them.
    for (auto n : {"applet", "marquee", "object", "table", "template", "title",
                   "select", "foreignobject", "desc", "mi", "mo", "mn", "ms",
                   "mtext", "annotation-xml", "svg", "math", "button"}) {
      m[n] = TagKind::kBoundary;
    }
    for (auto n :
         {"address", "article",   "aside",    "blockquote", "center",
          "dir",     "div",       "dl",       "fieldset",   "figcaption",
          "figure",  "footer",    "form",     "frameset",   "h1",
          "h2",      "h3",        "h4",       "h5",         "h6",
          "header",  "hgroup",    "iframe",   "listing",    "menu",
          "nav",     "noembed",   "noframes", "ol",         "pre",
          "script",  "section",   "style",    "textarea",   "ul",
          "xmp",     "plaintext", "li",       "dd",         "dt"}) {
      m[n] = TagKind::kSpecial;
    }
    return m;
  }();
  auto it = kKinds.find(name);
  return it == kKinds.end() ? TagKind::kOrdinary : it->second;
}

namespace {

// Scope boundaries that exist only in svg and MathML.
bool IsForeignName(std::string_view name) {
  return name == "svg" || name == "math" || name == "foreignobject" ||
         name == "desc" || name == "mi" || name == "mo" || name == "mn" ||
         name == "ms" || name == "mtext" || name == "annotation-xml";
}

// Elements gumbo's tree builder treats as "special" but that we still handle as
// ordinary when they are the target of an end tag (the stricter rule), because
// gumbo 0.10 may not know them.
bool IsSpecialForBlocking(TagKind kind, std::string_view name) {
  return kind == TagKind::kSpecial || kind == TagKind::kBoundary ||
         name == "main" || name == "details" || name == "summary" ||
         name == "dialog" || name == "search";
}

}  // namespace

bool DepthEstimate::Start(const std::string& name) {
  TagKind kind = KindOf(name);
  if (kind == TagKind::kVoid || kind == TagKind::kUncounted) {
    // Inside svg or math, <td>, <caption>, <col>, ... are foreign elements
    // that nest freely.
    if (!InForeign()) return true;
    kind = TagKind::kOrdinary;
  }
  if (name == "li" || name == "dd" || name == "dt") CloseListItem(name);
  if (Depth() >= cap_) return false;
  stack_.push_back(Entry{name, kind});
  ++open_count_[name];
  return true;
}

void DepthEstimate::End(const std::string& name) {
  auto count = open_count_.find(name);
  if (count == open_count_.end() || count->second == 0) {
    // Not open: an end tag of a latent formatting element removes it from the
    // list.
    if (KindOf(name) == TagKind::kFormatting) RemoveLatent(name);
    return;
  }
  std::size_t j = stack_.size();
  while (stack_[j - 1].name != name) --j;
  std::size_t target = j - 1;
  TagKind kind = stack_[target].kind;
  bool special_above = false;
  bool boundary_above = false;
  for (std::size_t k = target + 1; k < stack_.size(); ++k) {
    const Entry& e = stack_[k];
    special_above |= IsSpecialForBlocking(e.kind, e.name);
    // </li> looks in "list item scope", which also stops at ul and ol, and
    // </select> in "select scope", where only option and optgroup do not
    // (so an estimate's select that the tree builder closed implicitly
    // cannot pop real elements).
    boundary_above |= e.kind == TagKind::kBoundary ||
                      (name == "li" && (e.name == "ul" || e.name == "ol")) ||
                      (name == "select" && e.name != "optgroup");
  }
  // svg and MathML names are ordinary elements to the HTML end tag rules.
  bool target_special =
      (kind == TagKind::kSpecial || kind == TagKind::kBoundary) &&
      !IsForeignName(name);
  if (boundary_above) return;  // not in scope: ignored
  if (!target_special && special_above)
    return;  // ignored, or adoption keeps depth
  if (name == "form") {
    Erase(target);
    return;
  }
  PopTo(target);
}

void DepthEstimate::CloseListItem(const std::string& name) {
  for (std::size_t k = stack_.size(); k > 0; --k) {
    const Entry& e = stack_[k - 1];
    bool match =
        name == "li" ? e.name == "li" : (e.name == "dd" || e.name == "dt");
    if (match) {
      PopTo(k - 1);
      return;
    }
    if (IsSpecialForBlocking(e.kind, e.name) && e.name != "address" &&
        e.name != "div") {
      return;
    }
  }
}

void DepthEstimate::PopTo(std::size_t target) {
  while (stack_.size() > target + 1) {
    if (stack_.back().kind == TagKind::kFormatting) {
      AddLatent(stack_.back().name);
    }
    Erase(stack_.size() - 1);
  }
  Erase(target);
}

bool DepthEstimate::InForeign() const {
  auto open = [this](const char* name) {
    auto it = open_count_.find(name);
    return it != open_count_.end() && it->second > 0;
  };
  return open("svg") || open("math");
}

void DepthEstimate::Erase(std::size_t i) {
  --open_count_[stack_[i].name];
  stack_.erase(stack_.begin() + static_cast<std::ptrdiff_t>(i));
}

void DepthEstimate::RemoveLatent(const std::string& name) {
  for (std::size_t i = latent_.size(); i > 0; --i) {
    if (latent_[i - 1] == name) {
      latent_.erase(latent_.begin() + static_cast<std::ptrdiff_t>(i - 1));
      return;
    }
  }
}

}  // namespace mw::mime::internal
