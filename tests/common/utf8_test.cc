#include "mw/utf8.h"

#include <gtest/gtest.h>

namespace mw {
namespace {

struct Decoded {
  char32_t cp;
  std::size_t len;
};

Decoded At(std::string_view s, std::size_t i = 0) {
  std::size_t len = 0;
  const char32_t cp = DecodeUtf8(s, i, &len);
  return {cp, len};
}

TEST(DecodeUtf8, ValidSequencesOfEachLength) {
  EXPECT_EQ(At("a").cp, U'a');
  EXPECT_EQ(At("a").len, 1u);
  EXPECT_EQ(At("\xc3\xa9").cp, U'é');
  EXPECT_EQ(At("\xc3\xa9").len, 2u);
  EXPECT_EQ(At("\xe2\x82\xac").cp, U'€');
  EXPECT_EQ(At("\xe2\x82\xac").len, 3u);
  EXPECT_EQ(At("\xf0\x9f\x98\x80").cp, U'\U0001F600');
  EXPECT_EQ(At("\xf0\x9f\x98\x80").len, 4u);
  EXPECT_EQ(At("x\xc3\xa9", 1).cp, U'é');
}

TEST(DecodeUtf8, InvalidSequencesAreReplacementOfLengthOne) {
  for (std::string_view bad :
       {"\x80", "\xff", "\xc3", "\xc3(", "\xc0\xaf", "\xe0\x80\xaf",
        "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x9f\x98"}) {
    const Decoded d = At(bad);
    EXPECT_EQ(d.cp, U'\uFFFD') << testing::PrintToString(bad);
    EXPECT_EQ(d.len, 1u) << testing::PrintToString(bad);
  }
}

TEST(DecodeUtf8, GenuineReplacementCharacterKeepsItsLength) {
  EXPECT_EQ(At("\xef\xbf\xbd").cp, U'\uFFFD');
  EXPECT_EQ(At("\xef\xbf\xbd").len, 3u);
}

}  // namespace
}  // namespace mw
