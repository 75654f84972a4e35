// Tests for sentence and paragraph splitting and block hashing
// (fingerprint/src/blocks.cc).
#include "fingerprint/blocks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <string_view>
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

// SplitSentences cuts ASCII paragraphs itself (UAX #29 as ICU implements it)
// and hands only the others to ICU; TEST_SplitSentencesIcu hands ICU the whole
// text. The two must give the same blocks for every input.
void ExpectSameAsIcu(std::string_view text) {
  ASSERT_EQ(SplitSentences(text), TEST_SplitSentencesIcu(text))
      << "text: \"" << text << "\"";
}

TEST(SplitSentences, SameAsIcuOnEveryShortString) {
  // One character of each Sentence_Break class ASCII has (Lower, Upper,
  // Numeric, ATerm, STerm, Sp, Close, SContinue, Other), and the line feed
  // that joins lines or separates paragraphs: every string of up to 5.
  static constexpr char kAlphabet[] = {'a', 'B', '1', '.', '!',
                                       ' ', '"', ',', '#', '\n'};
  constexpr std::size_t kSize = sizeof(kAlphabet);
  std::string s;
  for (std::size_t len = 0; len <= 5; ++len) {
    std::size_t total = 1;
    for (std::size_t k = 0; k < len; ++k) total *= kSize;
    s.resize(len);
    for (std::size_t code = 0; code < total; ++code) {
      std::size_t c = code;
      for (std::size_t k = 0; k < len; ++k, c /= kSize)
        s[k] = kAlphabet[c % kSize];
      ExpectSameAsIcu(s);
    }
  }
}

TEST(SplitSentences, SameAsIcuOnRandomText) {
  // Random words, every ASCII character at some rate (controls, tabs, form
  // feeds, carriage returns, NUL and every punctuation mark included), runs of
  // terminators, closing marks and spaces, abbreviations, and now and then a
  // non-ASCII character (accented letters, CJK and fullwidth terminators, NEL,
  // LINE and PARAGRAPH SEPARATOR, a combining mark, an invalid byte) so that
  // paragraphs of both kinds sit side by side.
  static constexpr std::string_view kPieces[] = {"the",
                                                 "offer",
                                                 "e.g.",
                                                 "mr.",
                                                 "u.s.a.",
                                                 "3.14",
                                                 "www.x.com",
                                                 "i",
                                                 "A",
                                                 "Mr",
                                                 "OK.",
                                                 "...",
                                                 "?!",
                                                 ".)",
                                                 ".\")",
                                                 "!'",
                                                 ". .",
                                                 ". a",
                                                 ". B",
                                                 ". 1",
                                                 ".,",
                                                 ".-",
                                                 "(x)",
                                                 "[y]",
                                                 "\"q\"",
                                                 "'s",
                                                 "a.b",
                                                 "x.Y",
                                                 "\t",
                                                 "\r",
                                                 "\f",
                                                 "\v",
                                                 "\n",
                                                 "\n\n",
                                                 " \n ",
                                                 "  ",
                                                 "é",
                                                 "É.",
                                                 "。",
                                                 "！",
                                                 "\xC2\x85",
                                                 "\xE2\x80\xA8",
                                                 "\xE2\x80\xA9",
                                                 "a\xCC\x81",
                                                 "\xFF",
                                                 "ß."};
  std::mt19937_64 rng(20261122);
  for (int trial = 0; trial < 20000; ++trial) {
    std::string text;
    const std::size_t pieces = rng() % 40;
    const bool ascii_only = trial % 2 == 0;
    for (std::size_t k = 0; k < pieces; ++k) {
      const std::uint64_t r = rng() % 100;
      if (r < 45) {
        std::string_view piece;
        do {
          piece = kPieces[rng() % std::size(kPieces)];
        } while (ascii_only &&
                 std::any_of(piece.begin(), piece.end(), [](char c) {
                   return static_cast<unsigned char>(c) >= 0x80;
                 }));
        text += piece;
      } else if (r < 85) {
        text += static_cast<char>(' ' + rng() % 95);  // printable ASCII
      } else if (r < 95) {
        text += ' ';
      } else {
        text += static_cast<char>(rng() % 32);  // controls, NUL included
      }
    }
    ExpectSameAsIcu(text);
  }
}

TEST(SplitSentences, SameAsIcuOnLongRuns) {
  // Long runs of closing marks and spaces after a terminator: the look-behind
  // and SB8's look-ahead span them (and stay linear).
  for (const std::string_view head : {"a.", "a!", "A.", "1."}) {
    for (const char fill : {')', ' ', '"', '#', ','}) {
      for (const std::string_view tail : {"a", "B", "1", "", "\n", "!"}) {
        std::string text(head);
        text.append(5000, fill);
        text.append(tail);
        ExpectSameAsIcu(text);
      }
    }
  }
}

// ComputeBlocks hashes blocks as the splitters produce them; it must equal
// hashing the split strings.
void ExpectComputeBlocksSameAsHashBlocks(std::string_view text) {
  for (const BlockKind kind : {BlockKind::kSentences, BlockKind::kParagraphs}) {
    const BlockList ours = ComputeBlocks(text, kind);
    const BlockList ref =
        HashBlocks(kind == BlockKind::kSentences ? SplitSentences(text)
                                                 : SplitParagraphs(text),
                   kind);
    ASSERT_EQ(ours.kind, kind);
    ASSERT_EQ(ours.hashes, ref.hashes) << text;
    ASSERT_EQ(ours.keys, ref.keys) << text;
  }
}

TEST(ComputeBlocks, SameAsHashingTheSplitStrings) {
  ExpectComputeBlocksSameAsHashBlocks("");
  ExpectComputeBlocksSameAsHashBlocks("one. two. one.\n\none.\n--\n");
  std::mt19937_64 rng(8);
  static constexpr std::string_view kPieces[] = {
      "word", "same", ". ", "! ", "\n", "\n\n", "  ", "--", "é", "。", "e.g."};
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text;
    const std::size_t pieces = rng() % 60;
    for (std::size_t k = 0; k < pieces; ++k)
      text += kPieces[rng() % std::size(kPieces)];
    ExpectComputeBlocksSameAsHashBlocks(text);
  }
}

TEST(SplitParagraphs, OneBlockPerNonEmptyLine) {
  EXPECT_THAT(
      SplitParagraphs("first line.  second sentence.\n\n  indented\n--\nlast"),
      ElementsAre("first line. second sentence.", "indented", "last"));
}

// The definition of a line block, written out: runs of whitespace folded to
// one space, ends trimmed, kept when it holds a letter or digit. The random
// lines use non-ASCII characters whose class is known: é and 中 are letters,
// — and … are not.
TEST(SplitParagraphs, SameAsTheDefinitionOnRandomLines) {
  const std::vector<std::string> pieces = {
      " ", " ", "  ", "\t", "\r", "\f", "\v", "a",  "z9", "word",
      "-", "!", "..", "é",  "中", "—",  "…",  "\n", "\n", "x y"};
  const auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
  };
  std::mt19937_64 rng(31);
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    for (int k = static_cast<int>(rng() % 14); k > 0; --k)
      text += pieces[rng() % pieces.size()];
    std::vector<std::string> want;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t eol = text.find('\n', start);
      if (eol == std::string::npos) eol = text.size();
      std::string folded;
      bool space = false;
      for (std::size_t i = start; i < eol; ++i) {
        if (is_space(text[i])) {
          space = !folded.empty();
          continue;
        }
        if (space) folded += ' ';
        space = false;
        folded += text[i];
      }
      const bool word =
          folded.find_first_of("abcdefghijklmnopqrstuvwxyz0123456789") !=
              std::string::npos ||
          folded.find("é") != std::string::npos ||
          folded.find("中") != std::string::npos;
      if (word) want.push_back(folded);
      start = eol + 1;
    }
    ASSERT_EQ(SplitParagraphs(text), want) << round;
  }
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
  // The first 32 bits of the SHA-1, in the high half (BlockKeyOf).
  EXPECT_EQ(list.keys[0].key, 0x86f7e43700000000ULL);
  EXPECT_EQ(list.keys[0].pos, 1u);
}

TEST(Sha1Of, KnownVector) {
  EXPECT_EQ(Hex(Sha1Of("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Hex(Sha1Of("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
}

// The block lists' SHA-1 (the SHA extensions where this CPU has them) against
// OpenSSL's: every length from 0 to 300 bytes (every padding case: one or two
// final blocks, the length field split or not) and some long ones, random
// bytes of every value.
TEST(BlockSha1, SameAsOpenSsl) {
  const std::vector<Sha1> abc = TEST_BlockSha1("abc");
  if (abc.size() < 4) GTEST_LOG_(INFO) << "no SHA extensions: OpenSSL only";
  for (const Sha1& h : abc)
    EXPECT_EQ(Hex(h), "a9993e364706816aba3e25717850c26c9cd0d89d");
  for (const Sha1& h : TEST_BlockSha1(""))
    EXPECT_EQ(Hex(h), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  std::mt19937_64 rng(12);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  for (const std::size_t n : {1000u, 4095u, 4096u, 65537u})
    lengths.push_back(n);
  for (const std::size_t n : lengths) {
    for (int trial = 0; trial < 3; ++trial) {
      std::string bytes(n, '\0');
      for (char& c : bytes) c = static_cast<char>(rng());
      for (const Sha1& h : TEST_BlockSha1(bytes))
        ASSERT_EQ(h, Sha1Of(bytes)) << n;
    }
  }
}

// Blocks are hashed two at a time where the CPU has the SHA extensions: pairs
// of different lengths (one finishing blocks before the other), an odd block
// out at the end, and the keys and positions built after the hashes.
TEST(HashBlocks, PairsOfEveryLengthSameAsOpenSsl) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<std::string> blocks(trial % 7);
    for (std::string& b : blocks) {
      b.resize(rng() % (trial % 2 == 0 ? 140 : 400));
      for (char& c : b) c = static_cast<char>(rng());
    }
    const BlockList list = HashBlocks(blocks, BlockKind::kSentences);
    ASSERT_EQ(list.hashes.size(), blocks.size());
    ASSERT_EQ(list.keys.size(), blocks.size());
    for (std::size_t k = 0; k < blocks.size(); ++k)
      ASSERT_EQ(list.hashes[k], Sha1Of(blocks[k])) << blocks[k].size();
    for (const BlockKey& key : list.keys) {
      const Sha1& h = list.hashes[key.pos];
      std::uint64_t expected = 0;
      for (int b = 0; b < 4; ++b) expected = (expected << 8) | h[b];
      ASSERT_EQ(key.key, expected << 32);
      ASSERT_EQ(key.len, blocks[key.pos].size());
    }
    ASSERT_TRUE(std::is_sorted(list.keys.begin(), list.keys.end()));
  }
}

}  // namespace
}  // namespace mw::fingerprint
