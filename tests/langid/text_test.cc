// Script classification: scripts that identify a language alone decide it, Han
// goes to zh unless kana is present, and the per-script word histogram counts
// words.
#include <gtest/gtest.h>

#include <string>

#include "langid/langid.h"
#include "tests/langid/testutil.h"

namespace mw::langid {
namespace {

Language Guess(std::string_view text) {
  static const Model model = testing::TinyModel();
  Options o;
  o.min_words = 1;
  o.min_score = 0;
  return Detect(text, model, o);
}

std::uint32_t ScriptCount(const Language& l, std::string_view script) {
  for (const auto& [name, n] : l.scripts) {
    if (name == script) return n;
  }
  return 0;
}

TEST(ScriptTest, Greek) {
  const Language l = Guess("καλημέρα κόσμε");
  EXPECT_EQ(l.code, "el");
  EXPECT_EQ(ScriptCount(l, "Greek"), 2u);
}

TEST(ScriptTest, Georgian) { EXPECT_EQ(Guess("გამარჯობა მსოფლიო").code, "ka"); }
TEST(ScriptTest, Armenian) { EXPECT_EQ(Guess("բարեւ աշխարհ").code, "hy"); }
TEST(ScriptTest, Hangul) { EXPECT_EQ(Guess("안녕하세요 세계").code, "ko"); }
TEST(ScriptTest, Thai) {
  // No spaces: the BreakIterator's dictionary finds the words.
  const Language l = Guess("สวัสดีครับยินดีต้อนรับ");
  EXPECT_EQ(l.code, "th");
  EXPECT_GE(ScriptCount(l, "Thai"), 2u);
}
TEST(ScriptTest, Hebrew) { EXPECT_EQ(Guess("שלום עולם").code, "he"); }

TEST(ScriptTest, KanaIsJapanese) {
  EXPECT_EQ(Guess("こんにちは").code, "ja");
  EXPECT_EQ(Guess("カタカナ").code, "ja");
}

TEST(ScriptTest, HanWithKanaIsJapanese) {
  const Language l = Guess("東京に行きます");
  EXPECT_EQ(l.code, "ja");
  EXPECT_GE(ScriptCount(l, "Han"), 1u);
}

TEST(ScriptTest, HanWithoutKanaIsChinese) {
  const Language l = Guess("我们今天去北京");
  EXPECT_EQ(l.code, "zh");
  EXPECT_GE(ScriptCount(l, "Han"), 2u);  // segmented into words, not one run
  EXPECT_EQ(ScriptCount(l, "Hiragana"), 0u);
}

TEST(ScriptTest, MixedScriptsHistogramMostFrequentFirst) {
  const Language l = Guess("house house bank καλημέρα");
  ASSERT_EQ(l.scripts.size(), 2u);
  EXPECT_EQ(l.scripts[0].first, "Latin");
  EXPECT_EQ(l.scripts[0].second, 3u);
  EXPECT_EQ(l.scripts[1].first, "Greek");
  EXPECT_EQ(l.code, "en");
}

TEST(ScriptTest, CombiningMarksStayInTheWord) {
  // "é" as e + U+0301 (not NFC) is one word, Latin, not two.
  const Language l = Guess("cafe\xCC\x81");
  EXPECT_EQ(l.words, 1u);
}

TEST(ScriptTest, ScriptLanguage) {
  EXPECT_EQ(ScriptLanguage("Greek"), "el");
  EXPECT_EQ(ScriptLanguage("Hangul"), "ko");
  EXPECT_EQ(ScriptLanguage("Latin"), "");
  EXPECT_EQ(ScriptLanguage("NoSuchScript"), "");
}

// ASCII takes a path without ICU property lookups: letters are Latin, digits
// drop their piece, every other character splits, as for non-ASCII text.
TEST(ScriptTest, AsciiPiecesSplitLikeOtherText) {
  // don + t, café, naïve, o + brien + x, über; "3rd" and "x2" are dropped.
  const Language l = Guess("don't 3rd x2 café-naïve o'brien_x über!");
  EXPECT_EQ(l.words, 8u);
  EXPECT_EQ(ScriptCount(l, "Latin"), 8u);
  // Mixed with Cyrillic in one run: the piece takes the first non-Common
  // script.
  const Language m = Guess("abcд дabc");
  EXPECT_EQ(m.words, 2u);
  EXPECT_EQ(ScriptCount(m, "Latin"), 1u);
  EXPECT_EQ(ScriptCount(m, "Cyrillic"), 1u);
}

}  // namespace
}  // namespace mw::langid
