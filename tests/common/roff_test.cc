#include "mw/roff.h"

#include <gtest/gtest.h>

namespace mw::roff {
namespace {

TEST(Roff, EscapeKeepsOptionsAndBackslashesAsTyped) {
  EXPECT_EQ(Escape("mailwave config --defaults"),
            "mailwave config \\-\\-defaults");
  EXPECT_EQ(Escape("C:\\path"), "C:\\epath");
  EXPECT_EQ(Escape("plain text"), "plain text");
}

TEST(Roff, EscapeKeepsALeadingDotOrQuoteFromBeingARequest) {
  EXPECT_EQ(Escape(".SH not a heading"), "\\&.SH not a heading");
  EXPECT_EQ(Escape("'br"), "\\&'br");
  EXPECT_EQ(Escape("a.b"), "a.b");
}

TEST(Roff, EscapeNamesNonAsciiCodePoints) {
  EXPECT_EQ(Escape("N\xC2\xB7Q"), "N\\[u00B7]Q");       // U+00B7
  EXPECT_EQ(Escape("\xE2\x88\x92"), "\\[u2212]");       // U+2212
  EXPECT_EQ(Escape("\xF0\x9F\x93\xA7"), "\\[u1F4E7]");  // U+1F4E7
  EXPECT_EQ(Escape("\xFF"), "\\[uFFFD]");               // not UTF-8
}

TEST(Roff, PreformattedKeepsLinesAndTurnsBlankLinesIntoSp) {
  EXPECT_EQ(Preformatted("Usage: x\n\n  -h  help\n"),
            ".nf\n.nh\nUsage: x\n.sp\n  \\-h  help\n.hy\n.fi\n");
}

TEST(Roff, TaggedKeepsQuotesOfTheTagAndJoinsTheText) {
  EXPECT_EQ(Tagged("backend = \"sqlite\"", "one\nor two"),
            ".TP\n\\fBbackend = \"sqlite\"\\fR\none or two\n");
}

TEST(Roff, TitleAndSectionsAreQuoted) {
  EXPECT_EQ(Title("MAILWAVE", "8", "", "mailwave 0.1.0", "Manual"),
            ".TH \"MAILWAVE\" \"8\" \"\" \"mailwave 0.1.0\" \"Manual\"\n");
  EXPECT_EQ(Section("SEE ALSO"), ".SH \"SEE ALSO\"\n");
  EXPECT_EQ(Subsection("check"), ".SS \"check\"\n");
  EXPECT_EQ(Paragraph("a\nb"), ".PP\na b\n");
}

}  // namespace
}  // namespace mw::roff
