// Tests for mime/src/css.h: the CSS that hides text.
#include "mime/src/css.h"

#include <gtest/gtest.h>

#include <string>

namespace mw::mime::internal {
namespace {

TEST(Css, ParseDimensionSplitsNumberAndUnit) {
  auto d = ParseDimension("0.5px");
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->first, 0.5);
  EXPECT_EQ(d->second, "px");
  d = ParseDimension("-1000 px ");
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->first, -1000);
  EXPECT_EQ(d->second, "px");
  d = ParseDimension("+50%");
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->first, 50);
  EXPECT_EQ(d->second, "%");
  EXPECT_FALSE(ParseDimension(""));
  EXPECT_FALSE(ParseDimension("-"));
  EXPECT_FALSE(ParseDimension("."));
  EXPECT_FALSE(ParseDimension("1.2.3px"));
  EXPECT_FALSE(ParseDimension(" 1px"));  // callers trim first
  EXPECT_FALSE(ParseDimension("auto"));
}

TEST(Css, FontSizeBelowOnePixelIsZero) {
  EXPECT_EQ(ParseFontSize("0"), FontSize::kZero);
  EXPECT_EQ(ParseFontSize("0.5px"), FontSize::kZero);
  EXPECT_EQ(ParseFontSize("0.7pt"), FontSize::kZero);  // 0.93px
  EXPECT_EQ(ParseFontSize("0.8pt"), FontSize::kAbsolute);
  EXPECT_EQ(ParseFontSize("0.05em"), FontSize::kZero);  // of a 16px parent
  EXPECT_EQ(ParseFontSize("1%"), FontSize::kZero);      // 0.16px
  EXPECT_EQ(ParseFontSize("10%"), FontSize::kRelative);
  EXPECT_EQ(ParseFontSize("14px"), FontSize::kAbsolute);
  EXPECT_EQ(ParseFontSize("x-small"), FontSize::kAbsolute);
  EXPECT_EQ(ParseFontSize("smaller"), FontSize::kRelative);
  EXPECT_EQ(ParseFontSize("-1px"), std::nullopt);
  EXPECT_EQ(ParseFontSize("1furlong"), std::nullopt);
  EXPECT_EQ(ParseFontSize("inherit"), std::nullopt);
}

TEST(Css, Colours) {
  auto rgb = [](std::string_view v) {
    Paint p = ParseCssColour(v);
    return p.known ? p.rgb : Rgb{-1, -1, -1};
  };
  EXPECT_EQ(rgb("#fff"), (Rgb{255, 255, 255}));
  EXPECT_EQ(rgb("#FfFfFf"), (Rgb{255, 255, 255}));
  EXPECT_EQ(rgb("#12345678"), (Rgb{0x12, 0x34, 0x56}));  // alpha ignored
  EXPECT_EQ(rgb("rgb(255, 0, 10)"), (Rgb{255, 0, 10}));
  EXPECT_EQ(rgb("rgba(100% 0% 20% / 0.5)"), (Rgb{255, 0, 51}));
  EXPECT_EQ(rgb("rgb(300,-5,0)"), (Rgb{255, 0, 0}));  // clamped
  EXPECT_EQ(rgb("whitesmoke"), (Rgb{245, 245, 245}));
  EXPECT_FALSE(ParseCssColour("#ggg").known);
  EXPECT_FALSE(ParseCssColour("#12345").known);
  EXPECT_FALSE(ParseCssColour("rgb(1,2").known);  // unterminated
  EXPECT_FALSE(ParseCssColour("rgb(1px,2,3)").known);
  EXPECT_FALSE(ParseCssColour("rebeccapurple").known);  // not listed: unknown
  // Attributes take bare hex digits and any case and spacing.
  EXPECT_EQ(ParseAttributeColour(" FFFFFF ").rgb, (Rgb{255, 255, 255}));
  EXPECT_TRUE(ParseAttributeColour(" FFFFFF ").known);
  EXPECT_EQ(ParseAttributeColour("White").rgb, (Rgb{255, 255, 255}));
  EXPECT_FALSE(ParseAttributeColour("fffff").known);
}

TEST(Css, LooksTheSameWithinTwentyPerChannelAndNeverWhenUnknown) {
  const Paint white{true, {255, 255, 255}};
  EXPECT_TRUE(LooksTheSame({true, {235, 235, 235}}, white));
  EXPECT_FALSE(LooksTheSame({true, {234, 255, 255}}, white));
  EXPECT_FALSE(LooksTheSame(Paint{}, white));
  EXPECT_FALSE(LooksTheSame(white, Paint{}));
}

TEST(Css, BackgroundShorthand) {
  EXPECT_FALSE(ParseBackground("none").has_value());
  EXPECT_FALSE(ParseBackground("transparent none").has_value());
  auto image = ParseBackground("#fff url(x.png) no-repeat");
  ASSERT_TRUE(image);
  EXPECT_FALSE(image->known);  // an image: the backdrop is unknown
  auto gradient = ParseBackground("linear-gradient(red, blue)");
  ASSERT_TRUE(gradient);
  EXPECT_FALSE(gradient->known);
  auto colour = ParseBackground("no-repeat #000000");
  ASSERT_TRUE(colour);
  EXPECT_TRUE(colour->known);
  EXPECT_EQ(colour->rgb, (Rgb{0, 0, 0}));
  auto rgb = ParseBackground("rgb(1, 2, 3) repeat-x");
  ASSERT_TRUE(rgb);
  EXPECT_EQ(rgb->rgb, (Rgb{1, 2, 3}));
  auto keywords = ParseBackground("inherit");
  ASSERT_TRUE(keywords);
  EXPECT_FALSE(keywords->known);
}

TEST(Css, StripCommentsIncludingAnUnterminatedOne) {
  EXPECT_EQ(StripCssComments("a/* x */b"), "a b");
  EXPECT_EQ(StripCssComments("a/**/b/* c */"), "a b ");
  EXPECT_EQ(StripCssComments("a /* never closed; display:none"), "a  ");
  EXPECT_EQ(StripCssComments("/*/ still open */x"), " x");
  EXPECT_EQ(StripCssComments("no comment */"), "no comment */");
}

TEST(Css, DeclarationsHideAndImportantIsIgnored) {
  EXPECT_TRUE(ParseDeclarations("display:none").HidesSubtree());
  EXPECT_TRUE(ParseDeclarations(" DISPLAY : None !important ;").HidesSubtree());
  EXPECT_FALSE(ParseDeclarations("display:none; display:block").HidesSubtree());
  EXPECT_FALSE(ParseDeclarations("display: nonesuch").HidesSubtree());
  EXPECT_TRUE(ParseDeclarations("opacity:0.04").HidesSubtree());
  EXPECT_TRUE(ParseDeclarations("opacity:4%").HidesSubtree());
  EXPECT_FALSE(ParseDeclarations("opacity:0.05").HidesSubtree());
  EXPECT_TRUE(ParseDeclarations("height:0;overflow:hidden").HidesSubtree());
  EXPECT_TRUE(
      ParseDeclarations("max-width:0px;overflow-y:clip").HidesSubtree());
  EXPECT_FALSE(ParseDeclarations("height:0").HidesSubtree());
  EXPECT_FALSE(ParseDeclarations("overflow:hidden").HidesSubtree());
  EXPECT_TRUE(
      ParseDeclarations("position:absolute;left:-9999px").HidesSubtree());
  EXPECT_FALSE(ParseDeclarations("left:-9999px").HidesSubtree());  // static
  EXPECT_FALSE(
      ParseDeclarations("position:absolute;left:-999px").HidesSubtree());
  EXPECT_FALSE(
      ParseDeclarations("position:absolute;left:-100em").HidesSubtree());
  EXPECT_TRUE(ParseDeclarations("text-indent:-1000pt").HidesSubtree());
}

TEST(Css, DeclarationsForInheritedText) {
  StyleEffect e = ParseDeclarations(
      "visibility:hidden; color:transparent; font-size:0; background:#fff");
  EXPECT_EQ(e.invisible, true);
  EXPECT_EQ(e.transparent, true);
  EXPECT_EQ(e.font_size, FontSize::kZero);
  ASSERT_TRUE(e.background);
  EXPECT_EQ(e.background->rgb, (Rgb{255, 255, 255}));
  EXPECT_FALSE(e.HidesSubtree());  // text is hidden, not the box
  EXPECT_EQ(ParseDeclarations("visibility:visible").invisible, false);
  EXPECT_EQ(ParseDeclarations("visibility:collapse").invisible, true);
  EXPECT_FALSE(ParseDeclarations("visibility:inherit").invisible);
  StyleEffect colour = ParseDeclarations("color: #EEE");
  ASSERT_TRUE(colour.colour);
  EXPECT_EQ(colour.colour->rgb, (Rgb{238, 238, 238}));
  EXPECT_EQ(colour.transparent, false);
  EXPECT_FALSE(ParseDeclarations("color:inherit").colour);
  EXPECT_FALSE(ParseDeclarations("background-image:none").background);
  ASSERT_TRUE(ParseDeclarations("background-image:url(x)").background);
  EXPECT_FALSE(ParseDeclarations("background-image:url(x)").background->known);
}

TEST(Css, MalformedDeclarationsAreSkipped) {
  StyleEffect e = ParseDeclarations(";;display;:none;font-size:0;garbage");
  EXPECT_FALSE(e.display_none);
  EXPECT_EQ(e.font_size, FontSize::kZero);
  EXPECT_FALSE(ParseDeclarations("").HidesSubtree());
  // A value that holds a colon keeps it (font-family: "a:b").
  EXPECT_FALSE(ParseDeclarations("font-family:\"a:b\"").HidesSubtree());
}

TEST(Css, MergeLetsLaterDeclarationsWin) {
  StyleEffect e = ParseDeclarations("display:none;font-size:0");
  e.Merge(ParseDeclarations("display:block"));
  EXPECT_EQ(e.display_none, false);
  EXPECT_EQ(e.font_size, FontSize::kZero);  // not declared later: kept
}

StyleEffect Applied(const StyleSheet& sheet, std::string_view tag,
                    std::string_view classes) {
  StyleEffect e;
  sheet.Apply(tag, classes, &e);
  return e;
}

TEST(Css, StyleSheetSimpleSelectors) {
  StyleSheet sheet;
  sheet.Add("p { font-size: 0 } .Hide, span.x{display:none} td.y {}");
  EXPECT_FALSE(sheet.empty());
  EXPECT_EQ(Applied(sheet, "p", "").font_size, FontSize::kZero);
  EXPECT_TRUE(Applied(sheet, "div", "a hide").HidesSubtree());  // any case
  EXPECT_TRUE(Applied(sheet, "span", "x").HidesSubtree());
  EXPECT_FALSE(Applied(sheet, "div", "x").HidesSubtree());  // span.x only
  EXPECT_FALSE(Applied(sheet, "div", "").HidesSubtree());
  EXPECT_FALSE(Applied(sheet, "", "x").HidesSubtree());  // unknown element
}

TEST(Css, StyleSheetIgnoresComplexSelectorsAndAtRules) {
  StyleSheet sheet;
  sheet.Add(
      "div p {display:none} #id {display:none} a:hover {display:none}"
      "[x] {display:none} * {display:none} p > b {display:none}"
      "@media (max-width:600px) { .m {display:none} div {display:none} }"
      "@import url(x.css); .ok {display:none}");
  EXPECT_FALSE(Applied(sheet, "p", "").HidesSubtree());
  EXPECT_FALSE(Applied(sheet, "div", "m").HidesSubtree());
  EXPECT_FALSE(Applied(sheet, "b", "").HidesSubtree());
  EXPECT_TRUE(Applied(sheet, "span", "ok").HidesSubtree());
}

TEST(Css, StyleSheetSurvivesUnterminatedInput) {
  StyleSheet comment;
  comment.Add(".a{display:none} /* .b{display:none}");
  EXPECT_TRUE(Applied(comment, "p", "a").HidesSubtree());
  EXPECT_FALSE(Applied(comment, "p", "b").HidesSubtree());
  StyleSheet block;
  block.Add(".a{display:none");  // the block runs to the end
  EXPECT_TRUE(Applied(block, "p", "a").HidesSubtree());
  StyleSheet at_rule;
  at_rule.Add("@media print { .a{display:none} ");
  EXPECT_TRUE(at_rule.empty());
  StyleSheet no_brace;
  no_brace.Add(".a display:none");
  EXPECT_TRUE(no_brace.empty());
}

TEST(Css, StyleSheetLaterRulesOverrideEarlierOnes) {
  StyleSheet sheet;
  sheet.Add(".a{display:none}");
  sheet.Add(".a{display:block;font-size:0}");
  StyleEffect e = Applied(sheet, "p", "a");
  EXPECT_EQ(e.display_none, false);
  EXPECT_EQ(e.font_size, FontSize::kZero);
}

TEST(Css, StyleSheetStopsAtItsByteLimit) {
  StyleSheet sheet;
  sheet.Add(std::string(kMaxCssBytes - 5, ' ') + ".a{display:none}");
  // Cut after ".a{di": the rule is there, its declaration is not.
  EXPECT_FALSE(Applied(sheet, "p", "a").HidesSubtree());
  sheet.Add(".b{display:none}");  // the budget is spent
  EXPECT_FALSE(Applied(sheet, "p", "b").HidesSubtree());
}

TEST(Css, StyleSheetStopsAtItsRuleLimit) {
  StyleSheet sheet;
  std::string css;
  for (std::size_t i = 0; i < kMaxCssRules; ++i) css += "x{}";
  css += ".late{display:none}";
  sheet.Add(css);
  EXPECT_FALSE(Applied(sheet, "p", "late").HidesSubtree());
}

}  // namespace
}  // namespace mw::mime::internal
