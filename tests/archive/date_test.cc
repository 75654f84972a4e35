#include "archive/date.h"

#include <gtest/gtest.h>

#include "tests/archive/testutil.h"

namespace mw::archive {
namespace {

TEST(ParseDate, ReadsRfc5322Dates) {
  // date -u -d '2002-08-22 13:44:07' +%s
  EXPECT_EQ(ParseDate("Thu, 22 Aug 2002 14:44:07 +0100"), 1030023847);
  EXPECT_EQ(ParseDate("22 Aug 2002 13:44:07 +0000"), 1030023847);
  EXPECT_EQ(ParseDate("Thu, 22 Aug 2002 08:44:07 -0500 (CDT)"), 1030023847);
  EXPECT_EQ(ParseDate("Thu, 22 Aug 2002 06:44:07 PDT"), 1030023847);
  EXPECT_EQ(ParseDate("Thu, 22 Aug 02 13:44 GMT"), 1030023840);
  EXPECT_EQ(ParseDate("Thu, 1 Jan 1970 00:00:00 +0000"), 0);
  EXPECT_EQ(ParseDate("Thu Aug 22 13:44:07 2002"), std::nullopt);  // asctime
  EXPECT_EQ(ParseDate("Wed, 29 Feb 2040 12:00:00 XYZ"), 2214129600);
}

TEST(ParseDate, RefusesWhatIsNotADate) {
  EXPECT_EQ(ParseDate(""), std::nullopt);
  EXPECT_EQ(ParseDate("yesterday"), std::nullopt);
  EXPECT_EQ(ParseDate("Thu, 22 Aug 2002"), std::nullopt);
  EXPECT_EQ(ParseDate("Thu, 42 Aug 2002 13:44:07 +0000"), std::nullopt);
  EXPECT_EQ(ParseDate("Thu, 22 Aug 2002 25:44:07 +0000"), std::nullopt);
}

TEST(HeaderValue, UnfoldsAndStopsAtTheBody) {
  const std::string m =
      "Subject: one\r\n  two\r\nDATE: Mon, 2 Nov 2026\r\n 10:00:00 +0000\r\n"
      "\r\nDate: not this one\r\n";
  EXPECT_EQ(HeaderValue(m, "subject"), "one two");
  EXPECT_EQ(HeaderValue(m, "Date"), "Mon, 2 Nov 2026 10:00:00 +0000");
  EXPECT_EQ(HeaderValue("Subject: x\n\nDate: body\n", "Date"), std::nullopt);
}

TEST(MessageDate, ReadsTheFixtures) {
  EXPECT_EQ(MessageDate(testing::Fixture("encoding-7bit.eml")),
            ParseDate("Mon, 2 Nov 2026 10:00:00 +0000"));
  EXPECT_EQ(MessageDate("Subject: no date\n\nbody\n"), std::nullopt);
}

}  // namespace
}  // namespace mw::archive
