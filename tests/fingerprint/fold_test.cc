// Tests for the folds of the fingerprint path (fingerprint/src/fold.cc).
#include "fingerprint/fold.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <string_view>

namespace mw::fingerprint {
namespace {

FoldOptions Only(bool FoldOptions::*fold) {
  FoldOptions o{.hash_busters = false,
                .numbers = false,
                .urls = false,
                .emails = false,
                .greetings = false};
  o.*fold = true;
  return o;
}

TEST(Fold, Defaults) {
  // docs/fingerprint.md: numbers and e-mail addresses did not pay on the
  // evaluation.
  const FoldOptions d;
  EXPECT_TRUE(d.hash_busters);
  EXPECT_TRUE(d.urls);
  EXPECT_FALSE(d.greetings);
  EXPECT_FALSE(d.numbers);
  EXPECT_FALSE(d.emails);
}

TEST(Fold, NothingEnabledIsIdentity) {
  const FoldOptions none{false, false, false, false, false};
  const std::string text =
      "dear bob,\nvisit http://x.com/?a=1 or mail a@b.com 42 x7f9k2q1\n";
  EXPECT_EQ(Fold(text, none), text);
}

TEST(Fold, HashBusters) {
  const FoldOptions o = Only(&FoldOptions::hash_busters);
  EXPECT_EQ(Fold("buy now x7f9k2q1 cheap", o), "buy now cheap");
  EXPECT_EQ(Fold("line one a8sd7f6g\nline two q1w2e3r4.", o),
            "line one\nline two");
  EXPECT_EQ(Fold("zxcvbnmasdfghjklqwertyuiop end", o), "end");
  // Ordinary words, short codes and numbers stay.
  EXPECT_EQ(Fold("version mp3 in 2024 and abc12 remain", o),
            "version mp3 in 2024 and abc12 remain");
}

TEST(Fold, Numbers) {
  const FoldOptions o = Only(&FoldOptions::numbers);
  EXPECT_EQ(Fold("pay $1,299.99 by 12/31 at 10:30, ref a42", o),
            "pay $0 by 0 at 0, ref a0");
  EXPECT_EQ(Fold("no digits here.", o), "no digits here.");
}

TEST(Fold, Urls) {
  const FoldOptions o = Only(&FoldOptions::urls);
  EXPECT_EQ(Fold("go to http://shop.example.com/p?id=42&u=bob#top now", o),
            "go to http://shop.example.com/p now");
  EXPECT_EQ(Fold("(see www.example.com/a?x=1).", o),
            "(see www.example.com/a).");
  EXPECT_EQ(Fold("http://example.com/plain stays", o),
            "http://example.com/plain stays");
  EXPECT_EQ(Fold("a question? yes", o), "a question? yes");
}

TEST(Fold, Emails) {
  const FoldOptions o = Only(&FoldOptions::emails);
  EXPECT_EQ(Fold("write to john.doe+x@mail.example.com.", o), "write to @.");
  EXPECT_EQ(Fold("<bob@example.org>", o), "<@>");
  EXPECT_EQ(Fold("at @ noon, user@localhost stays", o),
            "at @ noon, user@localhost stays");
}

TEST(Fold, Greetings) {
  const FoldOptions o = Only(&FoldOptions::greetings);
  EXPECT_EQ(Fold("dear john smith,\nwe have news.", o), "dear,\nwe have news.");
  EXPECT_EQ(Fold("hi anna!\nok", o), "hi!\nok");
  EXPECT_EQ(Fold("good morning mr. brown:\nx", o), "good morning:\nx");
  EXPECT_EQ(Fold("hello bob", o), "hello");
  // Not greetings, or no name to remove.
  EXPECT_EQ(Fold("hello, world of mail", o), "hello, world of mail");
  EXPECT_EQ(Fold("dear me, this is a long line about things", o),
            "dear, this is a long line about things");
  EXPECT_EQ(Fold("the dear john letter", o), "the dear john letter");
  EXPECT_EQ(Fold("dear customer we are writing to you about your account", o),
            "dear customer we are writing to you about your account");
}

TEST(Fold, AllTogetherMakeVariantsEqual) {
  const FoldOptions all{true, true, true, true, true};
  const std::string a =
      "dear alice,\nyour code 8f7a6d5e is ready.\nclick "
      "http://x.biz/r?u=alice@a.com\n"
      "call 555-0101 or write to alice@a.com.";
  const std::string b =
      "dear bob jones,\nyour code k2j3h4g5 is ready.\nclick "
      "http://x.biz/r?u=bob@b.net\n"
      "call 555-0199 or write to bob@b.net.";
  EXPECT_EQ(Fold(a, all), Fold(b, all));
  EXPECT_NE(Fold(a, all), a);
}

// Fold's fast path (with AVX-512, in vector chunks) and its token loop alone
// against the general path, with each of the hash-buster and URL folds and
// both.
void ExpectFastPathSameAsTheGeneralOne(const std::string& text) {
  for (const bool busters : {false, true}) {
    for (const bool urls : {false, true}) {
      if (!busters && !urls) continue;
      FoldOptions o{false, false, false, false, false};
      o.hash_busters = busters;
      o.urls = urls;
      const std::string reference = TEST_FoldLines(text, o);
      ASSERT_EQ(Fold(text, o), reference) << text;
      ASSERT_EQ(TEST_FoldTokens(text, o), reference) << text;
    }
  }
}

// The fast path (hash busters and URLs only, the defaults) against the
// general one on random text made of the pieces each rule looks at: tokens of
// every length around 6, 16 and 20 bytes, with and without digits, edge
// punctuation, URLs with and without a query, "www.", blanks of every kind in
// runs, empty and blank lines, non-ASCII bytes, no final line feed.
TEST(Fold, FastPathSameAsTheGeneralOne) {
  static constexpr std::string_view kPieces[] = {"a",
                                                 "word",
                                                 "x7f9k2",
                                                 "abc12",
                                                 "abcdef123456",
                                                 "(a1b2c3)",
                                                 "...x9y8z7w6,",
                                                 "0123456789",
                                                 "aaaaaaaaaaaaaaaaaaaa",
                                                 "aaaaaaaaaaaaaaaaaaa",
                                                 "abcdefghij1234567890abc",
                                                 "http://x.com/a?b=1#c",
                                                 "<https://e.org/p?q=2>.",
                                                 "www.site.net/?id=7",
                                                 "www",
                                                 "w:",
                                                 "http://y.com/plain",
                                                 "café",
                                                 "größe1234",
                                                 "\xFF\xFE",
                                                 "mail:x",
                                                 "wwww.",
                                                 "://"};
  static constexpr std::string_view kGaps[] = {
      " ", "  ", "\t", " \t ", "\r", "\n", "\n\n", " \n ", "\r\n", ""};
  std::mt19937_64 rng(21);
  for (int trial = 0; trial < 4000; ++trial) {
    std::string text;
    const std::size_t pieces = rng() % 60;
    for (std::size_t k = 0; k < pieces; ++k) {
      text += kPieces[rng() % std::size(kPieces)];
      text += kGaps[rng() % std::size(kGaps)];
    }
    ExpectFastPathSameAsTheGeneralOne(text);
    if (HasFatalFailure()) return;
  }
}

// With AVX-512, the fast path folds chunks of up to 63 bytes whose tokens no
// fold changes at once, and hands the others to the token loop: text made
// mostly of plain words (so most chunks are taken), with the tokens that make
// a chunk go token by token now and then, blank runs and empty lines of every
// length (across chunk edges, and longer than a chunk), a line of blanks
// only, and text that begins with blanks or line feeds.
TEST(Fold, ChunksSameAsTokenByToken) {
  static constexpr std::string_view kPlain[] = {
      "a",           "to",   "the", "offer", "rapid",  "mailing",
      "subscribers", "café", "x.",  "(b)",   "e-mail", "12",
      "2024",        "w",    "ww.", "http",  ":",      "/"};
  static constexpr std::string_view kSpecial[] = {"x7f9k2",
                                                  "abcdef123456",
                                                  "aaaaaaaaaaaaaaaaaaaa",
                                                  "http://x.com/a?b=1",
                                                  "www.site.net/?id=7",
                                                  "12345678",
                                                  "sixsix",
                                                  "abcde1",
                                                  "www.a"};
  std::mt19937_64 rng(22);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text;
    if (trial % 5 == 0) text.append(rng() % 70, trial % 2 == 0 ? ' ' : '\n');
    const std::size_t pieces = rng() % 200;
    for (std::size_t k = 0; k < pieces; ++k) {
      text += rng() % 25 == 0 ? kSpecial[rng() % std::size(kSpecial)]
                              : kPlain[rng() % std::size(kPlain)];
      switch (rng() % 12) {
        case 0:
          text.append(1 + rng() % 80, ' ');
          break;
        case 1:
          text.append(1 + rng() % 3, '\n');
          break;
        case 2:
          text += " \t\r\n  ";
          break;
        case 3:
          text += "\r\n";
          break;
        case 4:
          text += "\n" + std::string(rng() % 70, ' ') + "\n";
          break;
        default:
          text += ' ';
      }
    }
    ExpectFastPathSameAsTheGeneralOne(text);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace mw::fingerprint
