// mime::DecodeToUtf8 (private to mw::mime): declared, detected and repaired
// charsets.
#include "mime/src/charset.h"

#include <gtest/gtest.h>

namespace mw::mime {
namespace {

TEST(DecodeToUtf8, AsciiIsPassedThrough) {
  const Decoded d = DecodeToUtf8("plain ascii", "");
  EXPECT_EQ(d.utf8, "plain ascii");
  EXPECT_EQ(d.charset_used, "us-ascii");
  EXPECT_EQ(d.replaced, 0u);
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

TEST(DecodeToUtf8, Utf7OnlyWhenDeclared) {
  EXPECT_EQ(DecodeToUtf8("Hi Mom -+Jjo--!", "utf-7").utf8, "Hi Mom -☺-!");
  EXPECT_EQ(DecodeToUtf8("Hi Mom -+Jjo--!", "").utf8, "Hi Mom -+Jjo--!");
}

}  // namespace
}  // namespace mw::mime
