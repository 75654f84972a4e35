// The tree walk (see html_walker.h).
#include "html_walker.h"

#include <gumbo.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "css.h"

namespace mw::mime::internal {

Layout LayoutOf(GumboTag tag) {
  switch (tag) {
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_TITLE:
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NOSCRIPT:  // only reached unrenamed as raw text, which is
                              // never shown
    case GUMBO_TAG_IFRAME:    // fallback content, not shown by clients that
                              // render iframes
    case GUMBO_TAG_NOEMBED:
    case GUMBO_TAG_NOFRAMES:
    case GUMBO_TAG_DATALIST:
      return Layout::kDrop;
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_FORM:
    case GUMBO_TAG_FRAMESET:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_HR:
    case GUMBO_TAG_LEGEND:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_LISTING:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_P:
    case GUMBO_TAG_PLAINTEXT:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_XMP:
      return Layout::kBlock;
    case GUMBO_TAG_TR:
    case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TBODY:
    case GUMBO_TAG_TFOOT:
      return Layout::kLine;
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TH:
      return Layout::kCell;
    default:
      return Layout::kInline;
  }
}

bool IsPreformatted(GumboTag tag) {
  return tag == GUMBO_TAG_PRE || tag == GUMBO_TAG_LISTING ||
         tag == GUMBO_TAG_TEXTAREA || tag == GUMBO_TAG_XMP ||
         tag == GUMBO_TAG_PLAINTEXT;
}

std::string Walker::Walk(const GumboNode* document) {
  struct Frame {
    const GumboNode* node;
    unsigned next_child;
    Inherited state;
    Layout layout;
    std::uint32_t depth;  // element depth; html is 1
  };
  std::vector<Frame> stack;
  stack.push_back({document, 0, Inherited{}, Layout::kInline, 0});
  while (!stack.empty()) {
    Frame& top = stack.back();
    const GumboVector& children = top.node->type == GUMBO_NODE_DOCUMENT
                                      ? top.node->v.document.children
                                      : top.node->v.element.children;
    if (top.next_child >= children.length) {
      Close(top.layout);
      stack.pop_back();
      continue;
    }
    const auto* child =
        static_cast<const GumboNode*>(children.data[top.next_child++]);
    Inherited state = top.state;
    std::uint32_t depth = top.depth + 1;
    switch (child->type) {
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE:
        Text(state, child->v.text.text);
        break;
      case GUMBO_NODE_ELEMENT: {
        if (depth > limit_) {
          // Skipped, but its line or paragraph break is kept so its
          // neighbours stay apart.
          nesting_limit_hit_ = true;
          Layout layout = LayoutOf(child->v.element.tag);
          if (layout != Layout::kDrop) {
            Open(layout);
            Close(layout);
          }
          break;
        }
        Layout layout;
        if (!Enter(child->v.element.tag,
                   ElementAttributes::Of(child->v.element), &state, &layout)) {
          break;
        }
        stack.push_back({child, 0, state, layout, depth});
        break;
      }
      default:  // comments, and template contents (GUMBO_NODE_TEMPLATE)
        break;
    }
  }
  return text_.Finish();
}

ElementAttributes ElementAttributes::Of(const GumboElement& element) {
  ElementAttributes a;
  const GumboVector& all = element.attributes;
  auto value = [&all](const char* name) -> const char* {
    const GumboAttribute* found = gumbo_get_attribute(&all, name);
    return found != nullptr ? found->value : nullptr;
  };
  a.hidden = value("hidden") != nullptr;
  a.background = value("background") != nullptr;
  a.bgcolor = value("bgcolor");
  if (element.tag == GUMBO_TAG_FONT) a.colour = value("color");
  if (element.tag == GUMBO_TAG_BODY) a.colour = value("text");
  a.cls = value("class");
  a.style = value("style");
  a.alt = value("alt");
  return a;
}

void Walker::Text(const Inherited& state, std::string_view text) {
  if (!state.Shows()) return;
  if (state.pre) {
    text_.Preformatted(text);
  } else {
    text_.Inline(text);
  }
}

StyleEffect Walker::EffectOf(GumboTag tag,
                             const ElementAttributes& attributes) const {
  StyleEffect effect;
  // Presentational attributes first: style sheets and style attributes
  // override them.
  if (attributes.bgcolor != nullptr) {
    effect.background = ParseAttributeColour(attributes.bgcolor);
  }
  if (attributes.background) {
    effect.background = Paint{};  // an image: the backdrop is unknown
  }
  if (attributes.colour != nullptr &&
      (tag == GUMBO_TAG_FONT || tag == GUMBO_TAG_BODY)) {
    effect.colour = ParseAttributeColour(attributes.colour);
  }
  if (!styles_.empty()) {
    std::string_view name = tag == GUMBO_TAG_UNKNOWN
                                ? std::string_view()
                                : gumbo_normalized_tagname(tag);
    styles_.Apply(name, attributes.cls != nullptr ? attributes.cls : "",
                  &effect);
  }
  if (attributes.style != nullptr) {
    effect.Merge(ParseDeclarations(StripCssComments(attributes.style)));
  }
  return effect;
}

bool Walker::Enter(GumboTag tag, const ElementAttributes& attributes,
                   Inherited* state, Layout* layout, unsigned* sets) {
  if (sets != nullptr) *sets = 0;
  *layout = LayoutOf(tag);
  if (*layout == Layout::kDrop) return false;
  if (attributes.hidden) return false;
  const StyleEffect effect = EffectOf(tag, attributes);
  if (effect.HidesSubtree()) return false;
  if (sets != nullptr) {
    *sets = (effect.invisible ? kSetsInvisible : 0u) |
            (effect.transparent ? kSetsTransparent : 0u) |
            (effect.colour ? kSetsColour : 0u) |
            (effect.background ? kSetsBackdrop : 0u) |
            (effect.font_size && *effect.font_size != FontSize::kRelative
                 ? kSetsZeroFont
                 : 0u) |
            (IsPreformatted(tag) ? kSetsPre : 0u);
  }
  if (effect.invisible) state->invisible = *effect.invisible;
  if (effect.transparent) state->transparent = *effect.transparent;
  if (effect.colour) state->colour = *effect.colour;
  if (effect.background) state->backdrop = *effect.background;
  if (effect.font_size) {
    switch (*effect.font_size) {
      case FontSize::kZero:
        state->zero_font = true;
        break;
      case FontSize::kAbsolute:
        state->zero_font = false;
        break;
      case FontSize::kRelative:
        break;  // a fraction of the parent's size: zero stays zero
    }
  }
  if (IsPreformatted(tag)) state->pre = true;
  Open(*layout);
  if (tag == GUMBO_TAG_BR) text_.LineBreak();
  if (tag == GUMBO_TAG_IMG && state->Shows() && attributes.alt != nullptr) {
    text_.Inline(attributes.alt);
  }
  return true;
}

void Walker::Close(Layout layout) {
  switch (layout) {
    case Layout::kBlock:
      text_.Paragraph();
      break;
    case Layout::kLine:
      text_.Line();
      break;
    case Layout::kCell:
      text_.Space();
      break;
    default:
      break;
  }
}

}  // namespace mw::mime::internal
