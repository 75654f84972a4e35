// The letters-only line buster fold (fingerprint/src/line_busters.h).
#include "line_busters.h"

#include <gtest/gtest.h>

#include <string>

#include "fingerprint/fold.h"

namespace mw::fingerprint::internal {
namespace {

const std::string kText =
    "we are pleased to offer you an exclusive deal on\n"
    "all of our products this week only, so act now\n"
    "\n"
    "visit our store and see the new collection of\n"
    "shoes, bags and more at prices you will love\n"
    "call us today\n";

TEST(LineBusters, RemovesATokenAppendedToEveryLine) {
  const std::string busted =
      "we are pleased to offer you an exclusive deal on qwxkzrt\n"
      "all of our products this week only, so act now bvnmqplk\n"
      "\n"
      "visit our store and see the new collection of zzkqwyeh\n"
      "shoes, bags and more at prices you will love plmoknij\n"
      "call us today xcvbnmas\n";
  EXPECT_EQ(FoldLineBusters(busted).value_or(""), kText);
  // Through Fold with the default options as well.
  EXPECT_EQ(Fold(busted, FoldOptions{}), Fold(kText, FoldOptions{}));
}

TEST(LineBusters, AnyLengthBelowTheTokenFold) {
  // 4 to 19 letters: the lengths the token fold (20 and more) leaves.
  const std::string busted =
      "we are pleased to offer you an exclusive deal on qwxk\n"
      "all of our products this week only, so act now bvnmqplkzxcvbnmqwer\n"
      "\n"
      "visit our store and see the new collection of zzkq\n"
      "shoes, bags and more at prices you will love plmoknijuhbygvtfc\n"
      "call us today xcvbnmas\n";
  EXPECT_EQ(FoldLineBusters(busted).value_or(""), kText);
  // Three letters end prose lines too often to count.
  const std::string three =
      "we are pleased to offer you an exclusive deal on qwx\n"
      "all of our products this week only, so act now bvn\n"
      "\n"
      "visit our store and see the new collection of zzk\n"
      "shoes, bags and more at prices you will love plm\n"
      "call us today xcv\n";
  EXPECT_FALSE(FoldLineBusters(three).has_value());
}

TEST(LineBusters, LeavesProseAlone) {
  EXPECT_FALSE(FoldLineBusters(kText).has_value());
  // Long words at the ends of most lines, but used again elsewhere.
  const std::string repeated =
      "the meeting covers planning\n"
      "and the budget planning\n"
      "for the coming quarter planning\n"
      "with everyone planning\n";
  EXPECT_FALSE(FoldLineBusters(repeated).has_value());
}

TEST(LineBusters, NeedsEnoughLines) {
  const std::string few = "hello there qwxkzrt\nhow are you bvnmqplk\n";
  EXPECT_FALSE(FoldLineBusters(few).has_value());
}

TEST(LineBusters, TokensWithDigitsOrCapitalsAreNotTheseBusters) {
  // Digits: the token fold's business (IsHashBuster), not this rule's.
  const std::string digits =
      "one line here q1wxkzrt\nanother line here b2nmqplk\n"
      "third line here z3kqwyeh\nfourth line here p4moknij\n";
  EXPECT_FALSE(FoldLineBusters(digits).has_value());
}

TEST(LineBusters, EmptyAndOneLine) {
  EXPECT_FALSE(FoldLineBusters("").has_value());
  EXPECT_FALSE(FoldLineBusters("just one line qwxkzrt").has_value());
}

}  // namespace
}  // namespace mw::fingerprint::internal
