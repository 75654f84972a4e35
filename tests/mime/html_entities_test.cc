// Tests for mime/src/html_entities.h: character references decoded as gumbo
// decodes them. The oracle is gumbo itself (tests/mime/gumbo_oracle.h): the
// text node of "x" + text, the value of an alt attribute.
#include "mime/src/html_entities.h"

#include <gtest/gtest.h>
#include <gumbo.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "tests/mime/gumbo_oracle.h"

namespace mw::mime::internal {
namespace {

struct NamedReference {
  std::string_view name;
  std::uint32_t code_point;
};
#include "mime/src/html_entities.inc"

using testing::GumboParse;

std::string Decoded(std::string_view in, bool attribute) {
  std::string out;
  EXPECT_TRUE(DecodeReferences(in, attribute, &out)) << in;
  return out;
}

// What gumbo makes of `text` as character data (after an "x", so that
// leading whitespace is not dropped before <body>).
std::string GumboText(std::string_view text) {
  return GumboParse("x" + std::string(text)).BodyText().substr(1);
}

// What gumbo makes of `value` in a double-quoted attribute.
std::string GumboAttributeValue(std::string_view value) {
  GumboParse parse("<img alt=\"" + std::string(value) + "\">");
  const GumboAttribute* alt =
      gumbo_get_attribute(&parse.FirstElement().attributes, "alt");
  return alt != nullptr ? alt->value : "(none)";
}

void ExpectAsGumbo(std::string_view in) {
  EXPECT_EQ(Decoded(in, false), GumboText(in)) << "text: " << in;
  EXPECT_EQ(Decoded(in, true), GumboAttributeValue(in)) << "attribute: " << in;
}

TEST(HtmlEntities, EveryNamedReferenceOfTheTable) {
  for (const NamedReference& r : kNamedReferences) {
    ExpectAsGumbo("&" + std::string(r.name) + ";y");
  }
}

TEST(HtmlEntities, LegacyNamesWithoutTheirSemicolon) {
  for (std::string_view name : kLegacyNames) {
    const std::string n(name);
    ExpectAsGumbo("&" + n + " z");
    ExpectAsGumbo("&" + n + "z");   // text decodes; an attribute does not
    ExpectAsGumbo("&" + n + "=z");  // nor before '='
    ExpectAsGumbo("&" + n + "9;");
    ExpectAsGumbo("&" + n);
  }
  ExpectAsGumbo("&notit; &notin; &ampere; &copyright &nbsp;&nbsp");
}

TEST(HtmlEntities, NumericReferences) {
  for (const char* in :
       {"&#65;",    "&#x41;",    "&#X41",    "&#65x",      "&#0065;",
        "&#233;",   "&#x1F600;", "&#0;",     "&#128;",     "&#150;",
        "&#x9d;",   "&#13;",     "&#xD800;", "&#x110000;", "&#1114111;",
        "&#xFFFE;", "&#11;",     "&#1;",     "&#9999999;", "&#xFFFFFF;"}) {
    ExpectAsGumbo(in);
  }
}

TEST(HtmlEntities, AmpersandsThatStartNothing) {
  for (const char* in : {"a & b", "&&amp;", "&<", "&.", "AT&T", "&#", "&#x",
                         "&#;", "&#xg;", "&unknown", "&\xC3\xA9", "&"}) {
    ExpectAsGumbo(in);
  }
}

TEST(HtmlEntities, CarriageReturnsBecomeLineFeeds) {
  ExpectAsGumbo("a\r\nb\rc\n\rd");
}

TEST(HtmlEntities, LeavesWhatItDoesNotDecideToGumbo) {
  std::string out;
  EXPECT_FALSE(DecodeReferences("a&nvlt;b", false, &out));  // two code points
  EXPECT_FALSE(DecodeReferences("a&#12345678;b", false, &out));  // past int
  EXPECT_FALSE(DecodeReferences(std::string_view("a\0b", 3), false, &out));
  // Unknown with ';' is decided: gumbo takes no prefix of it either.
  EXPECT_TRUE(DecodeReferences("&foo;", false, &out));
  EXPECT_EQ(GumboText("&foo;"), "&foo;");
}

TEST(HtmlEntities, AppendsUtf8) {
  std::string out;
  AppendUtf8(0x41, &out);
  AppendUtf8(0xE9, &out);
  AppendUtf8(0x20AC, &out);
  AppendUtf8(0x1F600, &out);
  EXPECT_EQ(out, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace mw::mime::internal
