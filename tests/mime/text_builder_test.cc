// Tests for mime/src/text_builder.h: whitespace, lines and paragraphs.
#include "mime/src/text_builder.h"

#include <gtest/gtest.h>

#include <string>

namespace mw::mime::internal {
namespace {

TEST(TextBuilder, CollapsesWhitespaceAndNbsp) {
  TextBuilder t;
  t.Inline("  a \t\n b");
  t.Inline(
      "\xC2\xA0\xC2\xA0"
      "c ");
  t.Inline("d");
  EXPECT_EQ(t.Finish(), "a b c d");
}

TEST(TextBuilder, NoSpaceWhereTextTouches) {
  TextBuilder t;
  t.Inline("a");
  t.Inline("b");
  EXPECT_EQ(t.Finish(), "ab");
}

TEST(TextBuilder, KeepsOtherUtf8Untouched) {
  TextBuilder t;
  t.Inline("\xC3\xA9\xC2\xA9 \xE2\x80\x83x");  // é© EM SPACE x
  EXPECT_EQ(t.Finish(), "\xC3\xA9\xC2\xA9 \xE2\x80\x83x");
}

TEST(TextBuilder, NothingBeforeTheFirstTextOrAfterTheLast) {
  TextBuilder t;
  t.Paragraph();
  t.LineBreak();
  t.Space();
  t.Inline("a");
  t.Paragraph();
  t.Space();
  EXPECT_EQ(t.Finish(), "a");
  TextBuilder empty;
  empty.Paragraph();
  empty.Inline(" \n ");
  EXPECT_EQ(empty.Finish(), "");
}

TEST(TextBuilder, BreaksWinOverSpacesAndTrailingSpacesGo) {
  TextBuilder t;
  t.Inline("a ");
  t.Space();
  t.Line();
  t.Space();
  t.Inline(" b");
  EXPECT_EQ(t.Finish(), "a\nb");
}

TEST(TextBuilder, BlockBoundariesMakeExactlyOneBlankLine) {
  TextBuilder t;
  t.Inline("a");
  t.Paragraph();
  t.Paragraph();
  t.Line();  // weaker: the blank line stays
  t.Inline("b");
  t.Line();
  t.Inline("c");
  EXPECT_EQ(t.Finish(), "a\n\nb\nc");
}

TEST(TextBuilder, LineBreaksAddUpToOneBlankLine) {
  TextBuilder t;
  t.Inline("a");
  t.LineBreak();
  t.Inline("b");
  t.LineBreak();
  t.LineBreak();
  t.LineBreak();
  t.Inline("c");
  EXPECT_EQ(t.Finish(), "a\nb\n\nc");
}

TEST(TextBuilder, PreformattedKeepsSpacesAndLines) {
  TextBuilder t;
  t.Inline("x");
  t.Paragraph();
  t.Preformatted("\n  a  b \n\n\tc\xC2\xA0");
  t.Paragraph();
  t.Inline("y");
  EXPECT_EQ(t.Finish(), "x\n\n  a  b\n\n\tc\n\ny");
}

TEST(TextBuilder, PreformattedLeadingNewlineIsDropped) {
  TextBuilder t;
  t.Preformatted("\n\nab\n");
  EXPECT_EQ(t.Finish(), "ab");
}

TEST(TextBuilder, SpaceAfterPreformattedText) {
  TextBuilder t;
  t.Preformatted("a");
  t.Space();
  t.Inline("b");
  EXPECT_EQ(t.Finish(), "a b");
}

}  // namespace
}  // namespace mw::mime::internal
