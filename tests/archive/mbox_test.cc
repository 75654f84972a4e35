#include "archive/mbox.h"

#include <gtest/gtest.h>

#include "tests/archive/testutil.h"

namespace mw::archive {
namespace {

using testing::MakeMbox;
using testing::SomeMessages;

std::string Slice(std::string_view data, const MboxMessage& m) {
  return std::string(data.substr(m.offset, m.length));
}

TEST(IsFromLine, NeedsASenderAndATimeOfDay) {
  EXPECT_TRUE(
      IsFromLine("From sabrina@mx3.1premio.com  Thu Aug 22 14:44:07 2002"));
  EXPECT_TRUE(IsFromLine("From MAILER-DAEMON Thu Jan  1 0:00:00 1970"));
  EXPECT_FALSE(IsFromLine("From here on, prices go up by 10%"));
  EXPECT_FALSE(IsFromLine("From: alice@example.org"));
  EXPECT_FALSE(IsFromLine("From  Thu Aug 22 14:44:07 2002"));  // no sender
  EXPECT_FALSE(IsFromLine(">From a@b Thu Aug 22 14:44:07 2002"));
}

TEST(IndexMbox, GivesBackEachMessageExactly) {
  const std::vector<std::string> messages = SomeMessages();
  const std::string mbox = MakeMbox(messages);
  const MboxIndex index = IndexMbox(mbox);
  ASSERT_EQ(index.messages.size(), messages.size());
  EXPECT_EQ(index.leading_bytes, 0u);
  EXPECT_FALSE(index.truncated);
  for (std::size_t i = 0; i < messages.size(); ++i) {
    EXPECT_EQ(UnquoteFrom(Slice(mbox, index.messages[i])), messages[i]) << i;
    EXPECT_FALSE(index.messages[i].has_nul);
  }
}

TEST(IndexMbox, AFromLineInsideABodyDoesNotSplitWithoutBlankLineOrTime) {
  const std::string m1 =
      "Subject: one\n\nFrom here on it is cheaper.\n\nFrom now on, too.\n"
      "quoted:\nFrom a@b Thu Aug 22 14:44:07 2002\n";
  const std::string mbox = "From a@b Mon Jan 6 10:00:00 2003\n" + m1 + "\n";
  const MboxIndex index = IndexMbox(mbox);
  ASSERT_EQ(index.messages.size(), 1u);
  EXPECT_EQ(Slice(mbox, index.messages[0]), m1);
}

TEST(IndexMbox, IgnoresContentLength) {
  const std::string mbox =
      "From a@b Mon Jan 6 10:00:00 2003\nContent-Length: 3\nSubject: x\n\n"
      "a longer body than three bytes\n\n"
      "From c@d Mon Jan 6 10:01:00 2003\nSubject: y\n\nsecond\n";
  const MboxIndex index = IndexMbox(mbox);
  ASSERT_EQ(index.messages.size(), 2u);
  EXPECT_EQ(Slice(mbox, index.messages[0]),
            "Content-Length: 3\nSubject: x\n\na longer body than three "
            "bytes\n");
  EXPECT_EQ(Slice(mbox, index.messages[1]), "Subject: y\n\nsecond\n");
}

TEST(IndexMbox, ReadsCrlfMboxes) {
  const std::string mbox =
      "From a@b Mon Jan 6 10:00:00 2003\r\nSubject: x\r\n\r\none\r\n\r\n"
      "From c@d Mon Jan 6 10:01:00 2003\r\nSubject: y\r\n\r\ntwo\r\n";
  const MboxIndex index = IndexMbox(mbox);
  ASSERT_EQ(index.messages.size(), 2u);
  EXPECT_EQ(Slice(mbox, index.messages[0]), "Subject: x\r\n\r\none\r\n");
}

TEST(IndexMbox, ReportsDamageAndKeepsTheReadableMessages) {
  const std::vector<std::string> messages = SomeMessages();
  std::string junk(
      "\x7f"
      "ELF\x02\x01\x01",
      7);
  junk += std::string(300, '\0') + "\n\n";
  std::string mbox = junk + MakeMbox(messages);
  mbox.resize(mbox.size() - 40);  // the last message cut off
  const MboxIndex index = IndexMbox(mbox);
  EXPECT_EQ(index.leading_bytes, junk.size());
  EXPECT_TRUE(index.truncated);
  ASSERT_EQ(index.messages.size(), messages.size());
  for (std::size_t i = 0; i + 1 < messages.size(); ++i) {
    EXPECT_EQ(UnquoteFrom(Slice(mbox, index.messages[i])), messages[i]);
  }
  EXPECT_TRUE(messages.back().starts_with(
      UnquoteFrom(Slice(mbox, index.messages.back()))));
}

TEST(IndexMbox, FlagsNulBytesInAMessage) {
  const std::string mbox = MakeMbox(
      {"Subject: a\n\nclean\n", std::string("Subject: b\n\nbi\0nary\n", 19)});
  const MboxIndex index = IndexMbox(mbox);
  ASSERT_EQ(index.messages.size(), 2u);
  EXPECT_FALSE(index.messages[0].has_nul);
  EXPECT_TRUE(index.messages[1].has_nul);
}

TEST(IndexMbox, NoFromLineIsNoMbox) {
  const std::string text = "just some text\nFrom nobody\n";
  const MboxIndex index = IndexMbox(text);
  EXPECT_TRUE(index.messages.empty());
  EXPECT_EQ(index.leading_bytes, text.size());
  EXPECT_TRUE(IndexMbox("").messages.empty());
}

TEST(UnquoteFrom, RemovesOneQuoteFromQuotedFromLinesOnly) {
  EXPECT_EQ(UnquoteFrom(">From a\n>>From b\n> From c\n>Fromage\nFrom d\n"),
            "From a\n>From b\n> From c\n>Fromage\nFrom d\n");
  EXPECT_EQ(UnquoteFrom(">From no line end"), "From no line end");
}

}  // namespace
}  // namespace mw::archive
