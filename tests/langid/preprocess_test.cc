// What Collect does to a text before segmenting it: addresses blanked in
// place (line and paragraph breaks kept), C1 controls found.
#include "langid/src/preprocess.h"

#include <gtest/gtest.h>

#include <string>

namespace mw::langid::internal {
namespace {

TEST(BlankAddresses, UrlsAddressesAndWwwTokensBecomeSpaces) {
  const std::string in =
      "see https://example.org/a?b=c now\nmail bob@example.com or "
      "www.example.net\n\nthanks";
  const std::string out = BlankAddresses(in);
  ASSERT_EQ(out.size(), in.size());
  EXPECT_EQ(out.find("example"), std::string::npos) << out;
  EXPECT_EQ(out.substr(0, 4), "see ");
  // Breaks stay where they were, so lines and paragraphs are unchanged.
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\n') {
      EXPECT_EQ(out[i], '\n') << i;
    }
  }
  EXPECT_NE(out.find(" now\nmail "), std::string::npos) << out;
  EXPECT_EQ(out.substr(out.size() - 8), "\n\nthanks");
}

TEST(BlankAddresses, NothingToBlankGivesEmpty) {
  EXPECT_EQ(BlankAddresses("plain words, no links"), "");
  // "www." inside a word is not an address: nothing is blanked.
  const std::string o = BlankAddresses("awww.cute");
  EXPECT_TRUE(o.empty() || o == "awww.cute") << o;
}

TEST(HasC1, FindsC1ControlsOnly) {
  EXPECT_TRUE(HasC1("it\xC2\x92s"));
  EXPECT_FALSE(HasC1("caf\xC3\xA9 \xC2\xA0"));  // é and NBSP are not C1
  EXPECT_FALSE(HasC1("\xC2"));                  // truncated
}

}  // namespace
}  // namespace mw::langid::internal
