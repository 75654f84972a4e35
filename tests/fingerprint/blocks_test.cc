// Tests for sentence and paragraph splitting and block hashing
// (fingerprint/src/blocks.cc).
#include "fingerprint/blocks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mw::fingerprint {
namespace {

using ::testing::ElementsAre;

TEST(SplitSentences, SplitsCaseFoldedText) {
  // Case folding removed the capital letters ICU's sentence rules rely on.
  EXPECT_THAT(
      SplitSentences("the meeting is at noon. bring the report. thanks!"),
      ElementsAre("the meeting is at noon.", "bring the report.", "thanks!"));
}

TEST(SplitSentences, KeepsDottedAbbreviationsInsideSentences) {
  EXPECT_THAT(
      SplitSentences(
          "we ship to the u.s. and canada, e.g. toronto. mr. smith agrees."),
      ElementsAre("we ship to the us and canada, eg toronto.",
                  "mr smith agrees."));
  EXPECT_THAT(
      SplitSentences(
          "i.e. nothing changes. dr. no, inc. said so (etc.) today."),
      ElementsAre("ie nothing changes.", "dr no, inc said so (etc) today."));
}

TEST(SplitSentences, JoinsHardWrappedLinesWithinAParagraph) {
  EXPECT_THAT(
      SplitSentences(
          "this sentence is long enough to have been wrapped\nover two lines. "
          "next one.\n\nnew para"),
      ElementsAre(
          "this sentence is long enough to have been wrapped over two lines.",
          "next one.", "new para"));
}

TEST(SplitSentences, QuestionAndExclamationMarks) {
  EXPECT_THAT(SplitSentences("are you there? yes! ok."),
              ElementsAre("are you there?", "yes!", "ok."));
}

TEST(SplitSentences, NumbersAndUrlsDoNotSplit) {
  EXPECT_THAT(
      SplitSentences(
          "version 3.5 is out at http://example.com/x.html today. bye."),
      ElementsAre("version 3.5 is out at http://example.com/x.html today.",
                  "bye."));
}

TEST(SplitSentences, ChineseAndJapaneseWithoutSpaces) {
  EXPECT_THAT(SplitSentences("我喜欢猫。他喜欢狗。你呢？"),
              ElementsAre("我喜欢猫。", "他喜欢狗。", "你呢？"));
  EXPECT_THAT(SplitSentences("今日は晴れです。明日は雨でしょう！"),
              ElementsAre("今日は晴れです。", "明日は雨でしょう！"));
}

TEST(SplitSentences, ThaiParagraphsStayWhole) {
  // Thai has no sentence punctuation; ICU keeps a paragraph together rather
  // than cutting words.
  const std::vector<std::string> s =
      SplitSentences("ฉันชอบแมว เขาชอบหมา\n\nวันนี้อากาศดี");
  EXPECT_THAT(s, ElementsAre("ฉันชอบแมว เขาชอบหมา", "วันนี้อากาศดี"));
}

TEST(SplitSentences, DropsBlocksWithoutLettersOrDigits) {
  EXPECT_THAT(SplitSentences("hello there.\n\n--\n\n!!! ... \n\nbye now."),
              ElementsAre("hello there.", "bye now."));
  EXPECT_TRUE(SplitSentences("").empty());
  EXPECT_TRUE(SplitSentences("\n\n  \n").empty());
}

TEST(SplitParagraphs, OneBlockPerNonEmptyLine) {
  EXPECT_THAT(
      SplitParagraphs("first line.  second sentence.\n\n  indented\n--\nlast"),
      ElementsAre("first line. second sentence.", "indented", "last"));
}

TEST(HashBlocks, OrderedHashesAndSortedKeys) {
  const BlockList list = HashBlocks({"b", "a", "b"}, BlockKind::kSentences);
  ASSERT_EQ(list.hashes.size(), 3u);
  EXPECT_EQ(list.hashes[0], list.hashes[2]);
  EXPECT_NE(list.hashes[0], list.hashes[1]);
  EXPECT_EQ(Hex(list.hashes[1]),
            "86f7e437faa5a7fce15d1ddcb9eaeaea377667b8");  // sha1("a")
  ASSERT_EQ(list.keys.size(), 3u);
  EXPECT_TRUE(std::is_sorted(list.keys.begin(), list.keys.end()));
  EXPECT_EQ(list.keys[0].key, 0x86f7e437faa5a7fcULL);
  EXPECT_EQ(list.keys[0].pos, 1u);
}

TEST(Sha1Of, KnownVector) {
  EXPECT_EQ(Hex(Sha1Of("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Hex(Sha1Of("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

}  // namespace
}  // namespace mw::fingerprint
