// mime::DecodeToUtf8 (private to mw::mime): declared, detected and repaired
// charsets.
#include "mime/src/charset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <random>
#include <string>

namespace mw::mime {
namespace {

TEST(DecodeToUtf8, AsciiIsPassedThrough) {
  const Decoded d = DecodeToUtf8("plain ascii", "");
  EXPECT_EQ(d.utf8, "plain ascii");
  EXPECT_EQ(d.charset_used, "us-ascii");
  EXPECT_EQ(d.replaced, 0u);
}

// 7-bit text under a label no charset has ("default" is a real mailer's) was
// read as ASCII, and is reported so, without a warning (nothing was lost or
// guessed); a known label is kept, as it reads the same.
TEST(DecodeToUtf8, AsciiUnderAnUnknownLabelIsReportedAsAscii) {
  const Decoded bogus = DecodeToUtf8("plain ascii", "default");
  EXPECT_EQ(bogus.utf8, "plain ascii");
  EXPECT_EQ(bogus.charset_used, "us-ascii");
  EXPECT_EQ(bogus.note, "");
  const Decoded latin = DecodeToUtf8("plain ascii", "ISO-8859-1");
  EXPECT_EQ(latin.charset_used, "iso-8859-1");
  EXPECT_EQ(latin.note, "");
}

std::string Hex(std::string_view s) {
  std::string out;
  char b[4];
  for (const char c : s) {
    std::snprintf(b, sizeof b, "%02x ", static_cast<unsigned char>(c));
    out += b;
  }
  return out;
}

// Declared UTF-8 that is well-formed skips ICU: the result must be what
// ICU's converter makes of it, on every kind of code point (the BOM, U+FFFD,
// noncharacters, the last plane) and on text that is not well-formed (which
// still goes the old way: ICU's repair, or the detector).
TEST(DecodeToUtf8, WellFormedUtf8IsWhatIcuMakesOfIt) {
  std::mt19937_64 rng(29);
  const auto encode = [](char32_t c, std::string& out) {
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  };
  const char32_t kEdges[] = {0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF,  0xFDD0,   0x7FF,
                             0x800,  0xD7FF, 0xE000, 0x10000, 0x10FFFF, 0};
  int fast = 0, slow = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    const int n = 1 + static_cast<int>(rng() % 40);
    for (int k = 0; k < n; ++k) {
      char32_t c;
      switch (rng() % 4) {
        case 0:
          c = static_cast<char32_t>(0x20 + rng() % 0x5F);
          break;
        case 1:
          c = kEdges[rng() % std::size(kEdges)];
          break;
        default:
          c = static_cast<char32_t>(rng() % 0x110000);
          if (c >= 0xD800 && c <= 0xDFFF) c = 0xE000;  // not a scalar value
      }
      encode(c, text);
    }
    if (round % 3 == 0) {
      // A stray byte: a lone continuation, a bad lead, an overlong form, an
      // encoded surrogate or a cut sequence.
      static const std::string kBad[] = {
          "\x80",    "\xFF", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80",
          "\xE2\x82"};
      text.insert(rng() % (text.size() + 1), kBad[rng() % std::size(kBad)]);
    }
    const Decoded got = DecodeToUtf8(text, "UTF-8");
    const Decoded icu = TEST_DecodeUtf8ViaIcu(text);
    if (std::all_of(text.begin(), text.end(), [](char ch) {
          return static_cast<unsigned char>(ch) < 0x80;
        })) {
      continue;  // the ASCII path, tested elsewhere
    }
    if (icu.replaced == 0) {
      ++fast;
      ASSERT_EQ(got.utf8, icu.utf8) << "round " << round << ": " << Hex(text);
      EXPECT_EQ(got.utf8, text);
      EXPECT_EQ(got.replaced, 0u);
      EXPECT_EQ(got.charset_used, "utf-8");
      EXPECT_FALSE(got.detected);
      EXPECT_TRUE(got.note.empty());
    } else {
      // Not well-formed: repaired by ICU or decoded as a detected charset,
      // never passed through.
      ++slow;
      EXPECT_TRUE(got.replaced > 0 || got.detected)
          << "round " << round << ": " << Hex(text);
    }
  }
  EXPECT_GT(fast, 500);
  EXPECT_GT(slow, 300);
}

TEST(DecodeToUtf8, Latin1MeansWindows1252) {
  const Decoded d = DecodeToUtf8("caf\xe9 \x80 \x93q\x94", "ISO-8859-1");
  EXPECT_EQ(d.utf8, "café € “q”");
  EXPECT_EQ(d.charset_used, "windows-1252");
}

TEST(DecodeToUtf8, Gb2312MeansGbk) {
  // 镕 (E9 46) is in GBK but not in GB2312; mailers label GBK text gb2312.
  const Decoded d = DecodeToUtf8("\xe9\x46", "gb2312");
  EXPECT_EQ(d.utf8, "镕");
  EXPECT_EQ(d.replaced, 0u);
}

TEST(DecodeToUtf8, InvalidBytesAreReplacedAndCounted) {
  const Decoded d = DecodeToUtf8("ok \xc3\xa9 bad \xff end", "utf-8");
  EXPECT_EQ(d.utf8, "ok é bad \ufffd end");
  EXPECT_EQ(d.replaced, 1u);
  EXPECT_EQ(d.charset_used, "utf-8");
}

TEST(DecodeToUtf8, UnknownCharsetFallsBackWithNote) {
  const Decoded d = DecodeToUtf8("caf\xe9", "x-no-such-charset");
  EXPECT_EQ(d.utf8, "café");
  EXPECT_TRUE(d.detected);
  EXPECT_NE(d.note.find("unknown charset 'x-no-such-charset'"),
            std::string::npos)
      << d.note;
}

TEST(DecodeToUtf8, Iso2022JpIsDecodedWhenDeclared) {
  // "日本" in ISO-2022-JP: ESC $ B 46 7C 4B 5C ESC ( B
  const Decoded d = DecodeToUtf8("\x1b$BF|K\\\x1b(B", "iso-2022-jp");
  EXPECT_EQ(d.utf8, "日本");
}

TEST(DecodeToUtf8, WesternTextLabelledLatin1IsNotOverridden) {
  const std::string german =
      "Sch\xf6ne Gr\xfc\xdf"
      "e aus K\xf6ln, wir freuen uns auf Ihren Besuch.";
  const Decoded d = DecodeToUtf8(german, "iso-8859-1");
  EXPECT_EQ(d.charset_used, "windows-1252");
  EXPECT_FALSE(d.detected);
}

// Russian in windows-1251 after a long ASCII head (an HTML part's style sheet
// runs to tens of KB in real newsletters), no charset declared: the detector
// must read the 8-bit text, not only the head.
TEST(DecodeToUtf8, DetectionReadsTheTextPastALongAsciiHead) {
  std::string head = "<html><head><style>\n";
  while (head.size() < 80 * 1024) {
    head += ".c" + std::to_string(head.size()) + " { color: #333333; }\n";
  }
  head += "</style></head><body>\n";
  // "Уважаемый клиент, ваш заказ отправлен сегодня. Спасибо за покупку!"
  const std::string cp1251 =
      "\xd3\xe2\xe0\xe6\xe0\xe5\xec\xfb\xe9 \xea\xeb\xe8\xe5\xed\xf2, "
      "\xe2\xe0\xf8 \xe7\xe0\xea\xe0\xe7 \xee\xf2\xef\xf0\xe0\xe2"
      "\xeb\xe5\xed \xf1\xe5\xe3\xee\xe4\xed\xff. \xd1\xef\xe0\xf1"
      "\xe8\xe1\xee \xe7\xe0 \xef\xee\xea\xf3\xef\xea\xf3!\n";
  std::string body;
  for (int i = 0; i < 20; ++i) body += cp1251;
  const Decoded d = DecodeToUtf8(head + body + "</body></html>\n", "");
  EXPECT_EQ(d.charset_used, "windows-1251");
  EXPECT_NE(d.utf8.find("Уважаемый клиент, ваш заказ отправлен сегодня."),
            std::string::npos);
}

// The copies of a wave run ICU's detector once: a sample this thread met
// among its last 16 gets the same answer without it, and anything else
// (another text, the 17th text since) runs it again.
TEST(DecodeToUtf8, TheDetectorRunsOncePerRecentSample) {
  // "Уважаемый клиент, ваш заказ отправлен сегодня. Спасибо за покупку!" in
  // windows-1251, then a number that makes each text distinct.
  const auto text = [](int n) {
    const std::string cp1251 =
        "\xd3\xe2\xe0\xe6\xe0\xe5\xec\xfb\xe9 \xea\xeb\xe8\xe5\xed\xf2, "
        "\xe2\xe0\xf8 \xe7\xe0\xea\xe0\xe7 \xee\xf2\xef\xf0\xe0\xe2"
        "\xeb\xe5\xed \xf1\xe5\xe3\xee\xe4\xed\xff. \xd1\xef\xe0\xf1"
        "\xe8\xe1\xee \xe7\xe0 \xef\xee\xea\xf3\xef\xea\xf3!\n";
    std::string t;
    for (int i = 0; i < 10; ++i) t += cp1251;
    return t + std::to_string(n) + "\n";
  };
  const std::uint64_t runs = TEST_DetectorRuns();
  const Decoded first = DecodeToUtf8(text(0), "");
  EXPECT_EQ(TEST_DetectorRuns(), runs + 1);
  const Decoded again = DecodeToUtf8(text(0), "");
  EXPECT_EQ(TEST_DetectorRuns(), runs + 1);
  EXPECT_EQ(again.utf8, first.utf8);
  EXPECT_EQ(again.charset_used, first.charset_used);
  EXPECT_EQ(again.detected, first.detected);
  EXPECT_EQ(first.charset_used, "windows-1251");
  for (int n = 1; n <= 16; ++n) (void)DecodeToUtf8(text(n), "");
  EXPECT_EQ(TEST_DetectorRuns(), runs + 17);
  EXPECT_EQ(DecodeToUtf8(text(0), "").utf8, first.utf8);  // forgotten: again
  EXPECT_EQ(TEST_DetectorRuns(), runs + 18);
  (void)DecodeToUtf8(text(16), "");  // still remembered
  EXPECT_EQ(TEST_DetectorRuns(), runs + 18);
}

TEST(DecodeToUtf8, Utf7OnlyWhenDeclared) {
  EXPECT_EQ(DecodeToUtf8("Hi Mom -+Jjo--!", "utf-7").utf8, "Hi Mom -☺-!");
  EXPECT_EQ(DecodeToUtf8("Hi Mom -+Jjo--!", "").utf8, "Hi Mom -+Jjo--!");
}

}  // namespace
}  // namespace mw::mime
