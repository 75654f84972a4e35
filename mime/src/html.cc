// HTML to the text a reader sees (see html.h for the contract).
//
// Why gumbo: Debian's libgumbo is a real HTML5 tree builder. It applies the
// same error recovery as browsers (unclosed and misnested tags, stray end tags,
// <p> inside <p>, foster-parented table content), and spam relies on exactly
// those rules to show one thing to a reader and another to a naive tag
// stripper. It is pure C with no I/O, no network and no global state, and
// small. libxml2's HTML parser is an HTML4-era parser with its own, different
// recovery, so its tree can disagree with what a mail client displays.
//
// Gumbo has no limits of its own, and three of its costs are quadratic on
// hostile input: every start tag scans the stack of open elements (100000
// nested <div>s take about 14 s), every attribute is compared with the earlier
// ones of its tag, and reopening formatting elements can create a node per
// open formatting element per paragraph (a few KB of input, GBs of nodes).
// gumbo_destroy_output also recurses once per tree level. So:
//
// 1. Inputs over kMaxInputBytes are cut (at a UTF-8 boundary) first.
//
// 2. Preparer, our own copy of the HTML5 tokenizer's data, tag, comment and
// script states, re-emits the document for gumbo. Comments are dropped (never
// visible); raw-text content (script, style, textarea, ...) is escaped so
// gumbo cannot see markup in it; a tag keeps at most kMaxAttributes
// attributes; and DepthEstimate, a conservative model of gumbo's stack of open
// elements, drops start tags that would nest deeper than the nesting limit
// plus kDepthSlack (at most kMaxTreeDepth). Since gumbo tokenizes exactly the
// tokens we emit, tokenizer tricks cannot fool the estimate, and its rules
// err towards counting too much. A work counter (sum of the estimated depth
// over all tags) stops passing tags on past kMaxTagWork; text still flows.
//
// 3. Gumbo allocates from an Arena that tracks every block, so the tree is
// freed without recursion (gumbo_destroy_output is never called). Past the
// memory budget or kMaxParseCpuSeconds of thread CPU time, the allocator
// longjmps out of gumbo (only C frames lie between, nothing to unwind),
// everything is freed, and the parse is retried in a cheaper Mode: without
// formatting elements, then with a small depth cap, then text only. The time
// limit is the backstop for tree-builder tricks the estimate does not model
// (a random tag-soup search found several, since fixed); real mail never
// comes near it.
//
// 4. The tree walk uses an explicit stack and skips elements deeper than the
// nesting limit.
//
// What is dropped: head, title, script, style, template, iframe, noembed,
// noframes, datalist, comments (conditional comments such as <!--[if mso]>
// included), and hidden elements with all their descendants: the `hidden`
// attribute; display:none; opacity below 0.05; a zero width, height or
// max-height together with overflow:hidden; off-screen boxes (positioned at a
// left or top of -1000px or less, or a text-indent of -1000px or less). Text is
// also not shown under visibility:hidden/collapse, color:transparent or a font
// size below 1px, but as in CSS those are inherited and a descendant can
// restore them (visibility:visible, font-size:14px): email templates routinely
// set font-size:0 on a container and a real size on its children. Text whose
// colour is within 20 per channel of its backdrop's is not shown either: the
// backdrop is the nearest painted background (bgcolor, background-color,
// background), white by default, and unknown under a background image or
// gradient or a colour we cannot parse, where nothing is hidden; the text
// colour comes from color, <font color> and <body text>, black by default.
// Declarations come from the style attribute and from <style> sheets, for rules
// whose selectors are a single tag, a single class or tag.class (conditional
// @media rules are ignored). What is kept: noscript content (mail clients do
// not run scripts, so they show it; gumbo parses it as script-enabled raw text,
// so Prepare renames it to an unknown inline element), svg and MathML text,
// anchor text (hrefs are not appended: fingerprints must not see per-recipient
// tracking URLs), and img alt text (shown when images are blocked, the default
// of many clients). Not treated as hidden: aria-hidden (screen readers only;
// the text is on screen), mso-hide:all (hidden in Outlook only), <font size=0>
// (browsers clamp it to size 1), and box-shadow, clip-path or z-index tricks.
//
// Layout: block elements (p, div, li, table, h1-h6, ...) are paragraphs
// separated by exactly one blank line; <br> ends a line (two in a row make a
// blank line); table rows are lines and cells are separated by one space.
// Whitespace collapses as in a browser, except inside pre, listing, xmp,
// plaintext and textarea where spaces and line breaks are kept (trailing spaces
// are still trimmed). There are no leading or trailing blank lines and never
// two blank lines in a row. &nbsp; becomes an ordinary space. Gumbo decodes
// entities and replaces invalid UTF-8 with U+FFFD; the result is checked again
// anyway.
#include "html.h"

#include <gumbo.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <csetjmp>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace mw::mime {
namespace {

// Larger HTML parts are cut. Gumbo parses real mail at about 9 MB/s but markup
// that is all tags at 1.2-2 MB/s, so this bounds one parse to about a second
// and a half. Real HTML parts are far smaller (the largest in the development
// corpus is 82 KB).
constexpr std::size_t kMaxInputBytes = 2u << 20;
// Hard ceiling on the element depth gumbo ever sees, whatever nesting limit is
// asked for.
constexpr std::uint32_t kMaxTreeDepth = 1024;
// Extra estimated depth allowed over the nesting limit, so that elements just
// past the limit still reach the tree (and set nesting_limit_hit there) while
// their siblings keep their place.
constexpr std::uint32_t kDepthSlack = 16;
// Gumbo checks each attribute against the earlier ones of the same tag
// (quadratic).
constexpr std::size_t kMaxAttributes = 256;
// Sum of the estimated depth over all tags passed to gumbo; past it only text
// is passed on. Real mail is far below (at most 2 per input byte in the
// development corpus); 30000 nested tags followed by 1 MB of </p> would
// otherwise cost gumbo minutes.
constexpr std::uint64_t kMaxTagWork = 64u << 20;
// Memory gumbo may allocate: a base plus a multiple of the input. Real mail
// needs at most 13x, markup that is all tags ("<p><p>...") about 43x.
constexpr std::size_t kArenaBase = 32u << 20;
constexpr std::size_t kArenaPerInputByte = 48;
// Thread CPU time one gumbo parse may take. Real mail parses at 9-17 MB/s and
// 2 MiB of nothing but tags in about a second; past this the depth estimate
// was fooled, and the parse is abandoned and retried in a cheaper Mode.
constexpr double kMaxParseCpuSeconds = 1.0;
constexpr int kMaxParseAttempts = 6;
// CSS read from <style> elements.
constexpr std::size_t kMaxCssBytes = 1u << 20;
constexpr std::size_t kMaxCssRules = 10000;

bool IsHtmlSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}
bool IsAsciiAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
char AsciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
}
std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}
bool StartsWithNoCase(std::string_view s, std::size_t pos,
                      std::string_view prefix) {
  if (pos > s.size() || s.size() - pos < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (AsciiLower(s[pos + i]) != prefix[i]) return false;
  }
  return true;
}
std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsHtmlSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsHtmlSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Length of the longest prefix of `s` that does not end inside a UTF-8
// sequence.
std::size_t Utf8Boundary(std::string_view s, std::size_t max) {
  if (s.size() <= max) return s.size();
  std::size_t end = max;
  // Step back over at most three continuation bytes to the start of the cut
  // character.
  for (int i = 0;
       i < 3 && end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80;
       ++i) {
    --end;
  }
  return end;
}

// Replaces every invalid UTF-8 sequence with U+FFFD (gumbo already does; this
// is the contract).
std::string ValidUtf8(std::string s) {
  auto valid_at = [&s](std::size_t i) -> std::size_t {
    auto b = [&s](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    if (c < 0x80) return 1;
    std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
      if ((b(i + k) & 0xC0) != 0x80) return 0;
    }
    if (c == 0xE0 && b(i + 1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(i + 1) >= 0xA0) return 0;  // surrogate
    if (c == 0xF0 && b(i + 1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(i + 1) >= 0x90) return 0;  // above U+10FFFF
    return n;
  };
  std::size_t i = 0;
  while (i < s.size() && valid_at(i) != 0) i += valid_at(i);
  if (i == s.size()) return s;
  std::string out = s.substr(0, i);
  while (i < s.size()) {
    std::size_t n = valid_at(i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(s, i, n);
      i += n;
    }
  }
  return out;
}

// ----------------------------------------------------------------------------------------------
// CSS: the few declarations that hide text, from style attributes and simple
// <style> rules.

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

bool LooksTheSame(const Paint& text, const Paint& backdrop) {
  return text.known && backdrop.known &&
         std::abs(text.rgb.r - backdrop.rgb.r) <= kInvisibleChannelDelta &&
         std::abs(text.rgb.g - backdrop.rgb.g) <= kInvisibleChannelDelta &&
         std::abs(text.rgb.b - backdrop.rgb.b) <= kInvisibleChannelDelta;
}

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

// Rules from <style> sheets whose selector is `tag`, `.class` or `tag.class`.
class StyleSheet {
 public:
  void Add(std::string_view raw_css) {
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

  bool empty() const { return by_key_.empty(); }

  // Rules for an element: its tag's, then tag.class and .class rules for each
  // of its classes.
  void Apply(std::string_view tag, std::string_view class_attr,
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

 private:
  static bool IsIdent(std::string_view s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
      return IsAsciiAlpha(c) || (c >= '0' && c <= '9') || c == '-' ||
             c == '_' || static_cast<unsigned char>(c) >= 0x80;
    });
  }
  void AddSelector(std::string_view selector, const StyleEffect& effect) {
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
  void Lookup(std::string_view key, StyleEffect* effect) const {
    if (auto it = by_key_.find(std::string(key)); it != by_key_.end())
      effect->Merge(it->second);
  }

  std::unordered_map<std::string, StyleEffect> by_key_;
  std::size_t css_bytes_ = 0;
  std::size_t rules_ = 0;
};

// ----------------------------------------------------------------------------------------------
// Prepare: re-tokenize for gumbo with the guards described at the top of the
// file.

enum class TagKind {
  kVoid,
  kUncounted,
  kFormatting,
  kSpecial,
  kBoundary,
  kOrdinary
};

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

// Estimates the depth of gumbo's stack of open elements from the tag sequence,
// erring high.
//
// Counted elements are kept on a stack of names. An end tag pops it only where
// the tree builder certainly pops at least as much: a special element's end tag
// is ignored across a scope boundary (table, object, ...), other end tags
// across any special element (HTML5 "any other end tag"), and a formatting
// element with a special element above it is not popped at all (the adoption
// agency keeps the depth). </form> removes only the form. Formatting elements
// popped implicitly stay counted as "latent" until their own end tag: the tree
// builder reopens them at the next text, and a reopened element stays open
// ("Noah's Ark" limits the list of formatting elements to three alike, not
// the stack: <div><i></div>x repeated nests one more <i> each time).
class DepthEstimate {
 public:
  explicit DepthEstimate(std::uint32_t cap) : cap_(cap) {}

  std::size_t Depth() const { return stack_.size() + latent_.size(); }

  // Returns false when the start tag would nest too deep and must be dropped.
  bool Start(const std::string& name) {
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

  void End(const std::string& name) {
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

 private:
  // <li> closes the nearest open li (<dd>/<dt> the nearest dd or dt) unless a
  // special element other than address, div or p lies above it (HTML5 "in
  // body"); the popped formatting elements become latent.
  void CloseListItem(const std::string& name) {
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

  // Pops the stack down to and including `target`.
  void PopTo(std::size_t target) {
    while (stack_.size() > target + 1) {
      if (stack_.back().kind == TagKind::kFormatting) {
        AddLatent(stack_.back().name);
      }
      Erase(stack_.size() - 1);
    }
    Erase(target);
  }

  bool InForeign() const {
    auto open = [this](const char* name) {
      auto it = open_count_.find(name);
      return it != open_count_.end() && it->second > 0;
    };
    return open("svg") || open("math");
  }

  struct Entry {
    std::string name;
    TagKind kind;
  };
  void Erase(std::size_t i) {
    --open_count_[stack_[i].name];
    stack_.erase(stack_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  void AddLatent(const std::string& name) { latent_.push_back(name); }
  void RemoveLatent(const std::string& name) {
    for (std::size_t i = latent_.size(); i > 0; --i) {
      if (latent_[i - 1] == name) {
        latent_.erase(latent_.begin() + static_cast<std::ptrdiff_t>(i - 1));
        return;
      }
    }
  }

  std::uint32_t cap_;
  std::vector<Entry> stack_;
  std::unordered_map<std::string, std::size_t> open_count_;
  std::vector<std::string>
      latent_;  // at most cap_ entries: pops move, never add, depth
};

// How much of the markup gumbo gets. Each failed parse (memory or time) moves
// to a cheaper mode; the last one is linear in the input whatever it holds.
enum class Mode {
  kFull,
  kNoFormatting,  // formatting elements (b, i, font, ...) dropped: the tree
                  // builder reopens those, the only way few bytes make many
                  // nodes
  kShallow,       // also a depth cap of kShallowDepth
  kTextOnly,      // no elements at all; block tags become paragraph breaks
                  // (hidden text can no longer be recognised)
};
constexpr std::uint32_t kShallowDepth = 32;

struct Prepared {
  std::string html;
  StyleSheet styles;
  bool depth_cut = false;  // start tags were dropped by the depth estimate
  bool work_cut = false;   // tags were dropped by the work limit
};

class Preparer {
 public:
  // `mode` says which tags are passed on (see Mode).
  // passed on.
  Preparer(std::string_view in, std::uint32_t depth_cap, Mode mode)
      : in_(in),
        depth_(mode >= Mode::kShallow ? std::min(depth_cap, kShallowDepth)
                                      : depth_cap),
        mode_(mode) {
    out_.html.reserve(in.size() + in.size() / 16 + 64);
  }

  Prepared Run() && {
    std::size_t i = 0;
    const std::size_t n = in_.size();
    while (i < n) {
      std::size_t lt = in_.find('<', i);
      if (lt == std::string_view::npos) {
        out_.html.append(in_.substr(i));
        break;
      }
      out_.html.append(in_.substr(i, lt - i));
      i = lt;
      char next = i + 1 < n ? in_[i + 1] : '\0';
      if (IsAsciiAlpha(next)) {
        i = StartTag(i);
      } else if (next == '/' && i + 2 < n && IsAsciiAlpha(in_[i + 2])) {
        i = EndTag(i).first;
      } else if (next == '/' && i + 2 < n && in_[i + 2] == '>') {
        i += 3;  // "</>" is ignored
      } else if (next == '/' && i + 2 < n) {
        i = SkipTo('>', i + 2);  // bogus comment
      } else if (next == '!' && in_.compare(i, 4, "<!--") == 0) {
        i = SkipComment(i + 4);
      } else if (next == '!' && StartsWithNoCase(in_, i + 2, "doctype")) {
        std::size_t end = SkipTo('>', i);
        if (end <= n && in_[end - 1] == '>')
          out_.html.append(in_.substr(i, end - i));
        i = end;
      } else if (next == '!' || next == '?') {
        i = SkipTo(
            '>',
            i + 2);  // bogus comment (CDATA outside foreign content included)
      } else {
        out_.html += "&lt;";  // a '<' that starts no tag is text
        ++i;
      }
    }
    return std::move(out_);
  }

 private:
  struct Tag {
    std::size_t
        end;  // just past '>', or npos at end of input (the tag is dropped)
    std::size_t name_end;   // end of the tag name
    std::size_t attrs_end;  // where the kept attributes end
    std::string name;       // lower-case
  };

  // Index just past the next `c` at or after `from` (end of input if none).
  std::size_t SkipTo(char c, std::size_t from) const {
    std::size_t k = in_.find(c, from);
    return k == std::string_view::npos ? in_.size() : k + 1;
  }

  // From just after "<!--": returns the index after the comment's end, as the
  // HTML5 comment states find it: "-->", "--!>", and the abrupt "<!-->" and
  // "<!--->".
  std::size_t SkipComment(std::size_t j) const {
    if (j < in_.size() && in_[j] == '>') return j + 1;
    if (in_.compare(j, 2, "->") == 0) return j + 2;
    while (true) {
      std::size_t k = in_.find("--", j);
      if (k == std::string_view::npos) return in_.size();
      if (k + 2 < in_.size() && in_[k + 2] == '>') return k + 3;
      if (in_.compare(k + 2, 2, "!>") == 0) return k + 4;
      j = k + 1;
    }
  }

  // Tokenizes a tag starting at `lt` ("<name" or "</name") like the HTML5 tag
  // and attribute states: a '>' inside a quoted attribute value does not end
  // it.
  Tag ParseTag(std::size_t lt) const {
    const std::size_t n = in_.size();
    Tag tag;
    std::size_t p = lt + 1;
    if (in_[p] == '/') ++p;
    std::size_t name_start = p;
    while (p < n && !IsHtmlSpace(in_[p]) && in_[p] != '/' && in_[p] != '>') ++p;
    tag.name = AsciiLower(in_.substr(name_start, p - name_start));
    tag.name_end = p;
    tag.attrs_end = std::string_view::npos;
    std::size_t attributes = 0;
    while (true) {
      while (p < n && (IsHtmlSpace(in_[p]) || in_[p] == '/')) ++p;
      if (p >= n) break;
      if (in_[p] == '>') {
        tag.end = p + 1;
        if (tag.attrs_end == std::string_view::npos) tag.attrs_end = p;
        return tag;
      }
      if (++attributes > kMaxAttributes &&
          tag.attrs_end == std::string_view::npos) {
        tag.attrs_end = p;
      }
      ++p;  // the first character of a name may be '='
      while (p < n && !IsHtmlSpace(in_[p]) && in_[p] != '/' && in_[p] != '>' &&
             in_[p] != '=') {
        ++p;
      }
      while (p < n && IsHtmlSpace(in_[p])) ++p;
      if (p < n && in_[p] == '=') {
        ++p;
        while (p < n && IsHtmlSpace(in_[p])) ++p;
        if (p < n && (in_[p] == '"' || in_[p] == '\'')) {
          std::size_t close = in_.find(in_[p], p + 1);
          if (close == std::string_view::npos) break;
          p = close + 1;
        } else {
          while (p < n && !IsHtmlSpace(in_[p]) && in_[p] != '>') ++p;
        }
      }
    }
    tag.end = std::string_view::npos;  // end of input inside a tag: the tag is
                                       // dropped
    return tag;
  }

  // Gumbo parses noscript as script-enabled raw text; mail clients show its
  // markup. xmp and plaintext are raw text too; as pre they keep their layout
  // and their escaped text decodes.
  static std::string_view Rename(const std::string& name) {
    if (name == "noscript") return "mw-noscript";
    if (name == "xmp" || name == "plaintext") return "pre";
    return name;
  }

  void EmitTag(std::size_t lt, const Tag& tag, bool end_tag) {
    out_.html += end_tag ? "</" : "<";
    out_.html += Rename(tag.name);
    out_.html.append(in_.substr(tag.name_end, tag.attrs_end - tag.name_end));
    out_.html += '>';
    (void)lt;
  }

  // Charges a tag to the work limit; false once the limit is spent.
  bool ChargeWork() {
    work_ += depth_.Depth() + 1;
    if (work_ > kMaxTagWork) out_.work_cut = true;
    return !out_.work_cut;
  }

  // Returns the index after the end tag and whether it was passed to gumbo.
  std::pair<std::size_t, bool> EndTag(std::size_t lt) {
    Tag tag = ParseTag(lt);
    if (tag.end == std::string_view::npos) return {in_.size(), false};
    if (mode_ == Mode::kTextOnly) {
      EmitTextOnly(tag.name);
      return {tag.end, false};
    }
    if (Dropped(tag.name) || !ChargeWork()) return {tag.end, false};
    depth_.End(tag.name);
    EmitTag(lt, tag, true);
    return {tag.end, true};
  }

  std::size_t StartTag(std::size_t lt) {
    Tag tag = ParseTag(lt);
    if (tag.end == std::string_view::npos) return in_.size();
    const std::string& name = tag.name;
    if (Dropped(name)) return tag.end;
    bool keep = mode_ != Mode::kTextOnly && ChargeWork();
    if (mode_ == Mode::kTextOnly) EmitTextOnly(name);
    if (keep && !depth_.Start(name)) {
      keep = false;
      out_.depth_cut = true;
    }
    if (keep) EmitTag(lt, tag, false);

    // Raw text: find where the tokenizer would end it, and escape it so gumbo
    // sees only text.
    bool rcdata_or_rawtext = name == "script" || name == "style" ||
                             name == "title" || name == "textarea" ||
                             name == "iframe" || name == "noembed" ||
                             name == "noframes" || name == "xmp";
    if (name == "plaintext") {
      AppendEscaped(in_.substr(tag.end), true);
      return in_.size();
    }
    if (!rcdata_or_rawtext) return tag.end;
    std::size_t close =
        name == "script" ? ScriptEnd(tag.end) : RawTextEnd(tag.end, name);
    std::string_view content = in_.substr(tag.end, close - tag.end);
    if (name == "style") out_.styles.Add(content);
    // A dropped element's content is still passed on when it is visible text.
    if (keep || name == "textarea" || name == "xmp")
      AppendEscaped(content, true);
    if (close == in_.size()) return close;
    auto [after, emitted] = EndTag(close);
    if (keep && !emitted) {
      out_.html += "</";  // the element was opened, so it must be closed
      out_.html += Rename(name);
      out_.html += '>';
    }
    return after;
  }

  void AppendEscaped(std::string_view text, bool escape_lt) {
    std::size_t i = 0;
    while (i < text.size()) {
      std::size_t lt = escape_lt ? text.find('<', i) : std::string_view::npos;
      if (lt == std::string_view::npos) {
        out_.html.append(text.substr(i));
        return;
      }
      out_.html.append(text.substr(i, lt - i));
      out_.html += "&lt;";
      i = lt + 1;
    }
  }

  // "</name" followed by whitespace, '/' or '>' (an "appropriate end tag").
  bool IsEndTagOf(std::size_t k, std::string_view name) const {
    if (in_.compare(k, 2, "</") != 0 || !StartsWithNoCase(in_, k + 2, name))
      return false;
    std::size_t after = k + 2 + name.size();
    return after < in_.size() &&
           (IsHtmlSpace(in_[after]) || in_[after] == '/' || in_[after] == '>');
  }

  std::size_t RawTextEnd(std::size_t from, std::string_view name) const {
    for (std::size_t k = in_.find("</", from); k != std::string_view::npos;
         k = in_.find("</", k + 1)) {
      if (IsEndTagOf(k, name)) return k;
    }
    return in_.size();
  }

  // Script data with its escaped and double-escaped states: inside "<!--", a
  // "<script" starts a region where "</script" does not end the element.
  std::size_t ScriptEnd(std::size_t from) const {
    enum { kData, kEscaped, kDouble } state = kData;
    std::size_t k = from;
    const std::size_t n = in_.size();
    while (k < n) {
      if (state == kData) {
        std::size_t lt = in_.find('<', k);
        if (lt == std::string_view::npos) return n;
        k = lt;
        if (in_.compare(k, 4, "<!--") == 0) {
          state = kEscaped;
          k += 2;  // the "--" of "<!--" may also begin "-->"
          continue;
        }
        if (IsEndTagOf(k, "script")) return k;
        ++k;
        continue;
      }
      if (in_.compare(k, 3, "-->") == 0) {
        state = kData;
        k += 3;
        continue;
      }
      if (state == kEscaped) {
        if (IsEndTagOf(k, "script")) return k;
        if (in_[k] == '<' && StartsWithNoCase(in_, k + 1, "script") &&
            k + 7 < n &&
            (IsHtmlSpace(in_[k + 7]) || in_[k + 7] == '/' ||
             in_[k + 7] == '>')) {
          state = kDouble;
          k += 7;
          continue;
        }
      } else if (IsEndTagOf(k, "script")) {
        state = kEscaped;
        k += 8;
        continue;
      }
      ++k;
    }
    return n;
  }

  bool Dropped(const std::string& name) const {
    return mode_ >= Mode::kNoFormatting && mode_ != Mode::kTextOnly &&
           KindOf(name) == TagKind::kFormatting;
  }

  // Text-only mode: block-level tags become paragraph breaks, <br> stays.
  void EmitTextOnly(const std::string& name) {
    static const std::unordered_set<std::string_view> kBlocks = {
        "address", "article", "aside",   "blockquote", "center", "dd", "div",
        "dl",      "dt",      "footer",  "form",       "h1",     "h2", "h3",
        "h4",      "h5",      "h6",      "header",     "hr",     "li", "ol",
        "p",       "pre",     "section", "table",      "tr",     "ul"};
    if (name == "br") {
      out_.html += "<br>";
    } else if (name == "td" || name == "th") {
      out_.html += ' ';
    } else if (kBlocks.contains(name)) {
      out_.html += "<p>";
    }
  }

  std::string_view in_;
  DepthEstimate depth_;
  Mode mode_;
  Prepared out_;
  std::uint64_t work_ = 0;
};

// ----------------------------------------------------------------------------------------------
// Gumbo memory: every block is tracked so the whole tree is freed without
// recursion, and budgets bound the memory and CPU time one parse may take.

class Arena {
 public:
  // Gumbo may allocate `budget` bytes and run for `cpu_seconds` of this
  // thread's CPU time (checked every kClockEvery allocations: every tag the
  // tree builder handles allocates, and its costly loops run per tag).
  Arena(std::size_t budget, double cpu_seconds)
      : budget_(budget), cpu_seconds_(cpu_seconds) {
    head_.prev = head_.next = &head_;
  }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() { FreeAll(); }

  void FreeAll() {
    Header* h = head_.next;
    while (h != &head_) {
      Header* next = h->next;
      std::free(h);
      h = next;
    }
    head_.prev = head_.next = &head_;
    used_ = 0;
  }

  // Parses with this arena; nullptr when the memory or time budget ran out
  // (everything allocated is freed; timed_out() says which).
  bool timed_out() const { return timed_out_; }

  GumboOutput* Parse(std::string_view html) {
    deadline_ = ThreadCpuSeconds() + cpu_seconds_;
    GumboOptions options = kGumboDefaultOptions;
    options.allocator = &Arena::Allocate;
    options.deallocator = &Arena::Deallocate;
    options.userdata = this;
    options.max_errors = 0;  // the error list is never read; do not build it
    return ParseOrEscape(&options, html);
  }

 private:
  static constexpr std::uint64_t kClockEvery = 256;

  // CPU time of the calling thread: unlike wall time, not stretched by load.
  static double ThreadCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) +
           static_cast<double>(ts.tv_nsec) * 1e-9;
  }

  struct alignas(alignof(std::max_align_t)) Header {
    Header* prev;
    Header* next;
    std::size_t size;
  };

  // setjmp/longjmp across gumbo: only C frames and Allocate lie between them,
  // and nothing with a destructor lives in this frame, so the jump skips no
  // cleanup ([csetjmp.syn]).
  GumboOutput* ParseOrEscape(const GumboOptions* options,
                             std::string_view html) {
    escape_ = &env_;
    if (setjmp(env_) != 0) {
      escape_ = nullptr;
      FreeAll();
      return nullptr;
    }
    GumboOutput* output =
        gumbo_parse_with_options(options, html.data(), html.size());
    escape_ = nullptr;
    return output;
  }

  static void* Allocate(void* userdata, std::size_t size) {
    auto* arena = static_cast<Arena*>(userdata);
    if (arena->used_ + size > arena->budget_) std::longjmp(*arena->escape_, 1);
    if (++arena->allocations_ % kClockEvery == 0 &&
        ThreadCpuSeconds() > arena->deadline_) {
      arena->timed_out_ = true;
      std::longjmp(*arena->escape_, 1);
    }
    auto* h = static_cast<Header*>(std::malloc(sizeof(Header) + size));
    if (h == nullptr) std::longjmp(*arena->escape_, 1);
    h->size = size;
    h->prev = &arena->head_;
    h->next = arena->head_.next;
    h->next->prev = h;
    arena->head_.next = h;
    arena->used_ += size;
    return h + 1;
  }

  static void Deallocate(void* userdata, void* ptr) {
    if (ptr == nullptr) return;
    auto* arena = static_cast<Arena*>(userdata);
    Header* h = static_cast<Header*>(ptr) - 1;
    h->prev->next = h->next;
    h->next->prev = h->prev;
    arena->used_ -= h->size;
    std::free(h);
  }

  Header head_{};
  std::size_t used_ = 0;
  std::size_t budget_;
  std::jmp_buf env_;
  std::jmp_buf* escape_ = nullptr;
  double cpu_seconds_;
  double deadline_ = 0;
  bool timed_out_ = false;
  std::uint64_t allocations_ = 0;
};

// ----------------------------------------------------------------------------------------------
// Text output with paragraph, line and space rules.

class TextBuilder {
 public:
  // Inline text; whitespace runs collapse to one space, &nbsp; included.
  void Inline(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
      if (IsHtmlSpace(s[i])) {
        pending_space_ = true;
        ++i;
        continue;
      }
      if (s.compare(i, 2, "\xC2\xA0") == 0) {
        pending_space_ = true;
        i += 2;
        continue;
      }
      std::size_t end = i + 1;
      while (end < s.size() && !IsHtmlSpace(s[end]) &&
             s.compare(end, 2, "\xC2\xA0") != 0)
        ++end;
      Flush();
      out_.append(s.substr(i, end - i));
      i = end;
    }
  }

  // Preformatted text: spaces and line breaks are kept (trailing spaces are
  // trimmed).
  void Preformatted(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\n') {
        if (!out_.empty()) LineBreak();
        continue;
      }
      Flush();
      if (s.compare(i, 2, "\xC2\xA0") == 0) {  // &nbsp;, as in Inline
        out_ += ' ';
        ++i;
        continue;
      }
      out_ += s[i];
    }
  }

  void Space() { pending_space_ = true; }
  void Paragraph() { pending_break_ = 2; }
  void Line() { pending_break_ = std::max(pending_break_, 1); }
  void LineBreak() { pending_break_ = std::min(2, pending_break_ + 1); }

  std::string Finish() {
    while (!out_.empty() && (out_.back() == ' ' || out_.back() == '\n'))
      out_.pop_back();
    return std::move(out_);
  }

 private:
  void Flush() {
    if (out_.empty()) {
      pending_break_ = 0;
      pending_space_ = false;
      return;
    }
    if (pending_break_ > 0) {
      while (!out_.empty() && out_.back() == ' ') out_.pop_back();
      int have = 0;
      for (std::size_t k = out_.size();
           k > 0 && have < 2 && out_[k - 1] == '\n'; --k)
        ++have;
      for (int k = have; k < pending_break_; ++k) out_ += '\n';
      pending_break_ = 0;
      pending_space_ = false;
      return;
    }
    if (pending_space_) {
      if (out_.back() != ' ' && out_.back() != '\n') out_ += ' ';
      pending_space_ = false;
    }
  }

  std::string out_;
  int pending_break_ =
      0;  // 1: line break, 2: paragraph break, before the next text
  bool pending_space_ = false;
};

// ----------------------------------------------------------------------------------------------
// The tree walk.

enum class Layout { kInline, kBlock, kLine, kCell, kDrop };

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

class Walker {
 public:
  Walker(const StyleSheet& styles, std::uint32_t nesting_limit)
      : styles_(styles), limit_(nesting_limit) {}

  bool nesting_limit_hit() const { return nesting_limit_hit_; }

  std::string Walk(const GumboNode* document) {
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
          if (!state.Shows()) break;
          if (state.pre) {
            text_.Preformatted(child->v.text.text);
          } else {
            text_.Inline(child->v.text.text);
          }
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
          if (!Enter(child->v.element, &state, &layout)) break;
          stack.push_back({child, 0, state, layout, depth});
          break;
        }
        default:  // comments, and template contents (GUMBO_NODE_TEMPLATE)
          break;
      }
    }
    return text_.Finish();
  }

 private:
  // Computes the element's state and opens its layout; false when it and its
  // subtree are skipped.
  bool Enter(const GumboElement& element, Inherited* state, Layout* layout) {
    *layout = LayoutOf(element.tag);
    if (*layout == Layout::kDrop) return false;
    if (gumbo_get_attribute(&element.attributes, "hidden") != nullptr)
      return false;
    StyleEffect effect;
    // Presentational attributes first: style sheets and style attributes
    // override them.
    if (const GumboAttribute* bg =
            gumbo_get_attribute(&element.attributes, "bgcolor")) {
      effect.background = ParseAttributeColour(bg->value);
    }
    if (gumbo_get_attribute(&element.attributes, "background") != nullptr) {
      effect.background = Paint{};  // an image: the backdrop is unknown
    }
    if (element.tag == GUMBO_TAG_FONT || element.tag == GUMBO_TAG_BODY) {
      if (const GumboAttribute* colour = gumbo_get_attribute(
              &element.attributes,
              element.tag == GUMBO_TAG_FONT ? "color" : "text")) {
        effect.colour = ParseAttributeColour(colour->value);
      }
    }
    if (!styles_.empty()) {
      std::string_view tag = element.tag == GUMBO_TAG_UNKNOWN
                                 ? std::string_view()
                                 : gumbo_normalized_tagname(element.tag);
      const GumboAttribute* cls =
          gumbo_get_attribute(&element.attributes, "class");
      styles_.Apply(tag, cls != nullptr ? cls->value : "", &effect);
    }
    if (const GumboAttribute* style =
            gumbo_get_attribute(&element.attributes, "style")) {
      effect.Merge(ParseDeclarations(StripCssComments(style->value)));
    }
    if (effect.HidesSubtree()) return false;
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
    if (IsPreformatted(element.tag)) state->pre = true;
    Open(*layout);
    if (element.tag == GUMBO_TAG_BR) text_.LineBreak();
    if (element.tag == GUMBO_TAG_IMG && state->Shows()) {
      if (const GumboAttribute* alt =
              gumbo_get_attribute(&element.attributes, "alt")) {
        text_.Inline(alt->value);
      }
    }
    return true;
  }

  void Open(Layout layout) { Close(layout); }  // the same break before as after

  void Close(Layout layout) {
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

  const StyleSheet& styles_;
  std::uint32_t limit_;
  TextBuilder text_;
  bool nesting_limit_hit_ = false;
};

}  // namespace

HtmlText HtmlToText(std::string_view html, std::uint32_t nesting_limit,
                    const Budget& budget) {
  HtmlText result;
  if (html.size() > kMaxInputBytes) {
    html = html.substr(0, Utf8Boundary(html, kMaxInputBytes));
    result.input_truncated = true;
  }
  std::uint32_t depth_cap =
      std::min(nesting_limit, kMaxTreeDepth) + kDepthSlack;
  Mode mode = Mode::kFull;
  for (int attempt = 0; attempt < kMaxParseAttempts; ++attempt) {
    Prepared prepared = Preparer(html, depth_cap, mode).Run();
    result.nesting_limit_hit |= prepared.depth_cut;
    result.input_truncated |= prepared.work_cut;
    // Each attempt gets no more CPU time than the message has left, so the
    // retries cannot add up past the message's budget.
    const double left = std::chrono::duration<double>(budget.CpuLeft()).count();
    if (left <= 0) break;
    Arena arena(kArenaBase + kArenaPerInputByte * prepared.html.size(),
                std::min(kMaxParseCpuSeconds, left));
    GumboOutput* output = arena.Parse(prepared.html);
    if (output == nullptr) {
      // Over the memory or time budget: retry in a cheaper mode, and once
      // text-only fails too (it should not), on half the input.
      result.input_truncated = true;
      if (mode == Mode::kTextOnly) {
        html = html.substr(0, Utf8Boundary(html, html.size() / 2));
      } else if (arena.timed_out() && mode < Mode::kShallow) {
        mode = Mode::kShallow;  // dropping formatting saves memory, not time
      } else {
        mode = static_cast<Mode>(static_cast<int>(mode) + 1);
      }
      continue;
    }
    Walker walker(prepared.styles, nesting_limit);
    result.text = ValidUtf8(walker.Walk(output->document));
    result.nesting_limit_hit |= walker.nesting_limit_hit();
    return result;
  }
  result.input_truncated = true;
  return result;
}

}  // namespace mw::mime
