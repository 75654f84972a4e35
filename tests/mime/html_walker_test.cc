// Tests for mime/src/html_walker.h: the walk over a gumbo tree. Trees come
// from plain gumbo here, so these tests see the walker without Prepare.
#include "mime/src/html_walker.h"

#include <gtest/gtest.h>
#include <gumbo.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tests/mime/gumbo_oracle.h"

namespace mw::mime::internal {
namespace {

std::string Walk(std::string_view html, const StyleSheet& styles = {},
                 std::uint32_t limit = 512, bool* limit_hit = nullptr) {
  testing::GumboParse parsed(html);
  Walker walker(styles, limit);
  std::string text = walker.Walk(parsed.output().document);
  if (limit_hit != nullptr) *limit_hit = walker.nesting_limit_hit();
  return text;
}

TEST(HtmlWalker, LayoutOfTags) {
  EXPECT_EQ(LayoutOf(GUMBO_TAG_SCRIPT), Layout::kDrop);
  EXPECT_EQ(LayoutOf(GUMBO_TAG_DIV), Layout::kBlock);
  EXPECT_EQ(LayoutOf(GUMBO_TAG_TR), Layout::kLine);
  EXPECT_EQ(LayoutOf(GUMBO_TAG_TD), Layout::kCell);
  EXPECT_EQ(LayoutOf(GUMBO_TAG_SPAN), Layout::kInline);
  EXPECT_EQ(LayoutOf(GUMBO_TAG_UNKNOWN), Layout::kInline);
  EXPECT_TRUE(IsPreformatted(GUMBO_TAG_PRE));
  EXPECT_FALSE(IsPreformatted(GUMBO_TAG_CODE));
}

TEST(HtmlWalker, BlocksLinesAndCells) {
  EXPECT_EQ(Walk("<p>a</p><p>b</p><div>c<br>d</div>"), "a\n\nb\n\nc\nd");
  EXPECT_EQ(Walk("<table><tr><td>a</td><td>b</td></tr><tr><td>c</table>"),
            "a b\nc");
  EXPECT_EQ(Walk("x<span> y </span>z"), "x y z");
}

TEST(HtmlWalker, DroppedElements) {
  EXPECT_EQ(Walk("<head><title>T</title><style>p{}</style></head>"
                 "<body>a<script>s()</script><template>t</template>"
                 "<iframe>f</iframe>b"),
            "ab");
  EXPECT_EQ(Walk("a<!-- c -->b"), "ab");
}

TEST(HtmlWalker, HiddenAttributeAndInlineStyles) {
  // A hidden element leaves nothing, not even its paragraph break.
  EXPECT_EQ(Walk("a<div hidden>x</div><span style='display:none'>y</span>b"),
            "ab");
  EXPECT_EQ(Walk("<span style='font-size:0'>x<b style='font-size:14px'>y</b>"
                 "</span>"),
            "y");
  EXPECT_EQ(
      Walk("<div style='visibility:hidden'>x<p style='visibility:visible'>y"),
      "y");
  EXPECT_EQ(Walk("<span style='color:transparent'>x</span>y"), "y");
  EXPECT_EQ(Walk("<span style='/* c */display:none'>x</span>y"), "y");
}

TEST(HtmlWalker, ColourOnItsBackdrop) {
  EXPECT_EQ(Walk("<font color=#fefefe>x</font>y"), "y");  // white on white
  EXPECT_EQ(Walk("<body text=white>x"), "");
  EXPECT_EQ(Walk("<div bgcolor=black><font color=white>x</font></div>"), "x");
  EXPECT_EQ(
      Walk("<div style='background:url(a.png)'><font color=white>x</font>"),
      "x");  // unknown backdrop: shown
  EXPECT_EQ(Walk("<table><tr><td background=a.png><font color=white>x</font>"),
            "x");
}

TEST(HtmlWalker, StyleSheetRulesApply) {
  StyleSheet sheet;
  sheet.Add(".h{display:none} p{font-size:0}");
  EXPECT_EQ(Walk("<div class=h>x</div><span>y</span><p>z</p>", sheet), "y");
  // The style attribute overrides the sheet.
  EXPECT_EQ(Walk("<div class=h style='display:block'>x</div>", sheet), "x");
}

TEST(HtmlWalker, ImageAltTextShowsWhenVisible) {
  EXPECT_EQ(Walk("a<img alt='Sale'>b"), "aSaleb");
  EXPECT_EQ(Walk("<span style='font-size:0'><img alt='x'></span>y"), "y");
}

TEST(HtmlWalker, PreformattedKeepsLayout) {
  EXPECT_EQ(Walk("<pre>a  b\n c</pre>d"), "a  b\n c\n\nd");
}

TEST(HtmlWalker, NestingLimitSkipsDeepElementsButKeepsTheirBreaks) {
  // html(1) body(2) div(3) div(4) p(5)
  bool hit = false;
  EXPECT_EQ(Walk("<div>a<div>b<p>deep</p>c</div>d</div>", {}, 4, &hit),
            "a\n\nb\n\nc\n\nd");
  EXPECT_TRUE(hit);
  EXPECT_EQ(Walk("<div>a<div>b<p>deep</p>c</div>d</div>", {}, 5, &hit),
            "a\n\nb\n\ndeep\n\nc\n\nd");
  EXPECT_FALSE(hit);
}

TEST(HtmlWalker, DeepTreeNeedsNoRecursion) {
  std::string html;
  for (int i = 0; i < 3000; ++i) html += "<span>";
  html += "x";
  EXPECT_EQ(Walk(html, {}, 100000), "x");
}

}  // namespace
}  // namespace mw::mime::internal
