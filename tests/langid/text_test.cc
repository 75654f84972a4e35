// Script classification: scripts that identify a language alone decide it, Han
// goes to zh unless kana is present, and the per-script word histogram counts
// words.
#include <gtest/gtest.h>
#include <unicode/brkiter.h>
#include <unicode/utext.h>

#include <memory>
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
  // No spaces: runs are cut into word-sized pieces.
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

// The oracle for the unspaced scripts: the words ICU's dictionary-based word
// BreakIterator finds (segments of rule status letter, kana or ideographic),
// which the detector used before it cut runs into pieces of fixed length.
std::uint32_t IcuWords(std::string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> it(
      icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
  EXPECT_TRUE(U_SUCCESS(status));
  UText ut = UTEXT_INITIALIZER;
  utext_openUTF8(&ut, text.data(), static_cast<std::int64_t>(text.size()),
                 &status);
  it->setText(&ut, status);
  std::uint32_t words = 0;
  it->first();
  while (it->next() != icu::BreakIterator::DONE) {
    words += it->getRuleStatus() >= UBRK_WORD_LETTER;
  }
  utext_close(&ut);
  return words;
}

// Article 1 of the Universal Declaration of Human Rights.
constexpr std::string_view kChinese =
    "人人生而自由，在尊严和权利上一律平等。他们赋有理性和良心，"
    "并应以兄弟关系的精神相对待。";
constexpr std::string_view kJapanese =
    "すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて"
    "平等である。人間は、理性と良心とを授けられており、互いに同胞の精神をもっ"
    "て行動しなければならない。";
constexpr std::string_view kThai =
    "มนุษย์ทั้งหลายเกิดมามีอิสระและเสมอภาคกันในเกียรติศักดิ์และสิทธิ "
    "ต่างในตนมีเหตุผลและมโนธรรม และควรปฏิบัติต่อกันด้วยเจตนารมณ์แห่งภราดรภาพ";

TEST(ScriptTest, UnspacedScriptsCountAboutAsManyWordsAsIcu) {
  for (const std::string_view text : {kChinese, kJapanese, kThai}) {
    // No case to fold, and NFKC leaves these letters as they are.
    const double icu = IcuWords(text);
    const Language l = Guess(text);
    EXPECT_GE(l.words, 0.75 * icu) << text;
    EXPECT_LE(l.words, 1.25 * icu) << text;
  }
  EXPECT_EQ(Guess(kChinese).code, "zh-Hans");
  EXPECT_EQ(Guess(kJapanese).code, "ja");
  EXPECT_EQ(Guess(kThai).code, "th");
}

TEST(ScriptTest, ThaiMarksStayWithTheirLetter) {
  // Eight letters, each with a combining mark after it (U+0E34 sara i):
  // two words of four letters, not pieces of marks alone (which would be
  // Inherited and dropped, or words of their own).
  std::string text;
  for (int i = 0; i < 8; ++i) text += "\u0e01\u0e34";
  const Language l = Guess(text);
  EXPECT_EQ(l.words, 2u);
  EXPECT_EQ(ScriptCount(l, "Thai"), 2u);
}

TEST(ScriptTest, SpacedWordsAroundUnspacedRunsAreWhole) {
  // The Latin and Cyrillic words beside a Han run are the pieces they would
  // be alone; the run is cut into pieces of two.
  const Language l = Guess("hello東京都庁world привет 北京");
  EXPECT_EQ(ScriptCount(l, "Latin"), 2u);
  EXPECT_EQ(ScriptCount(l, "Cyrillic"), 1u);
  EXPECT_EQ(ScriptCount(l, "Han"), 3u);  // 東京 都庁 北京
  // Kana wins over Han inside a piece: 食べ る.
  const Language k = Guess("食べる");
  EXPECT_EQ(ScriptCount(k, "Hiragana"), 2u);
  EXPECT_EQ(k.code, "ja");
}

// Article 1 in traditional characters (as written in Taiwan).
constexpr std::string_view kTraditionalChinese =
    "人人生而自由，在尊嚴和權利上一律平等。他們賦有理性和良心，"
    "並應以兄弟關係的精神相對待。";

TEST(ChineseScriptTest, SimplifiedAndTraditionalAreNamed) {
  const Language hant = Guess(kTraditionalChinese);
  EXPECT_EQ(hant.code, "zh-Hant");
  EXPECT_EQ(hant.best, "zh-Hant");
  EXPECT_EQ(Guess(kChinese).code, "zh-Hans");
}

TEST(ChineseScriptTest, WithoutMarkersItStaysZh) {
  // Characters written the same in both scripts, and a single marker (们)
  // with nothing else: too little to name a script.
  EXPECT_EQ(Guess("人口大小上下").code, "zh");
  EXPECT_EQ(Guess("我们人口大小").code, "zh");
  // Both kinds in equal numbers (们 們 国 國): undecided.
  EXPECT_EQ(Guess("我们我們中国中國").code, "zh");
}

TEST(ChineseScriptTest, JapaneseKanjiDoNotMakeChinese) {
  // Traditional-looking kanji in Japanese text: still Japanese.
  EXPECT_EQ(Guess("東京駅から電車で會議に行きます").code, "ja");
}

TEST(ChineseScriptTest, BilingualVerdictNamesTheScript) {
  Options o;
  o.min_words = 1;
  static const Model model = testing::TinyModel();
  const std::string text = "house house bank house bank house\n\n" +
                           std::string(kTraditionalChinese);
  const Language l = Detect(text, model, o);
  ASSERT_TRUE(l.bilingual) << l.code;
  EXPECT_TRUE(l.code == "en+zh-Hant" || l.code == "zh-Hant+en") << l.code;
}

}  // namespace
}  // namespace mw::langid
