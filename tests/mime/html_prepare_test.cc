// Tests for mime/src/html_prepare.h: the document gumbo gets.
#include "mime/src/html_prepare.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "mime/src/html_tokenizer.h"

namespace mw::mime::internal {
namespace {

constexpr std::uint32_t kCap = 528;

std::string Html(std::string_view in, Mode mode = Mode::kFull,
                 std::uint32_t cap = kCap) {
  return Prepare(in, cap, mode).html;
}

TEST(HtmlPrepare, TextAndTagsPassUnchanged) {
  const std::string in =
      "<!DOCTYPE html><p class=\"a\" id=b>Fish &amp; chips</p>\xC3\xA9";
  EXPECT_EQ(Html(in), in);
}

TEST(HtmlPrepare, CommentsAndBogusCommentsAreDropped) {
  EXPECT_EQ(Html("a<!-- <p>hidden</p> -->b<?php x ?>c<!x>d</ x>e</>f"),
            "abcdef");
  EXPECT_EQ(Html("a<!--[if mso]>outlook only<![endif]-->b"), "ab");
  EXPECT_EQ(Html("a<!-- never closed <p>x"), "a");
}

TEST(HtmlPrepare, StrayLessThanIsEscaped) {
  EXPECT_EQ(Html("1 < 2 <3"), "1 &lt; 2 &lt;3");
}

TEST(HtmlPrepare, TagCutByTheEndIsDropped) {
  EXPECT_EQ(Html("a<b title=\"x"), "a");
  EXPECT_EQ(Html("a</p"), "a");
}

TEST(HtmlPrepare, RawTextIsEscaped) {
  EXPECT_EQ(Html("<script>if (a<b) x='</p>'</script>"),
            "<script>if (a&lt;b) x='&lt;/p>'</script>");
  EXPECT_EQ(Html("<textarea><b>x</b></textarea>"),
            "<textarea>&lt;b>x&lt;/b></textarea>");
}

TEST(HtmlPrepare, RawTextCutByTheEndIsClosed) {
  EXPECT_EQ(Html("<title>x</title "), "<title>x</title>");
  EXPECT_EQ(Html("<style>p{"), "<style>p{");  // no end tag: gumbo closes it
}

TEST(HtmlPrepare, RenamesNoscriptXmpAndPlaintext) {
  EXPECT_EQ(Html("<noscript><b>x</b></noscript>"),
            "<mw-noscript><b>x</b></mw-noscript>");
  EXPECT_EQ(Html("<xmp><b></xmp>"), "<pre>&lt;b></pre>");
  EXPECT_EQ(Html("<plaintext>a</plaintext><b>"), "<pre>a&lt;/plaintext>&lt;b>");
}

TEST(HtmlPrepare, StyleSheetsAreCollected) {
  Prepared p =
      Prepare("<style>.x{display:none}</style><p class=x>a", kCap, Mode::kFull);
  StyleEffect e;
  p.styles.Apply("p", "x", &e);
  EXPECT_TRUE(e.HidesSubtree());
}

TEST(HtmlPrepare, AttributesPastTheLimitAreDropped) {
  std::string in = "<p";
  for (std::size_t i = 0; i < kMaxAttributes + 10; ++i)
    in += " a" + std::to_string(i);
  in += ">";
  const std::string out = Html(in);
  EXPECT_NE(out.find(" a255"), std::string::npos);
  EXPECT_EQ(out.find(" a256"), std::string::npos);
  EXPECT_EQ(out.back(), '>');
}

TEST(HtmlPrepare, OnlyTheFirstOfEachAttributeNameIsKept) {
  EXPECT_EQ(Html("<span lang LANG style=\"display:none\" a=1 a='2'>x</span>"),
            "<span lang style=\"display:none\" a=1>x</span>");
  EXPECT_EQ(Html("<svg><path d=1 d=2/></svg>"), "<svg><path d=1 /></svg>");
  const std::string distinct = "<p a=1 b c='3' d=\"4\">x";
  EXPECT_EQ(Html(distinct), distinct);  // untouched without a repeat
  // Past eight names the check sorts them; the first of each still wins.
  std::string many = "<p";
  std::string kept = "<p";
  for (int i = 0; i < 20; ++i) {
    many += " n" + std::to_string(i) + "=" + std::to_string(i);
    kept += " n" + std::to_string(i) + "=" + std::to_string(i);
  }
  many += " N7=late n19>x";
  kept += ">x";
  EXPECT_EQ(Html(many), kept);
}

// A name may begin with '='; with the repeat between gone, it must not become
// the value of the attribute before it (found by html_tokenizer_fuzz).
TEST(HtmlPrepare, ANameBeginningWithEqualsStaysAName) {
  EXPECT_EQ(Html("<p c c=x =\"y\">t"), "<p c=\"\" =\"y\">t");
  EXPECT_EQ(Html("<p c c=\"\" =\">"), "<p c=\"\" =\">");
  EXPECT_EQ(Html("<p c=1 c =z>t"), "<p c=1>t");  // `=z` was c's second value
  EXPECT_EQ(Html("<p a=1 a =b =c>t"), "<p a=1 =c>t");
}

TEST(HtmlPrepare, DeepNestingIsCutAtTheCap) {
  std::string in;
  for (int i = 0; i < 20; ++i) in += "<div>";
  in += "x";
  Prepared p = Prepare(in, 5, Mode::kFull);
  EXPECT_TRUE(p.depth_cut);
  EXPECT_EQ(p.html, "<div><div><div><div><div>x");
  EXPECT_FALSE(Prepare(in, 20, Mode::kFull).depth_cut);
}

TEST(HtmlPrepare, ShallowModeCapsDepthWhateverTheCap) {
  std::string in;
  for (std::uint32_t i = 0; i < kShallowDepth + 5; ++i) in += "<div>";
  EXPECT_FALSE(Prepare(in, kCap, Mode::kFull).depth_cut);
  EXPECT_TRUE(Prepare(in, kCap, Mode::kShallow).depth_cut);
}

TEST(HtmlPrepare, NoFormattingModeDropsFormattingElements) {
  EXPECT_EQ(Html("<b>x</b><font color=red>y</font><p>z", Mode::kNoFormatting),
            "xy<p>z");
  EXPECT_EQ(Html("<b>x</b>", Mode::kFull), "<b>x</b>");
}

TEST(HtmlPrepare, TextOnlyModeKeepsOnlyBreaks) {
  EXPECT_EQ(Html("<div>a<br>b<table><tr><td>c<td>d</table><span>e</span>",
                 Mode::kTextOnly),
            "<p>a<br>b<p><p> c d<p>e");
  // Raw text is still escaped, and only visible raw text passes.
  EXPECT_EQ(
      Html("<script>x<y</script><textarea>t<u</textarea>", Mode::kTextOnly),
      "t&lt;u");
}

// Deep nesting makes every later tag cost its depth; past kMaxTagWork only
// text passes. End tags of elements that are not open cost without changing
// the depth.
std::string Expensive(std::uint64_t end_tags) {
  std::string in;
  for (int i = 0; i < 1000; ++i) in += "<span>";
  for (std::uint64_t i = 0; i < end_tags; ++i) in += "</b>";
  return in + "tail";
}

TEST(HtmlPrepare, WorkLimitStopsTags) {
  // Each </b> costs depth 1000 plus one; the <span>s add half a million.
  const std::uint64_t per_tag = 1001;
  Prepared under =
      Prepare(Expensive(kMaxTagWork / per_tag - 1000), 2000, Mode::kFull);
  EXPECT_FALSE(under.work_cut);
  const std::string in = Expensive(kMaxTagWork / per_tag + 10);
  Prepared over = Prepare(in, 2000, Mode::kFull);
  EXPECT_TRUE(over.work_cut);
  EXPECT_FALSE(over.depth_cut);
  EXPECT_TRUE(over.html.ends_with("</b>tail"));
  EXPECT_LT(over.html.size(), in.size());
}

TEST(HtmlPrepare, OutputIsAFixedPointWhenNothingWasCut) {
  const std::string in =
      "<!doctype html><!--c--><p a='>'>x<y<script><!--<script></script>"
      "--></script><title>t</title <xmp><i></xmp><noscript>n</noscript>";
  const std::string once = Html(in);
  EXPECT_EQ(Html(once), once);
}

}  // namespace
}  // namespace mw::mime::internal
