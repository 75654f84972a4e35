// The dictionary builder: word-list parsing (frequency lists and plain text),
// tiers and weights, common-word exclusion, script handling, Serbian
// Cyrillic and marker letters.
#include "langid/build.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "langid/model.h"

namespace mw::langid {
namespace {

std::uint64_t CountOf(const WordList& l, std::string_view w) {
  for (const auto& [word, n] : l.words) {
    if (word == w) return n;
  }
  return 0;
}

TEST(BuildTest, ParsesFrequencyLists) {
  auto l =
      ParseWordList("en", "you 300\nDon't 20\nthe 100\n42nd 5\nstraße 7\n");
  ASSERT_TRUE(l.has_value()) << l.error().message();
  EXPECT_EQ(l->code, "en");
  EXPECT_EQ(CountOf(*l, "you"), 300u);
  EXPECT_EQ(CountOf(*l, "don"), 20u);  // case folded, split at the apostrophe
  EXPECT_EQ(CountOf(*l, "t"), 20u);
  EXPECT_EQ(CountOf(*l, "42nd"), 0u);  // digits: left out
  EXPECT_EQ(CountOf(*l, "strasse"),
            7u);  // NFKC case folding, as mime::NormaliseText
}

TEST(BuildTest, CountsPlainText) {
  auto l = ParseWordList("fr", "Le chat et le chien.\nLe chat dort, 3 fois.\n");
  ASSERT_TRUE(l.has_value()) << l.error().message();
  EXPECT_EQ(CountOf(*l, "le"), 3u);
  EXPECT_EQ(CountOf(*l, "chat"), 2u);
  EXPECT_EQ(CountOf(*l, "3"), 0u);
}

TEST(BuildTest, RefusesBadInput) {
  EXPECT_FALSE(ParseWordList("xx", "\xff\xfe bad").has_value());
  EXPECT_FALSE(ParseWordList("xx", "  12 ... !!").has_value());
  EXPECT_FALSE(Build({}, BuildParams{}).has_value());
  EXPECT_FALSE(Build({{"EN", {{"a", 1}}}}, BuildParams{}).has_value());
  EXPECT_FALSE(Build({{"en", {{"a", 1}}}, {"en", {{"b", 1}}}}, BuildParams{})
                   .has_value());
}

TEST(BuildTest, CommonWordsAreLeftOut) {
  std::vector<WordList> lists;
  for (std::string code : {"aa", "bb", "cc", "dd"}) {
    lists.push_back({code, {{"common", 5}, {"own" + code, 5}}});
  }
  BuildParams p;
  p.max_languages = 3;
  auto m = Model::FromBytes(*Build(lists, p));
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->Lookup("common").empty());  // in 4 lists > 3
  EXPECT_TRUE(m->Lookup("common").common());
  EXPECT_FALSE(m->Lookup("ownaa").common());
  EXPECT_FALSE(m->Lookup("ownaa").empty());
  p.max_languages = 4;
  m = Model::FromBytes(*Build(lists, p));
  ASSERT_EQ(m->Lookup("common").size(), 4u);
  EXPECT_NEAR(m->Lookup("common")[0].weight, 0.25, 1e-4);
}

TEST(BuildTest, DominantShareMakesATierOneWord) {
  // "ok": f_en = 0.5, f_de = 0.01 -> share 0.98 for en.
  std::vector<WordList> lists = {{"en", {{"ok", 50}, {"x", 50}}},
                                 {"de", {{"ok", 1}, {"y", 99}}}};
  auto m = Model::FromBytes(*Build(lists, BuildParams{}));
  ASSERT_TRUE(m.has_value());
  const PostingList ok = m->Lookup("ok");
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_TRUE(ok[0].pure);
  EXPECT_EQ(m->languages()[ok[0].language].code, "en");
}

TEST(BuildTest, ScriptDecidedLanguagesKeepNoWords) {
  std::vector<WordList> lists = {{"el", {{"και", 10}, {"the", 1}}},
                                 {"en", {{"the", 10}}}};
  auto m = Model::FromBytes(*Build(lists, BuildParams{}));
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->languages()[0].script_decided);
  EXPECT_EQ(m->languages()[0].script, "Greek");
  EXPECT_TRUE(m->Lookup("και").empty());
  const PostingList the =
      m->Lookup("the");  // the Latin noise of the Greek list is gone
  ASSERT_EQ(the.size(), 1u);
  EXPECT_TRUE(the[0].pure);
}

TEST(BuildTest, MaxWordsKeepsTheMostFrequent) {
  BuildParams p;
  p.max_words = 2;
  auto m =
      Model::FromBytes(*Build({{"en", {{"a", 1}, {"b", 3}, {"c", 2}}}}, p));
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->Lookup("a").empty());
  EXPECT_FALSE(m->Lookup("b").empty());
  EXPECT_FALSE(m->Lookup("c").empty());
}

TEST(BuildTest, SerbianCyrillicFromLatin) {
  WordList sr{"sr", {{"ljubav", 5}, {"džep", 3}, {"šta", 9}, {"wow", 1}}};
  AddSerbianCyrillic(sr);
  EXPECT_EQ(CountOf(sr, "љубав"), 5u);
  EXPECT_EQ(CountOf(sr, "џеп"), 3u);
  EXPECT_EQ(CountOf(sr, "шта"), 9u);
  EXPECT_EQ(sr.words.size(), 7u);  // "wow" has no Cyrillic form
  auto m =
      Model::FromBytes(*Build({sr, {"ru", {{"любовь", 5}}}}, BuildParams{}));
  ASSERT_TRUE(m.has_value());
  const PostingList p = m->Lookup("љубав");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(m->languages()[p[0].language].code, "sr");
}

// The n-gram tier's trigram log-probabilities are taken over at least 12,000
// trigram occurrences: a list of one word does not give its trigrams a
// probability of 1/3 each, while a list with more occurrences keeps its own
// frequencies.
TEST(BuildTest, SmallListsTrigramsAreDiscounted) {
  auto weight = [](double log_p) { return (log_p + 12.0) / 12.0; };
  auto small = Model::FromBytes(*Build({{"aa", {{"xyz", 5}}}}, BuildParams{}));
  ASSERT_TRUE(small.has_value());
  const PostingList xyz = small->LookupNgram("xyz");
  ASSERT_EQ(xyz.size(), 1u);
  EXPECT_NEAR(xyz[0].weight, weight(std::log(1.0 / 12000)), 1e-4);

  // 5000 three-letter words: 15,000 trigram occurrences, 26 of them " aa".
  WordList big{"bb", {}};
  for (int i = 0; i < 5000; ++i) {
    const std::string w = {static_cast<char>('a' + i / 676),
                           static_cast<char>('a' + i / 26 % 26),
                           static_cast<char>('a' + i % 26)};
    big.words.emplace_back(w, 1);
  }
  auto large = Model::FromBytes(*Build({big}, BuildParams{}));
  ASSERT_TRUE(large.has_value());
  const PostingList aa = large->LookupNgram(" aa");
  ASSERT_EQ(aa.size(), 1u);
  EXPECT_NEAR(aa[0].weight, weight(std::log(26.0 / 15000)), 1e-4);
}

TEST(BuildTest, ParsesTrigramLists) {
  auto t = ParseTrigramList("abc 500\r\n\nÀÉÎ 20\nabcd 7\nSS 3\nabc 1\n");
  ASSERT_TRUE(t.has_value()) << t.error().message();
  // Case folded as words are, duplicates summed, other lengths dropped.
  const std::vector<std::pair<std::string, std::uint64_t>> want = {{"abc", 501},
                                                                   {"àéî", 20}};
  EXPECT_EQ(*t, want);
}

TEST(BuildTest, RefusesBadTrigramLists) {
  auto no_count = ParseTrigramList("abc 1\nabd\n");
  ASSERT_FALSE(no_count.has_value());
  EXPECT_NE(no_count.error().message().find("line 2"), std::string::npos)
      << no_count.error().message();
  EXPECT_FALSE(ParseTrigramList("abc x\n").has_value());
  EXPECT_FALSE(ParseTrigramList("a\xff\xfe 3\n").has_value());
  auto too_many = ParseTrigramList("abc 600000000\nabd 600000000\n");
  ASSERT_FALSE(too_many.has_value());
  EXPECT_NE(too_many.error().message().find("line 2"), std::string::npos);
}

TEST(BuildTest, ParsesVariantLists) {
  auto v = ParseVariantList("nn", "\nvariant-of nb\nIKKJ 412\r\n\neg -30\n");
  ASSERT_TRUE(v.has_value()) << v.error().message();
  EXPECT_EQ(v->code, "nn");
  EXPECT_EQ(v->base, "nb");
  // Case folded as words are.
  const std::vector<std::pair<std::string, std::int32_t>> want = {{"ikkj", 412},
                                                                  {"eg", -30}};
  EXPECT_EQ(v->ngrams, want);
}

TEST(BuildTest, RefusesBadVariantLists) {
  auto line_of = [](std::string_view text) {
    auto v = ParseVariantList("nn", text);
    return v.has_value() ? std::string("accepted") : v.error().message();
  };
  EXPECT_NE(line_of("ikkj 3\n").find("line 1"), std::string::npos);
  EXPECT_NE(line_of("variant-of\n").find("line 1"), std::string::npos);
  EXPECT_NE(line_of("variant-of nb\nikkj x\n").find("line 2"),
            std::string::npos);
  EXPECT_NE(line_of("variant-of nb\nikkj\n").find("line 2"), std::string::npos);
  EXPECT_NE(line_of("variant-of nb\nab 1\nikkj 40000\n").find("line 3"),
            std::string::npos);
  EXPECT_NE(line_of("variant-of nb\nabcdef 1\n").find("1-5 letters"),
            std::string::npos);
  EXPECT_NE(line_of("variant-of nb\nab1 1\n").find("letters"),
            std::string::npos);
  EXPECT_NE(line_of("variant-of nb\n").find("no n-grams"), std::string::npos);
  EXPECT_NE(line_of("").find("variant-of"), std::string::npos);
  EXPECT_NE(line_of("variant-of nb\na\xff 1\n").find("UTF-8"),
            std::string::npos);
}

// A variant is a language of the file without words, flagged with its base;
// its n-grams are the variant tier, apart from the words and trigrams.
TEST(BuildTest, VariantsAreLanguagesWithoutWords) {
  std::vector<WordList> lists = {{"nb", {{"ikke", 10}, {"eg", 5}}},
                                 {"en", {{"house", 10}}}};
  std::vector<VariantList> variants = {
      {"nn", "nb", {{"kkj", 300}, {"eg", -125}}}};
  auto bytes = Build(lists, variants, BuildParams{});
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message();
  auto m = Model::FromBytes(std::move(*bytes));
  ASSERT_TRUE(m.has_value()) << m.error().message();
  const int nb = m->FindLanguage("nb"), nn = m->FindLanguage("nn");
  ASSERT_GE(nb, 0);
  ASSERT_GE(nn, 0);
  EXPECT_EQ(m->languages()[nn].variant_of, nb);
  EXPECT_EQ(m->languages()[nb].variant_of, -1);
  EXPECT_EQ(m->languages()[nn].words, 0u);
  EXPECT_EQ(m->variants(),
            std::vector<std::uint32_t>{static_cast<std::uint32_t>(nn)});
  const PostingList kkj = m->LookupVariant("kkj");
  ASSERT_EQ(kkj.size(), 1u);
  EXPECT_EQ(kkj[0].language, static_cast<std::uint32_t>(nn));
  EXPECT_DOUBLE_EQ(Model::VariantValue(kkj.encoded(0)), 3.0);
  ASSERT_EQ(m->LookupVariant("eg").size(), 1u);
  EXPECT_DOUBLE_EQ(Model::VariantValue(m->LookupVariant("eg").encoded(0)),
                   -1.25);
  EXPECT_TRUE(m->LookupVariant("ikke").empty());
  // The word "eg" is still nb's word alone.
  const PostingList eg = m->Lookup("eg");
  ASSERT_EQ(eg.size(), 1u);
  EXPECT_EQ(eg[0].language, static_cast<std::uint32_t>(nb));
  // Without variants the same lists give a file without them.
  auto plain = Build(lists, BuildParams{});
  ASSERT_TRUE(plain.has_value());
  auto pm = Model::FromBytes(std::move(*plain));
  ASSERT_TRUE(pm.has_value());
  EXPECT_TRUE(pm->variants().empty());
  EXPECT_LT(pm->FindLanguage("nn"), 0);

  // Refused: no list for the base, a list's code, a code twice, a bad code.
  auto refused = [&](std::vector<VariantList> v) {
    return !Build(lists, std::move(v), BuildParams{}).has_value();
  };
  EXPECT_TRUE(refused({{"nn", "da", {{"kkj", 1}}}}));
  EXPECT_TRUE(refused({{"en", "nb", {{"kkj", 1}}}}));
  EXPECT_TRUE(refused({{"nn", "nb", {{"kkj", 1}}}, {"nn", "nb", {{"a", 1}}}}));
  EXPECT_TRUE(refused({{"N N", "nb", {{"kkj", 1}}}}));
}

TEST(BuildTest, ParsesPairLists) {
  auto v = ParseVariantList("xh", "pair-with zu\nndi 250\nngi -300\n");
  ASSERT_TRUE(v.has_value()) << v.error().message();
  EXPECT_TRUE(v->pair);
  EXPECT_EQ(v->base, "zu");
  EXPECT_EQ(v->ngrams.size(), 2u);
  auto n = ParseVariantList("nn", "variant-of nb\nikkj 1\n");
  ASSERT_TRUE(n.has_value());
  EXPECT_FALSE(n->pair);
  EXPECT_EQ(v->pair_min, 0u);
  EXPECT_FALSE(ParseVariantList("xh", "pair-with\nndi 1\n").has_value());
  EXPECT_FALSE(ParseVariantList("xh", "pair-of zu\nndi 1\n").has_value());
  // A floor for the sum: 0-255 nats, on a pair alone.
  auto m = ParseVariantList("mr", "pair-with hi 6\nकरण 250\n");
  ASSERT_TRUE(m.has_value()) << m.error().message();
  EXPECT_EQ(m->base, "hi");
  EXPECT_EQ(m->pair_min, 6u);
  for (const char* bad :
       {"pair-with hi 256\nab 1\n", "pair-with hi -1\nab 1\n",
        "pair-with hi six\nab 1\n", "pair-with hi 6 7\nab 1\n",
        "pair-with hi \nab 1\n", "variant-of nb 6\nab 1\n"}) {
    const auto r = ParseVariantList("mr", bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_NE(r.error().message().find("line 1"), std::string::npos)
        << r.error().message();
  }
}

// The first of a close pair keeps its words and is flagged with the other;
// its n-grams join the variant tier's under its index.
TEST(BuildTest, PairsKeepTheirWordsAndTellTheOtherApart) {
  std::vector<WordList> lists = {{"xh", {{"abantu", 10}, {"ndiyabulela", 5}}},
                                 {"zu", {{"abantu", 10}, {"ngiyabonga", 5}}},
                                 {"en", {{"house", 10}}}};
  std::vector<VariantList> pairs = {
      {"xh", "zu", {{"ndi", 250}, {"ngi", -300}}, true}};
  auto bytes = Build(lists, pairs, BuildParams{});
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message();
  auto m = Model::FromBytes(std::move(*bytes));
  ASSERT_TRUE(m.has_value()) << m.error().message();
  const int xh = m->FindLanguage("xh"), zu = m->FindLanguage("zu");
  ASSERT_GE(xh, 0);
  ASSERT_GE(zu, 0);
  EXPECT_EQ(m->languages()[xh].pair_with, zu);
  EXPECT_EQ(m->languages()[xh].pair_min, 0.0);
  EXPECT_EQ(m->languages()[zu].pair_with, -1);
  EXPECT_EQ(m->languages()[xh].variant_of, -1);
  EXPECT_GT(m->languages()[xh].words, 0u);
  EXPECT_TRUE(m->variants().empty());
  EXPECT_EQ(m->pairs(),
            std::vector<std::uint32_t>{static_cast<std::uint32_t>(xh)});
  const PostingList ngi = m->LookupVariant("ngi");
  ASSERT_EQ(ngi.size(), 1u);
  EXPECT_EQ(ngi[0].language, static_cast<std::uint32_t>(xh));
  EXPECT_DOUBLE_EQ(Model::VariantValue(ngi.encoded(0)), -3.0);
  // The words are as without the pair.
  EXPECT_EQ(m->Lookup("ndiyabulela").size(), 1u);
  // A pair's floor is kept in the file.
  pairs[0].pair_min = 200;
  auto floored = Model::FromBytes(*Build(lists, pairs, BuildParams{}));
  ASSERT_TRUE(floored.has_value());
  EXPECT_EQ(floored->languages()[xh].pair_with, zu);
  EXPECT_EQ(floored->languages()[xh].pair_min, 200.0);

  // Refused: no list for either language, a language in two pairs, a pair
  // with a variant, a language paired with itself.
  auto refused = [&](std::vector<VariantList> v) {
    return !Build(lists, std::move(v), BuildParams{}).has_value();
  };
  EXPECT_TRUE(refused({{"xh", "st", {{"ndi", 1}}, true}}));
  EXPECT_TRUE(refused({{"st", "zu", {{"ndi", 1}}, true}}));
  EXPECT_TRUE(refused({{"xh", "xh", {{"ndi", 1}}, true}}));
  EXPECT_TRUE(refused(
      {{"xh", "zu", {{"ndi", 1}}, true}, {"zu", "en", {{"a", 1}}, true}}));
  EXPECT_TRUE(refused(
      {{"xh", "zu", {{"ndi", 1}}, true}, {"zu", "en", {{"a", 1}}, false}}));
}

// A pair's other may be a variant (Swedish and Danish told from Nynorsk,
// which has no list), and two pairs may share it.
TEST(BuildTest, APairsOtherMayBeAVariant) {
  std::vector<WordList> lists = {{"nb", {{"ikke", 10}}},
                                 {"sv", {{"inte", 10}}},
                                 {"da", {{"ikke", 10}, {"hvad", 5}}}};
  std::vector<VariantList> v = {{"nn", "nb", {{"kkj", 400}}, false},
                                {"sv", "nn", {{"kkj", -800}}, true, 4},
                                {"da", "nn", {{"kkj", -700}}, true, 4}};
  auto bytes = Build(lists, v, BuildParams{});
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message();
  auto m = Model::FromBytes(std::move(*bytes));
  ASSERT_TRUE(m.has_value()) << m.error().message();
  const int nb = m->FindLanguage("nb"), nn = m->FindLanguage("nn"),
            sv = m->FindLanguage("sv"), da = m->FindLanguage("da");
  EXPECT_EQ(m->languages()[nn].variant_of, nb);
  EXPECT_EQ(m->languages()[sv].pair_with, nn);
  EXPECT_EQ(m->languages()[da].pair_with, nn);
  EXPECT_EQ(m->languages()[sv].pair_min, 4.0);
  // Each value lies under its own language.
  const PostingList kkj = m->LookupVariant("kkj");
  ASSERT_EQ(kkj.size(), 3u);
  for (std::uint32_t j = 0; j < kkj.size(); ++j) {
    const double value = Model::VariantValue(kkj.encoded(j));
    if (kkj[j].language == static_cast<std::uint32_t>(nn)) {
      EXPECT_DOUBLE_EQ(value, 4.0);
    } else if (kkj[j].language == static_cast<std::uint32_t>(sv)) {
      EXPECT_DOUBLE_EQ(value, -8.0);
    } else {
      EXPECT_EQ(kkj[j].language, static_cast<std::uint32_t>(da));
      EXPECT_DOUBLE_EQ(value, -7.0);
    }
  }
  // A variant's pair (its values would lie under the variant's own) and a
  // pair with a language that is neither listed nor a variant are refused.
  v.push_back({"nn", "sv", {{"a", 1}}, true});
  EXPECT_FALSE(Build(lists, v, BuildParams{}).has_value());
  v.back() = {"sv", "no", {{"a", 1}}, true};
  EXPECT_FALSE(Build(lists, v, BuildParams{}).has_value());
}

// With inner trigrams, the words keep the trigrams at word boundaries and the
// outside frequencies decide those inside words, scaled to the inside share of
// the words' own trigrams.
TEST(BuildTest, InnerTrigramsReplaceTheListsOwnInsideWords) {
  auto weight = [](double log_p) { return (log_p + 12.0) / 12.0; };
  // "abcd" gives " ab", "abc", "bcd", "cd ": half of its trigrams inside.
  WordList list{"aa", {{"abcd", 1}}};
  list.inner_trigrams = {{"xyz", 100'000'000}, {"abc", 10'000'000}};
  auto m = Model::FromBytes(*Build({list}, BuildParams{}));
  ASSERT_TRUE(m.has_value());
  const PostingList boundary = m->LookupNgram(" ab");
  ASSERT_EQ(boundary.size(), 1u);
  EXPECT_NEAR(boundary[0].weight, weight(std::log(1.0 / 12000)), 1e-4);
  const PostingList xyz = m->LookupNgram("xyz");
  ASSERT_EQ(xyz.size(), 1u);
  EXPECT_NEAR(xyz[0].weight, weight(std::log(0.5 * 0.1)), 1e-4);
  const PostingList abc = m->LookupNgram("abc");
  ASSERT_EQ(abc.size(), 1u);
  EXPECT_NEAR(abc[0].weight, weight(std::log(0.5 * 0.01)), 1e-4);
  // The list's own inside trigram that the outside list lacks is gone.
  EXPECT_EQ(m->LookupNgram("bcd").size(), 0u);

  // Without them, every trigram comes from the words.
  auto plain = Model::FromBytes(*Build({{"aa", {{"abcd", 1}}}}, BuildParams{}));
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->LookupNgram("bcd").size(), 1u);
  EXPECT_EQ(plain->LookupNgram("xyz").size(), 0u);
}

// Inner trigrams of one script leave the list's own trigrams inside words of
// its other scripts alone (Serbian: a Latin list with its Cyrillic
// transliteration, Lingua's Serbian model Cyrillic only).
TEST(BuildTest, InnerTrigramsReplaceOnlyTheirScript) {
  auto weight = [](double log_p) { return (log_p + 12.0) / 12.0; };
  // 8 trigrams: " ab" "abc" "bcd" "cd " and " аб" "абв" "бвг" "вг ".
  WordList list{"sr", {{"abcd", 1}, {"абвг", 1}}};
  list.inner_trigrams = {{"жзи", 100'000'000}};
  auto m = Model::FromBytes(*Build({list}, BuildParams{}));
  ASSERT_TRUE(m.has_value());
  const PostingList latin = m->LookupNgram("abc");
  ASSERT_EQ(latin.size(), 1u);
  EXPECT_NEAR(latin[0].weight, weight(std::log(1.0 / 12000)), 1e-4);
  EXPECT_EQ(m->LookupNgram("абв").size(), 0u);
  const PostingList cyrillic = m->LookupNgram("жзи");
  ASSERT_EQ(cyrillic.size(), 1u);
  // The Cyrillic trigrams inside words: 2 of the 8.
  EXPECT_NEAR(cyrillic[0].weight, weight(std::log(2.0 / 8 * 0.1)), 1e-4);
}

// `n` distinct three-letter ASCII words starting with `first`, counted 1.
std::vector<std::pair<std::string, std::uint64_t>> AsciiWords(char first,
                                                              int n) {
  std::vector<std::pair<std::string, std::uint64_t>> words;
  for (int i = 0; i < n; ++i) {
    words.emplace_back(std::string{first, static_cast<char>('a' + i / 26),
                                   static_cast<char>('a' + i % 26)},
                       1);
  }
  return words;
}

std::vector<std::pair<char32_t, std::string>> Markers(
    const std::vector<WordList>& lists) {
  auto model = Model::FromBytes(*Build(lists, BuildParams{}));
  EXPECT_TRUE(model.has_value());
  std::vector<std::pair<char32_t, std::string>> out;
  for (const auto& [c, language] : model->letters()) {
    out.emplace_back(c, model->languages()[language].code);
    EXPECT_EQ(model->LetterLanguage(c), static_cast<int>(language));
  }
  return out;
}

TEST(BuildTest, MarkerLettersAreLettersOneLargeEnoughListAloneWrites) {
  using Marks = std::vector<std::pair<char32_t, std::string>>;
  // aa: ŋ is 1000 of 3000 + 1000 weighted letters (0.25); bb writes Latin in
  // 1500 letters of distinct words, which would hold 1500 * 0.25 / 100 = 3.75
  // ŋ at a hundredth of aa's rate, and holds none: ŋ marks aa.
  WordList aa{"aa", AsciiWords('q', 333)};
  aa.words.emplace_back("aŋa", 1000);
  const WordList bb{"bb", AsciiWords('z', 500)};
  EXPECT_EQ(Markers({aa, bb}), (Marks{{U'ŋ', "aa"}}));
  // A Cyrillic list, however small, writes no Latin and proves nothing; and
  // as the only Cyrillic list, its letters tell no two lists apart.
  EXPECT_EQ(Markers({aa, bb, {"cc", {{"мама", 3}}}}), (Marks{{U'ŋ', "aa"}}));

  // 300 letters would hold 0.75 at that rate: too little text to tell (900
  // would hold 2.25, enough).
  EXPECT_EQ(Markers({aa, {"bb", AsciiWords('z', 100)}}), Marks{});
  EXPECT_EQ(Markers({aa, {"bb", AsciiWords('z', 300)}}), (Marks{{U'ŋ', "aa"}}));
  // bb writes ŋ too, at more than a hundredth of aa's rate (6 of 1506).
  WordList writes = bb;
  writes.words.emplace_back("ŋŋŋ", 2);
  EXPECT_EQ(Markers({aa, writes}), Marks{});

  // A mark shared by scripts (U+0301, combining acute) marks nothing, and an
  // ASCII letter never does.
  WordList accents{"aa", AsciiWords('q', 333)};
  accents.words.emplace_back("a\u0301\u0301a", 1000);
  EXPECT_EQ(Markers({accents, bb}), Marks{});
  EXPECT_EQ(Markers({{"aa", {{"qqq", 1000}}}, bb}), Marks{});
}

}  // namespace
}  // namespace mw::langid
