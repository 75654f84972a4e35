// CSS declarations and simple <style> rules that hide text (see css.h).
#include "css.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "html_chars.h"

namespace mw::mime::internal {
// Parses a CSS number with its unit ("0.5px", "0", "-1em", "50%"); nullopt if
// not a number.
std::optional<std::pair<double, std::string>> ParseDimension(
    std::string_view v) {
  std::size_t i = 0;
  if (i < v.size() && (v[i] == '+' || v[i] == '-')) ++i;
  std::size_t digits_start = i;
  while (i < v.size() && ((v[i] >= '0' && v[i] <= '9') || v[i] == '.')) ++i;
  if (i == digits_start) return std::nullopt;
  std::string number(v.substr(0, i));
  char* end = nullptr;
  double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size()) return std::nullopt;
  std::string unit(Trim(v.substr(i)));
  return std::make_pair(value, unit);
}

std::optional<FontSize> ParseFontSize(std::string_view v) {
  static const std::unordered_set<std::string_view> kKeywords = {
      "xx-small", "x-small", "small",    "medium",
      "large",    "x-large", "xx-large", "xxx-large"};
  if (kKeywords.contains(v)) return FontSize::kAbsolute;
  if (v == "smaller" || v == "larger") return FontSize::kRelative;
  auto dim = ParseDimension(v);
  if (!dim || dim->first < 0) return std::nullopt;
  auto [value, unit] = *dim;
  // Absolute units in CSS pixels; a root font size of 16px is assumed for rem.
  static const std::unordered_map<std::string_view, double> kPx = {
      {"", 1},      {"px", 1},         {"pt", 4.0 / 3},   {"pc", 16},
      {"in", 96},   {"cm", 96 / 2.54}, {"mm", 96 / 25.4}, {"q", 96 / 101.6},
      {"rem", 16},  {"vw", 1e9},       {"vh", 1e9},       {"vmin", 1e9},
      {"vmax", 1e9}};
  // Relative units as a fraction of the parent's size, with 16px as a typical
  // parent.
  static const std::unordered_map<std::string_view, double> kRelative = {
      {"em", 1}, {"%", 0.01}, {"ex", 0.5}, {"ch", 0.5}};
  if (auto it = kPx.find(unit); it != kPx.end()) {
    return value * it->second < 1 ? FontSize::kZero : FontSize::kAbsolute;
  }
  if (auto it = kRelative.find(unit); it != kRelative.end()) {
    return value * it->second * 16 < 1 ? FontSize::kZero : FontSize::kRelative;
  }
  return std::nullopt;
}

namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "fff" or "ffffff" (no '#'); "ffff"/"ffffffff" carry an alpha, which only
// matters when it makes the colour transparent, so it is ignored.
std::optional<Rgb> ParseHex(std::string_view h) {
  for (char c : h) {
    if (HexDigit(c) < 0) return std::nullopt;
  }
  if (h.size() == 3 || h.size() == 4) {
    return Rgb{HexDigit(h[0]) * 17, HexDigit(h[1]) * 17, HexDigit(h[2]) * 17};
  }
  if (h.size() == 6 || h.size() == 8) {
    return Rgb{HexDigit(h[0]) * 16 + HexDigit(h[1]),
               HexDigit(h[2]) * 16 + HexDigit(h[3]),
               HexDigit(h[4]) * 16 + HexDigit(h[5])};
  }
  return std::nullopt;
}

// The CSS basic colours and the near-white extended ones (what white-on-white
// tricks use); other names are "not known", which never hides.
std::optional<Rgb> NamedColour(std::string_view name) {
  static const std::unordered_map<std::string_view, Rgb> kNames = {
      {"black", {0, 0, 0}},
      {"silver", {192, 192, 192}},
      {"gray", {128, 128, 128}},
      {"grey", {128, 128, 128}},
      {"white", {255, 255, 255}},
      {"maroon", {128, 0, 0}},
      {"red", {255, 0, 0}},
      {"purple", {128, 0, 128}},
      {"fuchsia", {255, 0, 255}},
      {"magenta", {255, 0, 255}},
      {"green", {0, 128, 0}},
      {"lime", {0, 255, 0}},
      {"olive", {128, 128, 0}},
      {"yellow", {255, 255, 0}},
      {"navy", {0, 0, 128}},
      {"blue", {0, 0, 255}},
      {"teal", {0, 128, 128}},
      {"aqua", {0, 255, 255}},
      {"cyan", {0, 255, 255}},
      {"snow", {255, 250, 250}},
      {"ivory", {255, 255, 240}},
      {"whitesmoke", {245, 245, 245}},
      {"ghostwhite", {248, 248, 255}},
      {"floralwhite", {255, 250, 240}},
      {"azure", {240, 255, 255}},
      {"mintcream", {245, 255, 250}},
      {"aliceblue", {240, 248, 255}},
      {"seashell", {255, 245, 238}},
      {"honeydew", {240, 255, 240}},
      {"lavenderblush", {255, 240, 245}},
      {"linen", {250, 240, 230}},
      {"oldlace", {253, 245, 230}},
      {"lightyellow", {255, 255, 224}},
      {"cornsilk", {255, 248, 220}},
      {"beige", {245, 245, 220}},
      {"gainsboro", {220, 220, 220}},
      {"lightgray", {211, 211, 211}},
      {"lightgrey", {211, 211, 211}},
      {"darkgray", {169, 169, 169}},
      {"darkgrey", {169, 169, 169}},
      {"dimgray", {105, 105, 105}},
      {"dimgrey", {105, 105, 105}},
      {"orange", {255, 165, 0}}};
  if (auto it = kNames.find(name); it != kNames.end()) return it->second;
  return std::nullopt;
}

// rgb(…)/rgba(…) with numbers or percentages, commas or spaces; an alpha is
// ignored (transparency is judged separately).
std::optional<Rgb> ParseRgbFunction(std::string_view v) {
  std::size_t open = v.find('(');
  std::size_t close = v.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos ||
      close < open) {
    return std::nullopt;
  }
  std::string_view args = v.substr(open + 1, close - open - 1);
  int channel[3];
  for (int k = 0; k < 3; ++k) {
    while (!args.empty() && (IsHtmlSpace(args.front()) || args.front() == ','))
      args.remove_prefix(1);
    std::size_t end = 0;
    while (end < args.size() && !IsHtmlSpace(args[end]) && args[end] != ',' &&
           args[end] != '/')
      ++end;
    auto dim = ParseDimension(args.substr(0, end));
    if (!dim || (!dim->second.empty() && dim->second != "%"))
      return std::nullopt;
    double value = dim->second == "%" ? dim->first * 2.55 : dim->first;
    channel[k] = static_cast<int>(std::clamp(value, 0.0, 255.0) + 0.5);
    args.remove_prefix(end);
  }
  return Rgb{channel[0], channel[1], channel[2]};
}

}  // namespace

// A CSS colour value, lower-cased and trimmed: #hex, rgb()/rgba(), or a name.
Paint ParseCssColour(std::string_view v) {
  std::optional<Rgb> rgb;
  if (v.starts_with("#")) {
    rgb = ParseHex(v.substr(1));
  } else if (v.starts_with("rgb")) {
    rgb = ParseRgbFunction(v);
  } else {
    rgb = NamedColour(v);
  }
  return rgb ? Paint{true, *rgb} : Paint{};
}

// An HTML colour attribute (bgcolor, <font color>, <body text>): as CSS, plus
// hex digits without the '#', which browsers accept there.
Paint ParseAttributeColour(std::string_view raw) {
  std::string v = AsciiLower(Trim(raw));
  Paint paint = ParseCssColour(v);
  if (!paint.known) {
    if (auto rgb = ParseHex(v)) paint = Paint{true, *rgb};
  }
  return paint;
}

// The backdrop a `background` shorthand paints: unknown under an image or a
// gradient, the colour when one is given, nothing (nullopt) for "none" or
// "transparent".
std::optional<Paint> ParseBackground(std::string_view v) {
  if (v.find("url(") != std::string_view::npos ||
      v.find("gradient(") != std::string_view::npos ||
      v.find("image(") != std::string_view::npos) {
    return Paint{};
  }
  if (std::size_t rgb = v.find("rgb"); rgb != std::string_view::npos) {
    return ParseCssColour(v.substr(rgb, v.find(')', rgb) - rgb + 1));
  }
  bool any = false;
  std::size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && IsHtmlSpace(v[i])) ++i;
    std::size_t end = i;
    while (end < v.size() && !IsHtmlSpace(v[end])) ++end;
    if (end == i) break;
    std::string_view token = v.substr(i, end - i);
    i = end;
    if (token == "none" || token == "transparent") continue;
    any = true;
    Paint paint = ParseCssColour(token);
    if (paint.known) return paint;
  }
  // Only keywords this parser does not know (repeat, positions, inherit):
  // the backdrop can no longer be judged.
  return any ? std::optional<Paint>(Paint{}) : std::nullopt;
}

// Removes /* comments */ (CSS allows them anywhere between tokens).
std::string StripCssComments(std::string_view css) {
  std::string out;
  out.reserve(css.size());
  std::size_t i = 0;
  while (i < css.size()) {
    std::size_t open = css.find("/*", i);
    if (open == std::string_view::npos) {
      out.append(css.substr(i));
      break;
    }
    out.append(css.substr(i, open - i));
    out += ' ';
    std::size_t close = css.find("*/", open + 2);
    if (close == std::string_view::npos) break;
    i = close + 2;
  }
  return out;
}

// Parses a declaration block ("display: none !important; font-size:0"),
// comments removed.
StyleEffect ParseDeclarations(std::string_view block) {
  StyleEffect effect;
  std::size_t start = 0;
  while (start <= block.size()) {
    std::size_t semi = block.find(';', start);
    std::string_view decl = block.substr(start, semi == std::string_view::npos
                                                    ? std::string_view::npos
                                                    : semi - start);
    start = semi == std::string_view::npos ? block.size() + 1 : semi + 1;
    std::size_t colon = decl.find(':');
    if (colon == std::string_view::npos) continue;
    std::string prop = AsciiLower(Trim(decl.substr(0, colon)));
    std::string value = AsciiLower(decl.substr(colon + 1));
    if (std::size_t bang = value.find('!'); bang != std::string::npos)
      value.resize(bang);
    std::string_view v = Trim(value);
    if (prop == "display") {
      effect.display_none = v == "none";
    } else if (prop == "visibility") {
      if (v == "hidden" || v == "collapse") effect.invisible = true;
      if (v == "visible") effect.invisible = false;
    } else if (prop == "color") {
      effect.transparent = v == "transparent";
      if (v != "transparent" && v != "inherit")
        effect.colour = ParseCssColour(v);
    } else if (prop == "background-color") {
      if (v != "transparent" && v != "inherit")
        effect.background = ParseCssColour(v);
    } else if (prop == "background") {
      if (auto backdrop = ParseBackground(v)) effect.background = backdrop;
    } else if (prop == "background-image") {
      if (v != "none") effect.background = Paint{};
    } else if (prop == "position") {
      effect.positioned = v == "absolute" || v == "fixed" || v == "relative";
    } else if (prop == "left" || prop == "top" || prop == "text-indent") {
      // Only pixel-like units: -100em would also be far, but templates do
      // not use it, and percentages depend on the container.
      if (auto dim = ParseDimension(v);
          dim &&
          (dim->second.empty() || dim->second == "px" || dim->second == "pt")) {
        const bool far = dim->first <= -1000;
        (prop == "left"  ? effect.far_left
         : prop == "top" ? effect.far_top
                         : effect.far_indent) = far;
      }
    } else if (prop == "font-size") {
      if (auto size = ParseFontSize(v)) effect.font_size = size;
    } else if (prop == "opacity") {
      if (auto dim = ParseDimension(v);
          dim && (dim->second.empty() || dim->second == "%")) {
        double opacity = dim->second == "%" ? dim->first / 100 : dim->first;
        effect.transparent_box = opacity < 0.05;
      }
    } else if (prop == "overflow" || prop == "overflow-x" ||
               prop == "overflow-y") {
      // Either axis clipped is enough for a zero-sized box to show nothing.
      if (v == "hidden" || v == "clip" || v.starts_with("hidden ") ||
          v.starts_with("clip ")) {
        effect.overflow_hidden = true;
      }
    } else if (prop == "width" || prop == "height" || prop == "max-height" ||
               prop == "max-width") {
      if (auto dim = ParseDimension(v)) {
        if (dim->first == 0) effect.zero_size = true;
      }
    }
  }
  return effect;
}

void StyleSheet::Add(std::string_view raw_css) {
  if (css_bytes_ >= kMaxCssBytes) return;
  raw_css = raw_css.substr(0, kMaxCssBytes - css_bytes_);
  css_bytes_ += raw_css.size();
  std::string css = StripCssComments(raw_css);
  std::size_t i = 0;
  while (i < css.size() && rules_ < kMaxCssRules) {
    while (i < css.size() &&
           (IsHtmlSpace(css[i]) || css[i] == '}' || css[i] == ';'))
      ++i;
    if (i >= css.size()) break;
    if (css[i] == '@') {
      // At-rules: @media and @supports apply only conditionally; skip their
      // whole block.
      std::size_t brace = css.find_first_of("{;", i);
      if (brace == std::string::npos) break;
      if (css[brace] == ';') {
        i = brace + 1;
        continue;
      }
      int depth = 0;
      for (i = brace; i < css.size(); ++i) {
        if (css[i] == '{') ++depth;
        if (css[i] == '}' && --depth == 0) break;
      }
      ++i;
      continue;
    }
    std::size_t open = css.find('{', i);
    if (open == std::string::npos) break;
    std::size_t close = css.find('}', open);
    std::string_view selectors(css.data() + i, open - i);
    std::string_view body(
        css.data() + open + 1,
        (close == std::string::npos ? css.size() : close) - open - 1);
    i = close == std::string::npos ? css.size() : close + 1;
    StyleEffect effect = ParseDeclarations(body);
    ++rules_;
    std::size_t s = 0;
    while (s <= selectors.size()) {
      std::size_t comma = selectors.find(',', s);
      std::string_view one = Trim(selectors.substr(
          s, comma == std::string_view::npos ? std::string_view::npos
                                             : comma - s));
      s = comma == std::string_view::npos ? selectors.size() + 1 : comma + 1;
      AddSelector(one, effect);
    }
  }
}

void StyleSheet::Apply(std::string_view tag, std::string_view class_attr,
                       StyleEffect* effect) const {
  if (by_key_.empty()) return;
  Lookup(tag, effect);
  std::size_t i = 0;
  while (i < class_attr.size()) {
    while (i < class_attr.size() && IsHtmlSpace(class_attr[i])) ++i;
    std::size_t end = i;
    while (end < class_attr.size() && !IsHtmlSpace(class_attr[end])) ++end;
    if (end > i) {
      // Quirks mode (most mail has no doctype) matches class names
      // case-insensitively.
      std::string cls = AsciiLower(class_attr.substr(i, end - i));
      Lookup("." + cls, effect);
      Lookup(std::string(tag) + "." + cls, effect);
    }
    i = end;
  }
}

namespace {

bool IsIdent(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return IsAsciiAlpha(c) || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
  });
}

}  // namespace

void StyleSheet::AddSelector(std::string_view selector,
                             const StyleEffect& effect) {
  std::size_t dot = selector.find('.');
  std::string_view tag = selector.substr(0, dot);
  std::string_view cls = dot == std::string_view::npos
                             ? std::string_view()
                             : selector.substr(dot + 1);
  bool ok = dot == std::string_view::npos
                ? IsIdent(tag)
                : (tag.empty() || IsIdent(tag)) && IsIdent(cls);
  if (!ok) return;
  by_key_[AsciiLower(selector)].Merge(effect);
}

void StyleSheet::Lookup(std::string_view key, StyleEffect* effect) const {
  if (auto it = by_key_.find(std::string(key)); it != by_key_.end())
    effect->Merge(it->second);
}

}  // namespace mw::mime::internal
