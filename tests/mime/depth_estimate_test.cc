// Tests for mime/src/depth_estimate.h: the model of gumbo's open elements.
#include "mime/src/depth_estimate.h"

#include <gtest/gtest.h>

#include <string>

namespace mw::mime::internal {
namespace {

TEST(DepthEstimate, KindsOfTags) {
  EXPECT_EQ(KindOf("br"), TagKind::kVoid);
  EXPECT_EQ(KindOf("p"), TagKind::kUncounted);
  EXPECT_EQ(KindOf("b"), TagKind::kFormatting);
  EXPECT_EQ(KindOf("table"), TagKind::kBoundary);
  EXPECT_EQ(KindOf("div"), TagKind::kSpecial);
  EXPECT_EQ(KindOf("span"), TagKind::kOrdinary);
  EXPECT_EQ(KindOf("my-element"), TagKind::kOrdinary);
}

TEST(DepthEstimate, CountsNestingAndPopsOnEndTags) {
  DepthEstimate d(100);
  EXPECT_TRUE(d.Start("div"));
  EXPECT_TRUE(d.Start("span"));
  EXPECT_EQ(d.Depth(), 2u);
  d.End("span");
  EXPECT_EQ(d.Depth(), 1u);
  d.End("div");
  EXPECT_EQ(d.Depth(), 0u);
  d.End("div");  // not open: nothing happens
  EXPECT_EQ(d.Depth(), 0u);
}

TEST(DepthEstimate, VoidAndUncountedElementsDoNotCount) {
  DepthEstimate d(1);
  for (const char* name : {"html", "body", "p", "br", "img", "tr", "td"})
    EXPECT_TRUE(d.Start(name)) << name;
  EXPECT_EQ(d.Depth(), 0u);
}

TEST(DepthEstimate, RefusesPastTheCap) {
  DepthEstimate d(3);
  EXPECT_TRUE(d.Start("div"));
  EXPECT_TRUE(d.Start("div"));
  EXPECT_TRUE(d.Start("span"));
  EXPECT_FALSE(d.Start("div"));
  EXPECT_EQ(d.Depth(), 3u);
  d.End("span");
  EXPECT_TRUE(d.Start("em"));
}

TEST(DepthEstimate, EndTagClosesEverythingAboveIt) {
  DepthEstimate d(100);
  d.Start("div");
  d.Start("span");
  d.Start("span");
  d.End("div");
  EXPECT_EQ(d.Depth(), 0u);
}

TEST(DepthEstimate, OrdinaryEndTagIsIgnoredAcrossASpecialElement) {
  // HTML5 "any other end tag": </span> stops at the special div.
  DepthEstimate d(100);
  d.Start("span");
  d.Start("div");
  d.End("span");
  EXPECT_EQ(d.Depth(), 2u);
}

TEST(DepthEstimate, EndTagIsIgnoredAcrossAScopeBoundary) {
  DepthEstimate d(100);
  d.Start("div");
  d.Start("table");
  d.End("div");  // not in scope: the table stays open, and so does the div
  EXPECT_EQ(d.Depth(), 2u);
  d.End("table");
  d.End("div");
  EXPECT_EQ(d.Depth(), 0u);
}

TEST(DepthEstimate, ImplicitlyClosedFormattingElementsStayCounted) {
  // <div><i></div>: the tree builder reopens the <i> at the next text, so it
  // still counts until its own end tag.
  DepthEstimate d(100);
  d.Start("div");
  d.Start("i");
  d.End("div");
  EXPECT_EQ(d.Depth(), 1u);
  d.End("i");
  EXPECT_EQ(d.Depth(), 0u);
}

TEST(DepthEstimate, RepeatedReopeningIsBoundedByTheCap) {
  DepthEstimate d(10);
  std::size_t refused = 0;
  for (int k = 0; k < 100; ++k) {
    if (!d.Start("div")) ++refused;
    if (!d.Start("i")) ++refused;
    d.End("div");
    EXPECT_LE(d.Depth(), 10u);
  }
  EXPECT_GT(refused, 0u);
}

TEST(DepthEstimate, ListItemClosesTheOpenOne) {
  DepthEstimate d(100);
  d.Start("ul");
  d.Start("li");
  d.Start("span");
  d.Start("li");  // closes the first li and the span
  EXPECT_EQ(d.Depth(), 2u);
  d.Start("dd");
  d.Start("dt");             // dt closes dd
  EXPECT_EQ(d.Depth(), 3u);  // ul, li, dt
}

TEST(DepthEstimate, ListItemDoesNotCloseAcrossASpecialElement) {
  DepthEstimate d(100);
  d.Start("li");
  d.Start("table");
  d.Start("li");
  EXPECT_EQ(d.Depth(), 3u);
}

TEST(DepthEstimate, FormRemovesOnlyTheForm) {
  DepthEstimate d(100);
  d.Start("form");
  d.Start("span");
  d.End("form");
  EXPECT_EQ(d.Depth(), 1u);
}

TEST(DepthEstimate, TableElementsNestFreelyInsideSvg) {
  DepthEstimate d(100);
  d.Start("svg");
  d.Start("td");  // a foreign element here, counted
  d.Start("td");
  EXPECT_EQ(d.Depth(), 3u);
}

}  // namespace
}  // namespace mw::mime::internal
