// mime::NormaliseText and mime::Normalise.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mime/message.h"

namespace mw::mime {
namespace {

TEST(NormaliseText, CaseFoldsWithNfkc) {
  EXPECT_EQ(NormaliseText("HELLO World"), "hello world");
  EXPECT_EQ(NormaliseText("Straße"), "strasse");
  EXPECT_EQ(NormaliseText("ＦＵＬＬＷＩＤＴＨ ｶﾀｶﾅ"), "fullwidth カタカナ");
  EXPECT_EQ(NormaliseText("ﬁne ①"), "fine 1");
  EXPECT_EQ(NormaliseText("ΣΊΣΥΦΟΣ"), "σίσυφοσ");
}

TEST(NormaliseText, RemovesInvisibleCharacters) {
  // zero-width space, ZWNJ, ZWJ, soft hyphen, word joiner, BOM, LRM, RLO,
  // LRI/PDI
  EXPECT_EQ(NormaliseText("v\u200bi\u200ca\u200dg\u00adr\u2060a\ufeff "
                          "\u200ep\u202ei\u2066l\u2069l"),
            "viagra pill");
}

TEST(NormaliseText, CollapsesWhitespaceInsideLines) {
  EXPECT_EQ(NormaliseText("  a \t b\u00a0\u00a0c\u3000d   \n  e  "),
            "a b c d\ne");
}

TEST(NormaliseText, KeepsLinesAndOneBlankLineBetweenParagraphs) {
  EXPECT_EQ(NormaliseText("\n\n one\r\ntwo\r\n\r\n\r\n  \n three\n\n\n"),
            "one\ntwo\n\nthree");
  EXPECT_EQ(NormaliseText("a\rb\fc\u2028d\u2029e"), "a\nb\n\nc\nd\n\ne");
}

TEST(NormaliseText, RepairsC1ControlsAsWindows1252) {
  // U+0092 is windows-1252's right single quote decoded as Latin-1.
  EXPECT_EQ(NormaliseText("it\u0092s \u0093quoted\u0094 \u0080 5"),
            "it’s “quoted” € 5");
  EXPECT_EQ(NormaliseText("undefined\u0081byte"), "undefinedbyte");
}

TEST(NormaliseText, ControlCharactersSeparateWords) {
  EXPECT_EQ(NormaliseText(std::string("nul\0byte\x01here", 14)),
            "nul byte here");
}

TEST(NormaliseText, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_EQ(NormaliseText("ok\xff\xfe ok"), "ok\ufffd\ufffd ok");
}

TEST(NormaliseText, EmptyAndBlank) {
  EXPECT_EQ(NormaliseText(""), "");
  EXPECT_EQ(NormaliseText(" \n\t\n\u200b"), "");
}

TEST(NormaliseText, IsIdempotent) {
  const std::string once =
      NormaliseText("Ärger  über\n\n\nDINGE\u200b und ＡＢＣ");
  EXPECT_EQ(NormaliseText(once), once);
}

// `n` pieces drawn from `pieces` (characters of a string, or strings) by a
// xorshift generator whose state `x` carries over from call to call.
template <typename Pieces>
std::string RandomText(const Pieces& pieces, int n, std::uint32_t& x) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    s += pieces[x % pieces.size()];
  }
  return s;
}

TEST(NormaliseText, AsciiFastPathAgreesWithIcuPath) {
  // A trailing zero-width space sends the same text through ICU and is then
  // dropped without touching the layout, so both paths must give one result.
  const std::string alphabet = "aZ09 .,\t\r\n\x01\x7f\x0c\x0b!";
  std::uint32_t x = 2463534242u;
  for (int round = 0; round < 2000; ++round) {
    const std::string s = RandomText(alphabet, round % 40, x);
    ASSERT_EQ(NormaliseText(s), NormaliseText(s + "\u200b"))
        << testing::PrintToString(s);
  }
}

TEST(NormaliseText, FoldTableAgreesWithIcuPath) {
  // Pieces that fold alone, pieces that combine with their neighbours
  // (combining marks, Hangul jamo, Devanagari nukta), expansions longer than
  // the table keeps, C1 controls, controls, invisibles, characters outside the
  // BMP and invalid UTF-8, in random order: the per-character path must give
  // the ICU path's bytes.
  const std::vector<std::string> pieces = {
      "a",        "Z",        "0",          " ",
      "\t",       "\n",       "\r",         "\x01",
      "\x7f",     "\x0c",     "\u00e9",     "\u00c9",
      "e\u0301",  "E\u0301",  "\u0301",     "\u0323",
      "\u0308",   "\u00df",   "\u1e9e",     "\u0130",
      "\u00a0",   "\u00ad",   "\u00a8",     "\u00b4",
      "\u00bd",   "\u00b5",   "\u0149",     "\u01c4",
      "\u0390",   "\u03a3",   "\u0587",     "\u0416",
      "\u0456",   "\u0627",   "\u0654",     "\u0928",
      "\u093c",   "\u0915",   "\u1100",     "\u1161",
      "\u11a8",   "\uac00",   "\u3000",     "\uff21",
      "\uff76",   "\ufb01",   "\ufdfa",     "\u2126",
      "\u200b",   "\u2028",   "\u2029",     "\u3099",
      "\u304b",   "\u0e01",   "\U0001d400", "\U0001f600",
      "\xc2\x92", "\xc2\x85", "\xc2\x81",   "\xc2\x80",
      "\xff",     "\xe2\x82", "\xc3",       "\xed\xa0\x80",
      "\xf0\x9f", "\x80",     "\u0e48",     "\u0e33",
      "\u0e38",   "\u094d",   "\u034f",     "\u2800"};
  std::uint32_t x = 2463534242u;
  for (int round = 0; round < 20000; ++round) {
    const std::string s = RandomText(pieces, round % 24, x);
    ASSERT_EQ(NormaliseText(s), TEST_NormaliseTextIcu(s))
        << testing::PrintToString(s);
  }
}

TEST(Normalise, SubjectIsOneLine) {
  Message m;
  m.subject = "Re:  Hello\n\tWORLD";
  m.body = "Body";
  const Text t = Normalise(m);
  EXPECT_EQ(t.subject, "re: hello world");
  EXPECT_EQ(t.body, "body");
}

}  // namespace
}  // namespace mw::mime
