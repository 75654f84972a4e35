// Tests for reading the header block (sender/src/header_fields.cc).
#include "sender/header_fields.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/sender/testutil.h"

namespace mw::sender {
namespace {

using testing::Fixture;
using testing::ReadFile;

TEST(ReadHeader, FieldsInOrderUntilTheEmptyLine) {
  const auto f =
      ReadHeader("From: a@example.org\nTo: b@example.net\n\nbody: x\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0], (Field{"From", "a@example.org"}));
  EXPECT_EQ(f[1], (Field{"To", "b@example.net"}));
}

TEST(ReadHeader, UnfoldsContinuationLines) {
  const auto lf =
      ReadHeader("Subject: one\n two\n\tthree\nX-A:   spaced   \n\nbody\n");
  ASSERT_EQ(lf.size(), 2u);
  EXPECT_EQ(lf[0].value, "one two\tthree");
  EXPECT_EQ(lf[1].value, "spaced");  // outer white space trimmed
  const auto crlf = ReadHeader(
      "Subject: one\r\n two\r\n\tthree\r\nX-A:   spaced   \r\n\r\nbody\r\n");
  EXPECT_EQ(crlf, lf);
}

TEST(ReadHeader, NoBodyIsAllHeader) {
  const auto f = ReadHeader("A: 1\r\nB: 2\r\n continued");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].value, "2 continued");
  EXPECT_TRUE(ReadHeader("").empty());
  EXPECT_TRUE(ReadHeader("\r\nA: 1\r\n").empty());
}

TEST(ReadHeader, ALineThatIsNoFieldEndsTheHeader) {
  const auto f = ReadHeader("A: 1\nnot a field\nB: 2\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].name, "A");
  // A name with white space inside is no name, colon or not.
  EXPECT_EQ(ReadHeader("A: 1\nB c: 2\n").size(), 1u);
  EXPECT_TRUE(ReadHeader(": empty name\n").empty());
}

TEST(ReadHeader, ObsoleteSpaceBeforeColonAndEmptyValue) {
  const auto f = ReadHeader("Subject : hi\nX-Empty:\nX-B:x\n");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], (Field{"Subject", "hi"}));
  EXPECT_EQ(f[1], (Field{"X-Empty", ""}));
  EXPECT_EQ(f[2], (Field{"X-B", "x"}));
}

TEST(ReadHeader, MboxFromLineIsSkipped) {
  const auto f = ReadHeader(
      "From bounce@example.org  Mon Nov 25 20:49:29 2002\nFrom: a@b.example\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0], (Field{"From", "a@b.example"}));
}

TEST(ReadHeader, LeadingContinuationHasNothingToContinue) {
  const auto f = ReadHeader(" stray\nA: 1\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0], (Field{"A", "1"}));
}

TEST(ReadHeader, MaxFields) {
  std::string raw;
  for (int i = 0; i < 50; ++i) raw += "X-N: " + std::to_string(i) + "\n more\n";
  EXPECT_EQ(ReadHeader(raw, 10).size(), 10u);
  EXPECT_EQ(ReadHeader(raw, 10).back().value, "9 more");
  EXPECT_EQ(ReadHeader(raw).size(), 50u);
  EXPECT_TRUE(ReadHeader(raw, 0).empty());
}

TEST(ReadHeader, ColonInValueAndBytesKept) {
  const auto f =
      ReadHeader("Date: Mon, 25 Nov 2002 20:49:29\nX-8: caf\xc3\xa9\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].value, "Mon, 25 Nov 2002 20:49:29");
  EXPECT_EQ(f[1].value, "caf\xc3\xa9");
}

TEST(NameIs, WithoutCase) {
  const Field f{"Authentication-Results", "x"};
  EXPECT_TRUE(NameIs(f, "authentication-results"));
  EXPECT_TRUE(NameIs(f, "AUTHENTICATION-RESULTS"));
  EXPECT_FALSE(NameIs(f, "Authentication-Result"));
}

TEST(ReadHeader, RealHeaderLf) {
  const auto f = ReadHeader(Fixture("list-mailman.hdr"));
  ASSERT_EQ(f.size(), 27u);
  EXPECT_TRUE(NameIs(f[0], "Authentication-Results"));
  EXPECT_EQ(f[0].value.find('\n'), std::string::npos);
  EXPECT_TRUE(NameIs(f[1], "Received"));
  EXPECT_EQ(f[1].value,
            "from mail.python.org (mail.python.org [12.155.117.29]) by    "
            "dogma.slashnull.org (8.11.6/8.11.6) with ESMTP id gAPKT7W23898 "
            "for    <jm@jmason.org>; Mon, 25 Nov 2002 20:29:07 GMT");
  EXPECT_EQ(
      f.back(),
      (Field{"Errors-To",
             "spambayes-bounces+yyyy=spamassassin.taint.org@python.org"}));
}

TEST(ReadHeader, RealHeaderCrlfStopsBeforeTheBody) {
  const auto f = ReadHeader(Fixture("groups-forged.hdr"));
  ASSERT_EQ(f.size(), 30u);
  for (const Field& field : f) {
    EXPECT_EQ(field.value.find('\r'), std::string::npos) << field.name;
    EXPECT_NE(field.name,
              "Body text follows; not part of the fixture's header.");
  }
  EXPECT_EQ(f.back(), (Field{"Content-Transfer-Encoding", "7bit"}));
}

TEST(ReadHeader, EveryMailFixtureHasAFrom) {
  int seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(
           std::string(MW_SOURCE_DIR) + "/tests/fixtures/mail")) {
    if (entry.path().extension() != ".eml") continue;
    const auto f = ReadHeader(ReadFile(entry.path().string()));
    bool from = false;
    for (const Field& field : f) from = from || NameIs(field, "From");
    EXPECT_TRUE(from) << entry.path();
    ++seen;
  }
  EXPECT_GT(seen, 20);
}

}  // namespace
}  // namespace mw::sender
