// Tests for mime/src/html_chars.h: ASCII and UTF-8 helpers of the HTML units.
#include "mime/src/html_chars.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "tests/mime/gumbo_oracle.h"

namespace mw::mime::internal {
namespace {

TEST(HtmlChars, HtmlSpaceIsTheFiveAsciiSpaces) {
  for (char c : std::string(" \t\n\r\f")) EXPECT_TRUE(IsHtmlSpace(c)) << int(c);
  EXPECT_FALSE(IsHtmlSpace('\v'));  // not HTML whitespace
  EXPECT_FALSE(IsHtmlSpace('\0'));
  EXPECT_FALSE(IsHtmlSpace('\xA0'));  // a byte of U+00A0, not a space here
}

TEST(HtmlChars, LowerCasesAsciiOnly) {
  EXPECT_EQ(AsciiLower("DiV-\xC3\x89"), "div-\xC3\x89");
  EXPECT_EQ(AsciiLower('Z'), 'z');
  EXPECT_EQ(AsciiLower('['), '[');  // just past 'Z'
  EXPECT_EQ(AsciiLower('@'), '@');  // just before 'A'
}

TEST(HtmlChars, StartsWithNoCaseChecksBoundsAndCase) {
  EXPECT_TRUE(StartsWithNoCase("<!DOCTYPE html>", 2, "doctype"));
  EXPECT_TRUE(StartsWithNoCase("abc", 3, ""));
  EXPECT_FALSE(StartsWithNoCase("<!DOCTYP", 2, "doctype"));  // cut
  EXPECT_FALSE(StartsWithNoCase("abc", 4, ""));              // past the end
}

TEST(HtmlChars, TrimRemovesHtmlSpaceOnBothSides) {
  EXPECT_EQ(Trim("\f\t a b \r\n"), "a b");
  EXPECT_EQ(Trim("   "), "");
  EXPECT_EQ(Trim("\vx\v"), "\vx\v");
}

TEST(HtmlChars, Utf8BoundaryNeverCutsACharacter) {
  const std::string s =
      "a\xE2\x82\xAC"  // a€
      "b";
  EXPECT_EQ(Utf8Boundary(s, 10), s.size());  // shorter than max
  EXPECT_EQ(Utf8Boundary(s, 1), 1u);         // before the euro sign
  EXPECT_EQ(Utf8Boundary(s, 2), 1u);         // inside it: back to its start
  EXPECT_EQ(Utf8Boundary(s, 3), 1u);
  EXPECT_EQ(Utf8Boundary(s, 4), 4u);  // after it
  EXPECT_EQ(Utf8Boundary(s, 0), 0u);
  // Continuation bytes alone: at most three steps back, never below zero.
  EXPECT_EQ(Utf8Boundary("\x80\x80\x80\x80\x80", 4), 1u);
  EXPECT_EQ(Utf8Boundary("\x80\x80", 1), 0u);
}

TEST(HtmlChars, ValidUtf8KeepsValidText) {
  const std::string s =
      "plain \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF";
  EXPECT_EQ(ValidUtf8(s), s);
  EXPECT_EQ(ValidUtf8(""), "");
}

TEST(HtmlChars, ValidUtf8ReplacesEachBadByte) {
  const std::string kFffd = "\xEF\xBF\xBD";
  EXPECT_EQ(ValidUtf8("a\xFF"
                      "b"),
            "a" + kFffd + "b");
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), kFffd + kFffd);              // overlong '/'
  EXPECT_EQ(ValidUtf8("\xE0\x80\xAF"), kFffd + kFffd + kFffd);  // overlong
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), kFffd + kFffd + kFffd);  // surrogate
  // Above U+10FFFF.
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);
  EXPECT_EQ(ValidUtf8("\xE2\x82"), kFffd + kFffd);  // cut at the end
  EXPECT_EQ(ValidUtf8("\xE2x"), kFffd + "x");       // missing continuation
}

TEST(HtmlChars, ComparesAndFindsTagsWithoutAsciiCase) {
  EXPECT_TRUE(EqualNoCase("Hidden", "hIDDEN"));
  EXPECT_FALSE(EqualNoCase("hidden", "hidde"));
  EXPECT_TRUE(HasTagNoCase("<p>x</p><BoDy bgcolor=1>", "<body"));
  EXPECT_FALSE(HasTagNoCase("body <bod y>", "<body"));
}

// gumbo's UTF-8 iterator on `bytes` (after an "x": text of <body>).
std::string GumboReads(std::string_view bytes) {
  return testing::GumboParse("x" + std::string(bytes)).BodyText().substr(1);
}

TEST(HtmlChars, ReadsInputAsGumbosIteratorDoes) {
  for (const char* bytes : {
           "plain ascii, tab\t and lines\n",
           "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80",  // valid
           "lone \xC3 lead",
           "cut \xE2\x82",
           "stray \x80\xBF bytes",
           "overlong \xC0\xAF and \xE0\x80\xAF",
           "surrogate \xED\xA0\x80",
           "past U+10FFFF \xF4\x90\x80\x80",
           "\xF5\xFF\xFE",
           "C1 \xC2\x92",
           "noncharacters \xEF\xB7\x90 \xEF\xBF\xBE \xF0\x9F\xBF\xBF",
           "controls \x01\x08\x0B\x0E\x1F\x7F",
           "at the end \xF0\x9F\x98",
       }) {
    std::string out;
    const GumboInput result = ReadAsGumbo(bytes, &out);
    ASSERT_NE(result, GumboInput::kNul);
    const std::string mine = result == GumboInput::kAsIs ? bytes : out;
    EXPECT_EQ(mine, GumboReads(bytes)) << bytes;
  }
  std::string out = "untouched";
  EXPECT_EQ(ReadAsGumbo("no change: caf\xC3\xA9", &out), GumboInput::kAsIs);
  EXPECT_EQ(out, "untouched");
  EXPECT_EQ(ReadAsGumbo(std::string_view("a\0b", 3), &out), GumboInput::kNul);
}

}  // namespace
}  // namespace mw::mime::internal
