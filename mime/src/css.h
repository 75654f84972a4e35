// CSS, as far as hiding text goes: the declarations that hide an element or
// its text, from style attributes, presentational colour attributes and simple
// <style> rules. Private to mw::mime; html_walker.cc applies the result.
//
// Only what spam uses to show a reader one text and a filter another is read;
// everything else is ignored, and what cannot be judged (an unknown colour, a
// background image) never hides anything. No function here fails: unknown or
// malformed input yields "no effect". Thread-safe: no shared mutable state.
#ifndef MW_MIME_CSS_H_
#define MW_MIME_CSS_H_

#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace mw::mime::internal {

// CSS read from <style> elements per document: bytes past this are ignored,
// and rules past kMaxCssRules.
constexpr std::size_t kMaxCssBytes = 1u << 20;
constexpr std::size_t kMaxCssRules = 10000;

enum class FontSize { kZero, kAbsolute, kRelative };

struct Rgb {
  int r = 0, g = 0, b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

// A colour as far as the walk knows it: `known` is false for what it cannot
// judge (a background image or gradient, a colour it cannot parse), which never
// hides anything.
struct Paint {
  bool known = false;
  Rgb rgb;
};

// Text is taken as invisible when no channel differs from the backdrop's by
// more than this (out of 255): #fafafa or #eeeeee on white, #111111 on black.
// A per-channel test, not a luminance contrast, so red on green of equal
// luminance still counts as visible.
constexpr int kInvisibleChannelDelta = 20;

// True when text in `text` cannot be told from `backdrop`; false when either
// is unknown.
inline bool LooksTheSame(const Paint& text, const Paint& backdrop) {
  return text.known && backdrop.known &&
         std::abs(text.rgb.r - backdrop.rgb.r) <= kInvisibleChannelDelta &&
         std::abs(text.rgb.g - backdrop.rgb.g) <= kInvisibleChannelDelta &&
         std::abs(text.rgb.b - backdrop.rgb.b) <= kInvisibleChannelDelta;
}

// What the declarations for one element say; an empty optional is "not
// declared", so that later sources (sheet, then style attribute) override
// only what they set.
struct StyleEffect {
  std::optional<bool> display_none;
  std::optional<bool> transparent_box;  // opacity below 0.05
  std::optional<bool> zero_size;        // width, height or max-height of 0
  std::optional<bool> overflow_hidden;
  std::optional<bool> invisible;    // visibility (inherited)
  std::optional<bool> transparent;  // color: transparent (inherited)
  std::optional<FontSize> font_size;
  std::optional<Paint> colour;      // color (inherited)
  std::optional<Paint> background;  // what the box paints behind its text
  std::optional<bool> positioned;   // position: absolute, fixed or relative
  std::optional<bool> far_left;     // left of -1000px or less
  std::optional<bool> far_top;      // top of -1000px or less
  std::optional<bool> far_indent;   // text-indent of -1000px or less

  // Declarations of `later` override those of this one.
  void Merge(const StyleEffect& later) {
    auto take = [](auto& mine, const auto& theirs) {
      if (theirs) mine = theirs;
    };
    take(display_none, later.display_none);
    take(transparent_box, later.transparent_box);
    take(zero_size, later.zero_size);
    take(overflow_hidden, later.overflow_hidden);
    take(invisible, later.invisible);
    take(transparent, later.transparent);
    take(font_size, later.font_size);
    take(colour, later.colour);
    take(background, later.background);
    take(positioned, later.positioned);
    take(far_left, later.far_left);
    take(far_top, later.far_top);
    take(far_indent, later.far_indent);
  }
  bool HidesSubtree() const {
    return display_none.value_or(false) || transparent_box.value_or(false) ||
           (zero_size.value_or(false) && overflow_hidden.value_or(false)) ||
           OffScreen();
  }
  // Moved out of the viewport: positioned at a far negative left/top, or a
  // far negative text-indent (which moves the text of any block, positioned
  // or not).
  bool OffScreen() const {
    return (positioned.value_or(false) &&
            (far_left.value_or(false) || far_top.value_or(false))) ||
           far_indent.value_or(false);
  }
};

// Parses a CSS number with its unit as written ("0.5px" -> {0.5, "px"}, "0",
// "-1em", "50%" -> {50, "%"}); leading spaces are not allowed, spaces around
// the unit are trimmed. nullopt when `v` does not start with a number.
std::optional<std::pair<double, std::string>> ParseDimension(
    std::string_view v);

// A font-size value: kZero below 1px (relative units against a 16px parent),
// kAbsolute for keywords and absolute units, kRelative for smaller/larger and
// relative units; nullopt for anything else (negative sizes included).
std::optional<FontSize> ParseFontSize(std::string_view v);

// A CSS colour value, lower-cased and trimmed: #rgb, #rrggbb (an alpha digit
// group is ignored), rgb()/rgba() with numbers or percentages, or one of the
// CSS basic colours and the near-white extended ones. Anything else is an
// unknown Paint.
Paint ParseCssColour(std::string_view v);

// An HTML colour attribute (bgcolor, <font color>, <body text>): as CSS, any
// case and spacing, plus hex digits without the '#', which browsers accept
// there.
Paint ParseAttributeColour(std::string_view raw);

// The backdrop a `background` shorthand (lower case) paints: unknown under an
// image or a gradient or when only unknown keywords are given, the colour when
// one is given, nullopt for "none" or "transparent" (nothing painted).
std::optional<Paint> ParseBackground(std::string_view v);

// `css` with /* comments */ replaced by one space each; an unterminated
// comment runs to the end.
std::string StripCssComments(std::string_view css);

// Parses a declaration block ("display: none !important; font-size:0"), any
// case, comments already removed. !important is dropped (inline and sheet
// declarations are not ranked by it); a later declaration of a property
// overrides an earlier one; declarations without a colon are skipped.
StyleEffect ParseDeclarations(std::string_view block);

// Rules from <style> sheets whose selector is `tag`, `.class` or `tag.class`;
// rules with any other selector (descendant, id, attribute, pseudo-class) and
// those inside at-rules (@media, @supports, ...) are ignored, since applying
// them without a full matcher could hide visible text.
class StyleSheet {
 public:
  // Adds the rules of one <style> element's content. Counts towards
  // kMaxCssBytes and kMaxCssRules over all calls. An unterminated block ends
  // at the end of `raw_css`.
  void Add(std::string_view raw_css);

  bool empty() const { return by_key_.empty(); }

  // Merges into `effect` the rules for an element (`tag` lower case, empty
  // for an unknown element; `class_attr` as written): its tag's, then the
  // .class and tag.class rules for each of its classes in order. Class names
  // match case-insensitively, as in quirks mode (most mail has no doctype).
  void Apply(std::string_view tag, std::string_view class_attr,
             StyleEffect* effect) const;

 private:
  void AddSelector(std::string_view selector, const StyleEffect& effect);
  void Lookup(std::string_view key, StyleEffect* effect) const;

  std::unordered_map<std::string, StyleEffect> by_key_;
  std::size_t css_bytes_ = 0;
  std::size_t rules_ = 0;
};

}  // namespace mw::mime::internal

#endif  // MW_MIME_CSS_H_
