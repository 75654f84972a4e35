// Tests for mime/src/html_attributes.h: a start tag's attributes against
// gumbo's reading of the same tag (tests/mime/gumbo_oracle.h).
#include "mime/src/html_attributes.h"

#include <gtest/gtest.h>
#include <gumbo.h>

#include <string>
#include <string_view>

#include "mime/src/html_walker.h"
#include "tests/mime/gumbo_oracle.h"

namespace mw::mime::internal {
namespace {

std::string Show(const char* value) {
  return value != nullptr ? "[" + std::string(value) + "]" : "(absent)";
}

// `attributes` of a `tag` start tag read both ways.
void ExpectAsGumbo(std::string_view tag, std::string_view attributes) {
  testing::GumboParse parse("<" + std::string(tag) + std::string(attributes) +
                            ">x");
  const GumboElement& element = parse.FirstElement();
  TagAttributes mine;
  ASSERT_TRUE(mine.Read(attributes, element.tag, true)) << attributes;
  const ElementAttributes a = mine.View();
  const ElementAttributes b = ElementAttributes::Of(element);
  const std::string where = std::string(tag) + std::string(attributes);
  EXPECT_EQ(a.hidden, b.hidden) << where;
  EXPECT_EQ(a.background, b.background) << where;
  EXPECT_EQ(Show(a.bgcolor), Show(b.bgcolor)) << where;
  EXPECT_EQ(Show(a.colour), Show(b.colour)) << where;
  EXPECT_EQ(Show(a.cls), Show(b.cls)) << where;
  EXPECT_EQ(Show(a.style), Show(b.style)) << where;
  EXPECT_EQ(Show(a.alt), Show(b.alt)) << where;
}

TEST(HtmlAttributes, ReadsTheWalkersAttributesAsGumbo) {
  for (const char* attributes : {
           " style=\"color:red\" class=a",
           " STYLE='display:none' CLASS=\"x y\"",
           " bgcolor = #fff background=img.png",
           " hidden",
           " HIDDEN=\"\"",
           " /style=x/ class=/c",
           " alt=a\"b'c",
           " =x alt=y",
           " alt='a&amp;b &copy 2002' class=\"&lt;&#65;\"",
           " alt=\"x>y\" style=\"a\r\nb\"",
           " class=a/b alt=''",
           "/alt=x",
           " color=red text=blue",
           " style=color:red;background:black class",
       }) {
    for (const char* tag : {"span", "font", "img", "body"}) {
      ExpectAsGumbo(tag, attributes);
    }
  }
}

TEST(HtmlAttributes, LeavesRepeatedNamesToGumbo) {
  TagAttributes attributes;
  EXPECT_FALSE(attributes.Read(" a a hidden", GUMBO_TAG_SPAN, false));
  TagAttributes case_only;
  EXPECT_FALSE(case_only.Read(" style=x STYLE=y", GUMBO_TAG_SPAN, false));
  std::string many;
  for (int i = 0; i < 40; ++i) many += " a" + std::to_string(i);
  TagAttributes lots;
  EXPECT_FALSE(lots.Read(many, GUMBO_TAG_SPAN, false));
}

TEST(HtmlAttributes, ComparesAllAttributesAsTheNoahsArkClause) {
  TagAttributes a, b, c, d;
  ASSERT_TRUE(a.Read(" face=arial size=2", GUMBO_TAG_FONT, true));
  ASSERT_TRUE(b.Read(" SIZE=\"2\" face='arial'", GUMBO_TAG_FONT, true));
  ASSERT_TRUE(c.Read(" face=arial", GUMBO_TAG_FONT, true));
  ASSERT_TRUE(d.Read(" face=Arial size=2", GUMBO_TAG_FONT, true));
  EXPECT_TRUE(a.SameAs(b));
  EXPECT_FALSE(a.SameAs(c));
  EXPECT_FALSE(c.SameAs(a));
  EXPECT_FALSE(a.SameAs(d));  // values compare with their case
}

TEST(HtmlAttributes, MergesWhatIsMissingAndSaysWhatIsPresent) {
  TagAttributes body, later;
  ASSERT_TRUE(body.Read(" text=red", GUMBO_TAG_BODY, false));
  ASSERT_TRUE(later.Read(" text=blue bgcolor=black", GUMBO_TAG_BODY, false));
  EXPECT_NE(later.Present() & ~body.Present(), 0u);
  body.MergeMissing(later);
  EXPECT_EQ(Show(body.View().colour), "[red]");  // the first one's stays
  EXPECT_EQ(Show(body.View().bgcolor), "[black]");
  EXPECT_EQ(later.Present() & ~body.Present(), 0u);
  TagAttributes input;
  ASSERT_TRUE(input.Read(" TYPE=Hidden name=x", GUMBO_TAG_INPUT, false));
  EXPECT_TRUE(input.TypeIsHidden());
}

}  // namespace
}  // namespace mw::mime::internal
