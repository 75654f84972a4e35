// Tests for mime/src/html_doctype.h: a doctype's quirks mode, against the
// mode gumbo sets on the document (tests/mime/gumbo_oracle.h).
#include "mime/src/html_doctype.h"

#include <gtest/gtest.h>
#include <gumbo.h>

#include <string>
#include <string_view>

#include "tests/mime/gumbo_oracle.h"

namespace mw::mime::internal {
namespace {

QuirksMode GumboMode(std::string_view doctype) {
  testing::GumboParse parse(std::string(doctype) + "<p>x");
  switch (parse.output().document->v.document.doc_type_quirks_mode) {
    case GUMBO_DOCTYPE_QUIRKS:
      return QuirksMode::kQuirks;
    default:  // no-quirks and limited quirks both close <p> at <table>
      return QuirksMode::kNoQuirks;
  }
}

TEST(HtmlDoctype, TheDoctypesOfMailAsGumboReadsThem) {
  for (const char* doctype : {
           "<!DOCTYPE html>",
           "<!doctype HTML>",
           "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\">",
           "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\" "
           "\"http://www.w3.org/TR/html4/loose.dtd\">",
           "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.0 Transitional//EN\">",
           "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\" "
           "\"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\">",
           "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" "
           "'http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd'>",
           "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML//EN\">",
           "<!DOCTYPE html SYSTEM \"about:legacy-compat\">",
           "<!DOCTYPE html PUBLIC \"HTML\">",
           "<!DOCTYPE html PUBLIC \"-/W3C/DTD HTML 4.0 Transitional/EN\">",
           "<!DOCTYPE html SYSTEM "
           "\"http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd\">",
           "<!DOCTYPE svg>",
           "<!DOCTYPE>",
           "<!DOCTYPEhtml>",
       }) {
    const QuirksMode mine = QuirksModeOf(doctype);
    ASSERT_NE(mine, QuirksMode::kUnknown) << doctype;
    EXPECT_EQ(mine, GumboMode(doctype)) << doctype;
  }
}

TEST(HtmlDoctype, ListedIdsAndMalformedDoctypesAreUnknown) {
  EXPECT_EQ(QuirksModeOf("<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 3.2//\">"),
            QuirksMode::kUnknown);
  EXPECT_EQ(QuirksModeOf("<!DOCTYPE html PUBLIC \"unclosed>"),
            QuirksMode::kUnknown);
  EXPECT_EQ(QuirksModeOf("<!DOCTYPE html PUBLIC>"), QuirksMode::kUnknown);
  EXPECT_EQ(QuirksModeOf("<!DOCTYPE html junk>"), QuirksMode::kUnknown);
}

}  // namespace
}  // namespace mw::mime::internal
