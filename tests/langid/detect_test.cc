// The decision formula of langid.h on a tiny hand-built dictionary, with scores
// computed by hand; the "und" (too little text), forced-guess and bilingual
// rules, and what a verdict names (best guess, partner, second).
#include <gtest/gtest.h>
#include <malloc.h>

#include <string>
#include <utility>
#include <vector>

#include "langid/build.h"
#include "langid/langid.h"
#include "langid/src/scratch.h"
#include "tests/langid/testutil.h"

namespace mw::langid {
namespace {

using testing::TinyModel;

// The constants the hand computations below use (not the tuned defaults),
// two-tier only.
Options Formula() {
  Options o;
  o.k1 = 1.0;
  o.k2 = 0.5;
  o.k_unknown = 0.5;
  o.min_words = 5;
  o.min_score = 50;
  o.bilingual_min_score = 20;
  o.ngram_weight = 0;
  return o;
}

TEST(DetectTest, HandComputedScores) {
  const Model model = TinyModel();
  // house: tier 1 en (x2); haus: tier 1 de; bank: tier 2 en 0.6 / de 0.4;
  // xyzzy: unknown. N_w = 5; B_en = 1 + 1*2/5 = 1.4; B_de = 1 + 1*1/5 = 1.2 T
  // = 1.4*0.6 + 1.2*0.4 = 1.32; N = 3 + 1.32 + 0.5*1 = 4.82 L_en = 100*(2 +
  // 0.84)/4.82 = 58.921..; L_de = 100*(1 + 0.48)/4.82 = 30.705..
  const Options o = Formula();
  const Language l = Detect("house bank haus xyzzy house", model, o);
  EXPECT_EQ(l.words, 5u);
  EXPECT_EQ(l.code, "en");
  EXPECT_NEAR(l.score, 100.0 * 2.84 / 4.82, 1e-3);
  EXPECT_EQ(l.second, "de");
  EXPECT_NEAR(l.second_score, 100.0 * 1.48 / 4.82, 1e-3);
  EXPECT_FALSE(l.bilingual);
  ASSERT_EQ(l.scripts.size(), 1u);
  EXPECT_EQ(l.scripts[0].first, "Latin");
  EXPECT_EQ(l.scripts[0].second, 5u);
}

// The n-gram tier scores unknown words only until the text has given
// NgramLimits::text words of dictionary evidence; the memo and the
// reference agree on where it stops, and shorter texts keep every word's.
TEST(DetectTest, NgramTierStopsAtTheEvidenceLimit) {
  const Model model = TinyModel();
  // "housx" is in no list; its trigrams " ho" and "hou" are en's.
  const std::size_t en = static_cast<std::size_t>(model.FindLanguage("en"));
  // "bank" and the houses: one word of dictionary evidence short of the limit.
  std::string text = "housx bank\n";
  for (std::uint32_t k = 0; k + 2 < NgramLimits{}.text; ++k) text += "house ";
  const std::string short_text = text + "housx\n";
  text += "house housx\n";  // the limit's word, then an unknown word
  while (text.size() < 2048) text += "house housx\n";

  const Evidence all = Collect(text, model, NgramLimits::None());
  const Evidence limited = Collect(text, model);
  EXPECT_EQ(all.n_unknown, limited.n_unknown);
  EXPECT_EQ(all.n_ngram, all.n_unknown);
  EXPECT_EQ(limited.n_ngram, 1u);  // the first housx only
  EXPECT_GT(all.ngram[en], limited.ngram[en]);
  EXPECT_EQ(all.pure, limited.pure);
  EXPECT_EQ(all.shared, limited.shared);

  const Evidence every = TEST_CollectEveryWord(text, model);
  EXPECT_EQ(every.n_ngram, limited.n_ngram);
  EXPECT_EQ(every.ngram, limited.ngram);
  EXPECT_EQ(every.ngram_affinity, limited.ngram_affinity);
  const Evidence every_all =
      TEST_CollectEveryWord(text, model, NgramLimits::None());
  EXPECT_EQ(every_all.n_ngram, all.n_ngram);
  EXPECT_EQ(every_all.ngram, all.ngram);

  // One word short of the limit, the last unknown word still counts.
  const Evidence below = Collect(short_text, model);
  EXPECT_EQ(below.n_ngram, 2u);
  EXPECT_EQ(below.ngram, Collect(short_text, model, NgramLimits::None()).ngram);
}

// A word first met after the tier stopped is scored when a new paragraph
// opens it again (NgramLimits::paragraph), by the memo as by the reference.
TEST(DetectTest, NgramTierReopensInANewParagraph) {
  const Model model = TinyModel();
  std::string text;
  for (std::uint32_t k = 0; k < NgramLimits{}.text; ++k) text += "house ";
  text += "housx\n\nhousx house\n";  // closed, then open in a new paragraph
  while (text.size() < 2048) text += "house ";
  const Evidence memo = Collect(text, model);
  const Evidence every = TEST_CollectEveryWord(text, model);
  EXPECT_EQ(memo.n_ngram, 1u);
  EXPECT_EQ(every.n_ngram, memo.n_ngram);
  EXPECT_EQ(every.ngram, memo.ngram);
  EXPECT_EQ(every.ngram_affinity, memo.ngram_affinity);
}

// A memo keeps its trigrams and its words' n-gram shares from text to text
// while the model stays the same (Scratch::trigram_model): a warm memo gives
// the reference's evidence to the bit, and a memo warmed on another model,
// whose trigrams say otherwise, does not carry them over (a cache keyed on the
// model's address would: each TinyModel of these tests may sit where the last
// one did).
TEST(DetectTest, TrigramMemoFollowsTheModel) {
  const Model a = TinyModel();
  // The same lists with the languages' words swapped: "housx"'s trigrams
  // become de's.
  auto bytes = Build({{"en", {{"haus", 10}, {"bank", 10}}},
                      {"de", {{"house", 10}, {"bank", 30}}}},
                     BuildParams{});
  ASSERT_TRUE(bytes.has_value());
  auto b = Model::FromBytes(std::move(*bytes));
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(a.id(), b->id());
  const std::string text = "bank housx hausx\nhoused bank\n";
  for (int round = 0; round < 3; ++round) {
    for (const Model* m : std::vector<const Model*>{&a, &*b, &a}) {
      const Evidence memo = Collect(text, *m);
      const Evidence every = TEST_CollectEveryWord(text, *m);
      EXPECT_EQ(memo.ngram, every.ngram) << round;
      EXPECT_EQ(memo.ngram_affinity, every.ngram_affinity) << round;
      EXPECT_EQ(memo.n_ngram, every.n_ngram) << round;
      EXPECT_GT(memo.n_ngram, 0u);
    }
  }
  const std::size_t en_a = static_cast<std::size_t>(a.FindLanguage("en"));
  const std::size_t de_b = static_cast<std::size_t>(b->FindLanguage("de"));
  const Evidence on_a = Collect("housx", a);
  const Evidence on_b = Collect("housx", *b);
  EXPECT_GT(on_a.ngram[en_a], 0.5);
  EXPECT_GT(on_b.ngram[de_b], 0.5);
}

TEST(DetectTest, OtherConstantsChangeTheScores) {
  const Model model = TinyModel();
  Options o = Formula();
  o.k1 = 2.0;
  o.k_unknown = 1.0;
  o.min_words = 1;
  // B_en = 1 + 2*2/5 = 1.8, B_de = 1.4; T = 1.08 + 0.56 = 1.64; N = 3 + 1.64 +
  // 1 = 5.64
  const Language l = Detect("house bank haus xyzzy house", model, o);
  EXPECT_NEAR(l.score, 100.0 * (2 + 1.08) / 5.64, 1e-3);
  EXPECT_NEAR(l.second_score, 100.0 * (1 + 0.56) / 5.64, 1e-3);
}

TEST(DetectTest, SharedWordsOnlyUseK2) {
  const Model model = TinyModel();
  Options o = Formula();
  o.k2 = 0.5;
  o.min_words = 1;
  o.min_score = 0;
  // No tier-1 hit: L_i = 100*K2*Xovp_i / (K2*(0.6 + 0.4)) = 60 / 40.
  const Language l = Detect("bank", model, o);
  EXPECT_EQ(l.code, "en");
  EXPECT_NEAR(l.score, 60.0, 1e-3);
  EXPECT_EQ(l.second, "de");
  EXPECT_NEAR(l.second_score, 40.0, 1e-3);
}

TEST(DetectTest, NgramTierScoresUnknownWords) {
  const Model model = TinyModel();
  Options o = Formula();
  o.min_words = 1;
  o.min_score = 0;
  // "houses" is in no list; without the n-gram tier it is only an unknown word.
  EXPECT_EQ(Detect("houses", model, o).best, "");
  // Its trigrams " ho", "hou", "ous", "use" occur in English words only, so its
  // n-gram shares are en 1: Xovp_en = 1, N_unknown = 1 - 1 = 0, L_en = 100*K2*1
  // / (K2*1) = 100.
  o.ngram_weight = 1.0;
  const Language l = Detect("houses", model, o);
  EXPECT_EQ(l.code, "en");
  EXPECT_NEAR(l.score, 100.0, 1e-6);
  // Half weight: Xovp_en = 0.5, N_unknown = 0.5: L_en = 100*0.25 / (0.25 +
  // 0.5*0.5) = 50.
  o.ngram_weight = 0.5;
  o.k2 = 0.5;
  o.k_unknown = 0.5;
  EXPECT_NEAR(Detect("houses", model, o).score, 50.0, 1e-6);
}

TEST(DetectTest, MarkerLetterNamesTheLanguageOfAnUnknownWord) {
  // xa writes ŋ and xb ɲ, each in a quarter of its letters, and each list is
  // large enough to show the other's letter were it used (BuildTest has the
  // rule): ŋ marks xa, ɲ marks xb.
  auto ascii = [](char first) {
    std::vector<std::pair<std::string, std::uint64_t>> words;
    for (int i = 0; i < 500; ++i) {
      words.emplace_back(std::string{first, static_cast<char>('a' + i / 26),
                                     static_cast<char>('a' + i % 26)},
                         1);
    }
    return words;
  };
  WordList xa{"xa", ascii('q')}, xb{"xb", ascii('z')};
  xa.words.emplace_back("aŋa", 1000);
  xb.words.emplace_back("oɲo", 1000);
  auto bytes = Build({xa, xb}, BuildParams{});
  ASSERT_TRUE(bytes.has_value());
  auto model = Model::FromBytes(std::move(*bytes));
  ASSERT_TRUE(model.has_value());
  const int a = model->FindLanguage("xa");
  const int b = model->FindLanguage("xb");
  ASSERT_EQ(model->LetterLanguage(U'ŋ'), a);
  ASSERT_EQ(model->LetterLanguage(U'ɲ'), b);

  // "ŋuŋu" is in no list: a tier-1 word of xa, not an n-gram guess.
  Evidence e = Collect("ŋuŋu", *model);
  EXPECT_EQ(e.pure[a], 1.0);
  EXPECT_EQ(e.n_pure, 1u);
  EXPECT_EQ(e.n_unknown, 0u);
  // Letters of two languages: an unknown word as before.
  e = Collect("ŋuɲu", *model);
  EXPECT_EQ(e.n_pure, 0u);
  EXPECT_EQ(e.n_unknown, 1u);
  // Known words keep their lists' evidence: "aŋa" is xa's list word, "qaa"
  // holds no marker.
  e = Collect("aŋa qaa", *model);
  EXPECT_EQ(e.pure[a], 2.0);

  // With and without the memo alike (a text over its 1 KB threshold).
  std::string text;
  while (text.size() < 4096) text += "ŋuŋu ɲiɲi ŋuɲu qaa oɲo uŋ\n";
  const Evidence memo = Collect(text, *model);
  const Evidence every = TEST_CollectEveryWord(text, *model);
  EXPECT_EQ(memo.pure, every.pure);
  EXPECT_EQ(memo.n_pure, every.n_pure);
  EXPECT_EQ(memo.n_unknown, every.n_unknown);
  EXPECT_GT(memo.pure[b], 0.0);
}

TEST(DetectTest, FewerThanMinWordsIsUnd) {
  const Model model = TinyModel();
  Options o = Formula();  // min_words 5
  const Language l = Detect("house house house house", model, o);
  EXPECT_EQ(l.words, 4u);
  EXPECT_EQ(l.code, "und");
  EXPECT_EQ(l.best, "en");  // the best guess is still reported
  o.min_words = 1;
  o.min_score = 0;
  EXPECT_EQ(Detect("house", model, o).code, "en");  // forced best guess
}

// "und" means too little text: with the default thresholds four words of
// one language name it (min_words was 5, which gave "und" for a 4-word
// French line scoring 95).
TEST(DetectTest, DefaultsNameAShortClearText) {
  const Model model = TinyModel();
  const Language l = Detect("house house house house", model, Options{});
  EXPECT_EQ(l.code, "en");
  EXPECT_EQ(l.best, "en");
  // Two words are too little text: "und", with the best guess and its score.
  const Language two = Detect("house house", model, Options{});
  EXPECT_EQ(two.code, "und");
  EXPECT_EQ(two.best, "en");
  EXPECT_NEAR(two.score, 100.0, 1e-9);
  EXPECT_TRUE(two.second.empty());  // German has no evidence: none
}

// A dictionary where "hello" is in six lists alike: a common word, which
// counts for no language in the formula.
Model CommonWordModel() {
  std::vector<WordList> lists = {{"en", {{"hello", 10}, {"house", 10}}},
                                 {"de", {{"hello", 10}, {"haus", 10}}},
                                 {"fr", {{"hello", 10}, {"maison", 10}}},
                                 {"es", {{"hello", 10}, {"casa", 10}}},
                                 {"it", {{"hello", 10}, {"dimora", 10}}},
                                 {"nl", {{"hello", 10}, {"woning", 10}}}};
  auto bytes = Build(lists, BuildParams{});
  EXPECT_TRUE(bytes.has_value());
  auto model = Model::FromBytes(std::move(*bytes));
  EXPECT_TRUE(model.has_value());
  return std::move(*model);
}

// Forced mode forces: a text of common words only is decided by their
// trigrams (it was "und" with no best guess at all).
TEST(DetectTest, ForcedVerdictOnCommonWordsOnly) {
  const Model model = CommonWordModel();
  ASSERT_EQ(model.Lookup("hello").common(), true);
  Options forced;
  forced.min_words = 1;
  forced.min_score = 0;
  const Language l = Detect("hello", model, forced);
  EXPECT_FALSE(l.best.empty());
  EXPECT_EQ(l.code, l.best);
  EXPECT_GT(l.score, 0);
  // With the defaults one word is too little text, but the guess is kept.
  const Language d = Detect("hello", model, Options{});
  EXPECT_EQ(d.code, "und");
  EXPECT_EQ(d.best, l.best);
  // A common word after other evidence adds nothing: the formula decides.
  EXPECT_EQ(Detect("house hello", model, forced).code, "en");
}

TEST(DetectTest, LowScoreIsUnd) {
  const Model model = TinyModel();
  Options o = Formula();
  // 1 en hit among 5 unknown: L_en = 100*1/(1 + 0.5*5) = 28.6, no second
  // language.
  const Language l = Detect("house aaa bbb ccc ddd eee", model, o);
  EXPECT_EQ(l.code, "und");
  EXPECT_NEAR(l.score, 100.0 / 3.5, 1e-3);
}

TEST(DetectTest, Bilingual) {
  const Model model = TinyModel();
  Options o = Formula();
  o.k_unknown = 1.0;
  // 3 en, 3 de tier-1 hits, 1 unknown: N = 6 + 1 = 7, L = 42.86 each,
  // together 85.7.
  const Language l = Detect("house haus house haus house haus qqq", model, o);
  EXPECT_TRUE(l.bilingual);
  EXPECT_TRUE(l.code == "en+de" || l.code == "de+en") << l.code;
  EXPECT_EQ(l.code, l.best + "+" + l.partner);
  EXPECT_NEAR(l.score, 300.0 / 7, 1e-3);
  EXPECT_NEAR(l.partner_score, 300.0 / 7, 1e-3);
  // The partner is not repeated as the second: no third language here.
  EXPECT_TRUE(l.second.empty()) << l.second;
  o.bilingual_min_score =
      50;  // second language too weak for a bilingual verdict
  EXPECT_EQ(Detect("house haus house haus house haus qqq", model, o).code,
            "und");
}

// A long English line and a short German one: German holds 3 of 18 words
// (under bilingual_min_lines) and scores 16.7 (English passes min_score alone),
// but each language wins one of the two lines, a third or more of them.
TEST(DetectTest, BilingualByLineCount) {
  const Model model = TinyModel();
  std::string en;
  for (int i = 0; i < 15; ++i) en += "house ";
  const Language l = Detect(en + "\nhaus haus haus", model, Options{});
  EXPECT_TRUE(l.bilingual) << l.code;
  EXPECT_EQ(l.code, "en+de");
  // One line: no line-count verdict.
  EXPECT_EQ(Detect(en + "haus haus haus", model, Options{}).code, "en");
  // Lines of fewer than 3 words do not count.
  EXPECT_EQ(Detect(en + "\nhaus haus", model, Options{}).code, "en");
}

// One German tier-1 word and 16 times "bank" (en 0.6 / de 0.4). The formula
// boosts German's shared words for its tier-1 hit and halves English's (K2):
// raw_de = 1 + (1 + 1/17) * 0.4 * 16 = 7.78, raw_en = 0.5 * 0.6 * 16 = 4.8.
// English is within close_ratio (4.8 / 7.78 = 0.62), and its affinity is
// higher: 16 * ln(0.6 / 0.002) = 91.3 against ln(1 / 0.002) + 16 * ln(0.4 /
// 0.002) = 91.0, so the tie-break names English, German second.
TEST(DetectTest, CloseCandidatesTieBreak) {
  const Model model = TinyModel();
  Options o = Formula();
  o.min_words = 1;
  o.min_score = 0;
  std::string text = "haus";
  for (int i = 0; i < 16; ++i) text += " bank";
  o.close_ratio = 1.0;  // off
  EXPECT_EQ(Detect(text, model, o).code, "de");
  o.close_ratio = 0.5;
  const Language l = Detect(text, model, o);
  EXPECT_EQ(l.code, "en");
  EXPECT_EQ(l.second, "de");
  EXPECT_NEAR(l.score, 100.0 * 4.8 / (1 + 6.776 + 4.8), 0.1);
  o.close_ratio = 0.7;  // English is not close enough
  EXPECT_EQ(Detect(text, model, o).code, "de");
  // Four "bank": English is close (1.2 / 2.92 = 0.41), but German's tier-1
  // word outweighs the English shares (27.4 against 22.8).
  o.close_ratio = 0.3;
  EXPECT_EQ(Detect("haus bank bank bank bank", model, o).code, "de");
}

// A long English paragraph and a short German one (5 of 45 words, one line
// of nine): too few words and lines for the rules by lines, too low a score
// for the rule by score, but each language wins a paragraph holding at least
// bilingual_min_paragraphs (0.1) of the words.
TEST(DetectTest, BilingualByParagraphs) {
  const Model model = TinyModel();
  std::string en;
  for (int line = 0; line < 8; ++line) en += "house house house house house\n";
  const std::string text = en + "\nhaus haus haus haus\nhaus haus haus haus";
  const Language l = Detect(text, model, Options{});
  EXPECT_EQ(l.code, "en+de");
  EXPECT_EQ(l.partner, "de");
  EXPECT_TRUE(l.second.empty());
  Options off;
  off.bilingual_min_paragraphs = 2;
  EXPECT_EQ(Detect(text, model, off).code, "en");
  // A paragraph of seven words (a greeting, a signature) wins nothing.
  EXPECT_EQ(
      Detect(en + "\nhaus haus haus haus haus haus haus", model, Options{})
          .code,
      "en");
}

// Two languages whose lists share their words (Xhosa and Zulu, each from one
// declaration): wherever the verdict names one, the pair's n-grams name the
// one they favour, in a single-language verdict and in a bilingual one.
TEST(DetectTest, AClosePairIsToldApartByItsNgrams) {
  std::vector<WordList> lists = {
      {"xh", {{"abantu", 10}, {"ukuba", 10}, {"zonke", 10}}},
      {"zu", {{"abantu", 10}, {"ukuba", 10}, {"zonke", 10}}},
      {"en", {{"house", 10}, {"garden", 10}}}};
  std::vector<VariantList> pairs = {
      {"xh", "zu", {{"ndi", 400}, {"ngi", -400}}, true}};
  auto bytes = Build(lists, pairs, BuildParams{});
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message();
  auto made = Model::FromBytes(std::move(*bytes));
  ASSERT_TRUE(made.has_value());
  const Model& model = *made;
  Options forced;
  forced.min_words = 1;
  forced.min_score = 0;
  const Language x =
      Detect("abantu ukuba zonke ndiyavuya ndiza", model, forced);
  const Language z =
      Detect("abantu ukuba zonke ngiyajabula ngiza", model, forced);
  EXPECT_EQ(x.code, "xh");
  EXPECT_EQ(x.second, "zu");
  EXPECT_EQ(z.code, "zu");
  EXPECT_EQ(z.second, "xh");
  // Without n-grams of the pair in it the verdict is the tiers' own.
  const Language tie = Detect("abantu ukuba zonke", model, forced);
  EXPECT_TRUE(tie.code == "xh" || tie.code == "zu") << tie.code;
  // Other languages are not touched.
  EXPECT_EQ(Detect("house garden house", model, forced).code, "en");
  // A bilingual verdict names the one the pair's paragraph favours.
  std::string en;
  for (int line = 0; line < 8; ++line) en += "house garden house garden\n";
  const std::string zulu =
      "\nabantu ukuba zonke ngiyajabula\nabantu ukuba zonke ngiza ngiyabonga";
  const Language b = Detect(en + zulu, model, Options{});
  EXPECT_EQ(b.code, "en+zu");
  std::string xhosa = zulu;
  for (std::size_t at; (at = xhosa.find("ngi")) != std::string::npos;)
    xhosa.replace(at, 3, "ndi");
  EXPECT_EQ(Detect(en + xhosa, model, Options{}).code, "en+xh");
}

// The forced verdict's code on `text` with a dictionary of `lists` and
// `variants`, or what failed.
std::string ForcedCode(const std::vector<WordList>& lists,
                       const std::vector<VariantList>& variants,
                       std::string_view text) {
  auto bytes = Build(lists, variants, BuildParams{});
  if (!bytes.has_value()) return "build: " + bytes.error().message();
  auto model = Model::FromBytes(std::move(*bytes));
  if (!model.has_value()) return "load: " + model.error().message();
  Options forced;
  forced.min_words = 1;
  forced.min_score = 0;
  return Detect(text, *model, forced).code;
}

// A Devanagari pair (Marathi beside Hindi): Lingua's models count runs of
// letters, so a word's n-grams stop at its vowel signs (मराठी reads as मर and
// ठ, never रठ). A pair's floor leaves a smaller sum to the word tiers.
TEST(DetectTest, ADevanagariPairReadsRunsOfLettersAndKeepsItsFloor) {
  std::vector<WordList> lists = {
      {"mr", {{"मराठी", 10}, {"भाषा", 10}}},
      {"hi", {{"मराठी", 10}, {"भाषा", 10}, {"नमस्ते", 10}}},
      {"en", {{"house", 10}, {"garden", 10}}}};
  const auto detect = [&](std::int32_t mar, std::uint32_t floor,
                          std::string_view text) {
    return ForcedCode(
        lists, {{"mr", "hi", {{"मर", mar}, {"रठ", -2 * mar}}, true, floor}},
        text);
  };
  // The words tie; "मर" alone decides (twice 4 nats either way), where the
  // letters joined would have "रठ" outweigh it.
  EXPECT_EQ(detect(400, 0, "मराठी भाषा मराठी"), "mr");
  EXPECT_EQ(detect(-400, 0, "मराठी भाषा मराठी"), "hi");
  // A Hindi word: the tiers say hi; a sum of 8 overrides them at floor 0 and
  // at 8, not at 9.
  EXPECT_EQ(detect(400, 0, "मराठी नमस्ते मराठी"), "mr");
  EXPECT_EQ(detect(400, 8, "मराठी नमस्ते मराठी"), "mr");
  EXPECT_EQ(detect(400, 9, "मराठी नमस्ते मराठी"), "hi");
}

// Where the two of a pair tie on the word tiers (the same words with the
// same shares), the pair's sum names one even under the pair's floor; where
// the tiers tell them apart, the floor keeps their verdict.
TEST(DetectTest, APairDecidesATieUnderItsFloor) {
  const std::vector<WordList> same = {{"xh", {{"abantu", 10}, {"ukuba", 10}}},
                                      {"zu", {{"abantu", 10}, {"ukuba", 10}}},
                                      {"en", {{"house", 10}, {"garden", 10}}}};
  const auto detect = [](const std::vector<WordList>& lists, std::int32_t value,
                         std::uint32_t floor, std::string_view text) {
    return ForcedCode(lists, {{"xh", "zu", {{"ndi", value}}, true, floor}},
                      text);
  };
  // One "ndi": 4 nats, under a floor of 9.
  EXPECT_EQ(detect(same, -400, 9, "abantu ukuba ndiza"), "zu");
  EXPECT_EQ(detect(same, 400, 9, "abantu ukuba ndiza"), "xh");
  std::vector<WordList> apart = same;
  apart[0].words.push_back({"molo", 10});
  EXPECT_EQ(detect(apart, -400, 9, "abantu molo ndiza"), "xh");
  EXPECT_EQ(detect(apart, -400, 0, "abantu molo ndiza"), "zu");
}

// The forced verdict of a pair `first`/`second` whose lists both hold
// `words` (so the word tiers tie), with one n-gram of value `value`, on
// `text`.
std::string PairCode(const std::string& first, const std::string& second,
                     const std::vector<std::string>& words,
                     std::string_view ngram, std::int32_t value,
                     std::string_view text) {
  WordList a{first, {}}, b{second, {}};
  for (const std::string& w : words) {
    a.words.push_back({w, 10});
    b.words.push_back({w, 10});
  }
  return ForcedCode({a, b, {"en", {{"house", 10}, {"garden", 10}}}},
                    {{first, second, {{std::string(ngram), value}}, true, 2}},
                    text);
}

// A Cyrillic pair (Serbian beside Macedonian): a Cyrillic word is read whole,
// as a Latin one, and its n-grams name the one they favour over the tiers'
// verdict; Latin n-grams of the same pair never touch a Cyrillic text.
TEST(DetectTest, ACyrillicPairReadsWholeWords) {
  const std::vector<std::string> words = {"коме", "рада"};
  const std::string text = "коме рада ције";
  EXPECT_EQ(PairCode("sr", "mk", words, "ције", 400, text), "sr");
  EXPECT_EQ(PairCode("sr", "mk", words, "ције", -400, text), "mk");
  EXPECT_EQ(PairCode("sr", "mk", words, "cije", -400, text),
            PairCode("sr", "mk", words, "cije", 400, text));
}

// An Arabic-script pair (Urdu beside Persian): a word is read as runs of
// letters, as a Devanagari one (Lingua's models hold no combining marks), so
// a vowel sign (U+064E, fatha) between two letters ends a run.
TEST(DetectTest, AnArabicPairReadsRunsOfLetters) {
  const std::vector<std::string> words = {"کتاب", "اور"};
  EXPECT_EQ(PairCode("ur", "fa", words, "یہ", 400, "کتاب اور یہ"), "ur");
  EXPECT_EQ(PairCode("ur", "fa", words, "یہ", -400, "کتاب اور یہ"), "fa");
  EXPECT_EQ(PairCode("ur", "fa", words, "یہ", 400, "کتاب اور یَہ"),
            PairCode("ur", "fa", words, "یہ", -400, "کتاب اور یَہ"));
}

// A variant without words (Nynorsk) is never the tiers' verdict: a language
// told from it (Swedish) hands a text whose sum favours it over to it, where
// the variant's base (Bokmål) has a share of the evidence.
TEST(DetectTest, APairWithAVariantNamesTheVariant) {
  std::vector<WordList> lists = {
      {"nb", {{"hus", 10}, {"og", 10}}},
      {"sv", {{"kommun", 10}, {"och", 10}, {"sikkja", 10}}},
      {"en", {{"house", 10}, {"garden", 10}}}};
  const auto detect = [&](std::uint32_t floor, std::string_view text) {
    return ForcedCode(
        lists,
        {{"nn", "nb", {{"kkj", 400}}, false},
         {"sv", "nn", {{"kkj", -800}, {"och", 400}}, true, floor}},
        text);
  };
  // Swedish words win; a Bokmål word and the n-grams say Nynorsk (-8 nats).
  EXPECT_EQ(detect(4, "kommun og ikkje kommun"), "nn");
  EXPECT_EQ(detect(8, "kommun og ikkje kommun"), "nn");
  EXPECT_EQ(detect(9, "kommun og ikkje kommun"), "sv");
  EXPECT_EQ(detect(4, "kommun och kommun"), "sv");
  EXPECT_EQ(detect(4, "house garden"), "en");
  // The n-grams say Nynorsk, but no word or trigram is Bokmål's: not read.
  EXPECT_EQ(detect(4, "kommun sikkja kommun"), "sv");
}

// A paragraph whose winner is only a little ahead of the text's best language
// on it (the best scores at least close_ratio of the winner's L there, as a
// paragraph of Bosnian read as Croatian) counts for the best: no bilingual
// verdict.
TEST(DetectTest, ParagraphCloseToTheBestCountsForIt) {
  const Model model = TinyModel();
  const std::string en = "house house house house house house house house\n\n";
  // One "haus" among seven "bank" (shares en 0.6, de 0.4): with the default
  // constants, L_de = 100 * (1 + 1.5 * 2.8) / N and L_en = 100 * 0.5 * 4.2 /
  // N, 0.40 of it.
  EXPECT_EQ(
      Detect(en + "haus bank bank bank bank bank bank bank", model, Options{})
          .code,
      "en");
  // Three "haus": L_en is 0.19 of L_de, a clear German paragraph.
  EXPECT_EQ(
      Detect(en + "haus haus haus bank bank bank bank bank", model, Options{})
          .code,
      "en+de");
}

// Two paragraphs, both won by the best language, are not bilingual because a
// third of their lines are read as another: a paragraph is read on more words.
TEST(DetectTest, AgreeingParagraphsOverruleLines) {
  const Model model = TinyModel();
  const std::string paragraph =
      "house house house\nhouse house house\nhaus haus haus\n";
  const Language l = Detect(paragraph + "\n" + paragraph, model, Options{});
  EXPECT_EQ(l.code, "en");
  EXPECT_EQ(l.second, "de");
  // One paragraph: the lines decide, as before.
  EXPECT_EQ(Detect(paragraph + paragraph, model, Options{}).code, "en+de");
}

// URLs and e-mail addresses are no language's words: their pieces are not
// counted, and lines and paragraphs stay where they were.
// A written variant replaces its base wherever the verdict names it when its
// n-grams say so; in a text of paragraphs the base's paragraphs alone are
// read, and a text in which the base is no contender is not read at all.
TEST(DetectTest, AVariantReplacesItsBaseWhenItsNgramsSaySo) {
  std::vector<WordList> lists = {
      {"nb", {{"ikke", 10}, {"huset", 10}, {"jeg", 10}}},
      {"en", {{"house", 10}, {"the", 10}}}};
  // For nn: "kkj" (ikkje) and "eg"; against: "je" (jeg), and "hous", which
  // only the English words have.
  std::vector<VariantList> variants = {
      {"nn", "nb", {{"kkj", 300}, {"eg", 100}, {"je", -200}, {"hous", -5000}}}};
  auto bytes = Build(lists, variants, BuildParams{});
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message();
  auto model = Model::FromBytes(std::move(*bytes));
  ASSERT_TRUE(model.has_value());
  const Model& m = *model;
  const auto nn = static_cast<std::size_t>(m.FindLanguage("nn"));

  const Evidence bokmal = Collect("jeg ikke huset", m);
  ASSERT_EQ(bokmal.variant.size(), bokmal.pure.size());
  EXPECT_NEAR(bokmal.variant[nn], -2 + 1, 1e-9);  // "jeg": je, eg
  EXPECT_EQ(Decide(bokmal, m, Options{}).code, "nb");

  const Evidence nynorsk = Collect("eg ikkje huset", m);
  EXPECT_NEAR(nynorsk.variant[nn], 1 + 3 - 2, 1e-9);  // eg; ikkje: kkj, je
  const Language l = Decide(nynorsk, m, Options{});
  EXPECT_EQ(l.code, "nn");
  EXPECT_EQ(l.best, "nn");

  // English: nb is no contender, nothing is read (its "hous" would count).
  EXPECT_EQ(Collect("the house the house", m).variant[nn], 0.0);

  // The English paragraph's "hous" would outweigh everything, but only the
  // paragraph that nb wins is read.
  const std::string text =
      "the house the house the house the house\n\n"
      "eg ikkje huset huset huset huset huset huset";
  const Evidence two = Collect(text, m);
  EXPECT_NEAR(two.variant[nn], 2, 1e-9);
  const Language both = Decide(two, m, Options{});
  EXPECT_TRUE(both.bilingual) << both.code;
  EXPECT_TRUE((both.best == "en" && both.partner == "nn") ||
              (both.best == "nn" && both.partner == "en"))
      << both.code;
  EXPECT_EQ(both.code, both.best + "+" + both.partner);

  // A model without variants has none in its evidence.
  EXPECT_TRUE(Collect("eg ikkje huset", TinyModel()).variant.empty());
}

TEST(DetectTest, AddressesAreNotWords) {
  const Model model = TinyModel();
  const Language l = Detect(
      "house house house http://haus.haus/haus\nhaus@haus.de www.haus.de",
      model, Options{});
  EXPECT_EQ(l.words, 3u);
  EXPECT_EQ(l.code, "en");
  EXPECT_TRUE(l.second.empty()) << l.second;
  // Without an address the same words count.
  EXPECT_EQ(Detect("house house house haus.haus", model, Options{}).words, 5u);
}

TEST(DetectTest, EmptyAndSymbolOnlyText) {
  const Model model = TinyModel();
  const Language l = Detect("", model, Formula());
  EXPECT_EQ(l.code, "und");
  EXPECT_EQ(l.words, 0u);
  EXPECT_EQ(Detect("12345 !!! ... 42", model, Formula()).words, 0u);
}

TEST(DetectTest, C1ApostropheJoinsNothingAndSplitsLikeTheLists) {
  const Model model = TinyModel();
  Options o = Formula();
  o.min_words = 1;
  // U+0092 (a mis-decoded windows-1252 apostrophe) is read as U+2019:
  // "house\u2019s" gives the pieces "house" and "s", as the word lists are
  // tokenised.
  const Language l = Detect("house\xC2\x92s", model, o);
  EXPECT_EQ(l.words, 2u);
  EXPECT_EQ(l.best, "en");
  EXPECT_EQ(MapC1Controls("a\xC2\x92"
                          "b\xC2\x80\xC2\x81"),
            "a\xE2\x80\x99"
            "b\xE2\x82\xAC ");
}

// A language with a word list in one script and a script of its own that
// decides it (Mongolian: Cyrillic list, Mongolian script) is one candidate:
// words of either script count for the list's entry, and a text in both is
// not "mn+mn".
TEST(DetectTest, ScriptDecidedWordsCountForTheLanguagesList) {
  auto bytes =
      Build({{"mn", {{"монгол", 10}, {"хэл", 5}}}, {"ru", {{"язык", 10}}}},
            BuildParams{});
  ASSERT_TRUE(bytes.has_value());
  auto model = Model::FromBytes(std::move(*bytes));
  ASSERT_TRUE(model.has_value());
  const int mn = model->FindLanguage("mn");
  ASSERT_GE(mn, 0);
  const std::string text = "ᠮᠣᠩᠭᠣᠯ ᠬᠡᠯᠡ монгол хэл язык";
  const Evidence e = Collect(text, *model);
  EXPECT_EQ(e.pure[mn], 4.0);  // two Mongolian-script words, two list words
  for (std::size_t i = 0; i < e.pure.size(); ++i) {
    if (static_cast<int>(i) != mn && CandidateCode(*model, i) == "mn") {
      EXPECT_EQ(e.pure[i], 0.0);
    }
  }
  Options o = Formula();
  o.min_words = 1;
  const Language l = Detect(text, *model, o);
  EXPECT_EQ(l.code, "mn");
  EXPECT_NE(l.second, "mn");
}

// The default dictionary (built into build/share/mailwave/langid.dict); null
// when it is absent.
const Model* DefaultModel() {
  static const auto model =
      Model::Open(MW_BINARY_DIR "/share/mailwave/langid.dict");
  return model ? &*model : nullptr;
}

// Two-paragraph texts from the development sentences (langid_eval's
// bilingual samples), with the default options.
struct ParagraphCase {
  const char* name;
  const char* text;
  const char* want;
};

const ParagraphCase kParagraphCases[] = {
    // A paragraph of a language with a small word list is mostly unknown
    // words: it is won on the n-gram evidence of the formula (it scored under
    // the floor of list weights per word, and the text read "af").
    {"af+sn",
     "elke keer word die ouers ingelig oor die gevare en die klein kans wat "
     "hy\nhet. en dan mag ons nooit sê: hoekom sal ons nog iets moet weet van "
     "die\nreformasie in die 16de eeu?\n\n"
     "dambudziko redu kuno kumarondera (nderekuti) pepanhau rakapera "
     "saka\ntumirai mamwe. dare iri rakadarikidzwa mberi kusvika musi wa12 "
     "kurume\napo nyaya iyi ichadzoka zvakare kuchipihwa mutongo.\n",
     "af+sn"},
    // The paragraphs decide before the lines: lines of the Azerbaijani
    // paragraph read as Turkish made "af+tr". The higher score comes first:
    // az since its list holds Tesseract's web words.
    {"az+af",
     "bu günlərdə də oxuduğu liseyə yeni əmələ gələn bir şagird\nhərəkatına "
     "qatılıb, bir tərəfdən gənc şuna aşiq olur. bu\nhalda monolit nüvənin "
     "alternativi mikronüvə ola bilər.\n\n"
     "die hospitaal se woordvoerder, me laticia pienaar, het bevestig "
     "dat\nventer aan sy brandwonde gesterf het. die internet is vol "
     "prentjies,\ngedigte, gesegdes – alles om te sê: “wees my valentyn!”\n",
     "az+af"},
    // Marathi in two paragraphs, both read as Marathi: lines read as Hindi
    // made "mr+hi".
    {"mr",
     "आनंद होय समर्था । आपली\nस्वत:ची आर्थिक बाजू भक्कम\nअसेल तर त्याला "
     "धक्का लागत\nनाही.\n\n"
     "आपोआपच त्याच्या विरोधातले\nकुठलेही युक्तीवाद कितीही\nविवेकी असले, तरी "
     "पटवून\nघेण्याच्या मनस्थितीत मी\nनव्हतो. आमीर खान काही कोटी\nरुपयांची "
     "कमाई करून आपल्या\nचित्रपट निर्मिती\nउद्योगाकडे साळसूदपणे वळला\nआहे.\n",
     "mr"},
};

// Kanji alone (an address, a company's name) in a text with kana is Japanese,
// also as a paragraph of its own.
TEST(DetectTest, KanjiParagraphOfAJapaneseTextIsJapanese) {
  const Model* model = DefaultModel();
  if (model == nullptr) GTEST_SKIP() << "no default dictionary";
  const Language l = Detect(
      "こんにちは。今日は東京へ行きます。\n\n東京都新宿区西新宿二丁目八番一号"
      "\n",
      *model, Options{});
  EXPECT_EQ(l.code, "ja");
}

TEST(DetectTest, TwoParagraphsFromTheDevelopmentSet) {
  const Model* model = DefaultModel();
  if (model == nullptr) GTEST_SKIP() << "no default dictionary";
  for (const ParagraphCase& c : kParagraphCases) {
    const Language l = Detect(c.text, *model, Options{});
    EXPECT_EQ(l.code, c.want) << c.name;
  }
}

// Heap bytes in use (arenas and mmapped blocks).
std::size_t HeapInUse() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// `n` bytes of distinct made-up words (base-26 numerals in a-z, every
// trigram of the alphabet sooner or later), with a shared word "bank" and a
// line break now and then: unknown words for the n-gram tier, tier-2 words,
// lines and paragraphs.
std::string DistinctWords(std::size_t n) {
  std::string text;
  text.reserve(n + 16);
  for (std::uint64_t i = 0; text.size() < n; ++i) {
    for (std::uint64_t v = i * 2654435761u + 17576; v > 0; v /= 26) {
      text.push_back(static_cast<char>('a' + v % 26));
    }
    text += i % 16 == 0 ? " bank\n" : (i % 1000 == 0 ? "\n\n" : " ");
  }
  return text;
}

// Issue 14 item 5: the milter runs a thread per connection, and what
// Collect keeps between texts (the pooled memos) must not grow with the
// largest text it ever read: after 5 MB of distinct words (tables of about
// a million words, tens of MB of n-gram shares while it runs) each idle
// memo holds at most ScratchKeptBound() bytes, the pool at most
// ScratchIdleBound() memos, and the heap in use has grown by at most one
// bound (the one memo this thread used); likewise after 2 MB of unspaced
// Japanese.
TEST(DetectTest, MemoryKeptBetweenTextsIsBounded) {
  const Model model = TinyModel();
  Options o;
  // A message-sized text first, so that the memo exists before measuring.
  const std::string small = DistinctWords(4096);
  EXPECT_GT(Detect(small, model, o).words, 0u);
  const internal::ScratchUsage before = internal::TEST_ScratchUsage();
  ASSERT_GE(before.idle, 1u);
  EXPECT_LE(before.max_held_bytes, internal::ScratchKeptBound());
  const std::string huge = DistinctWords(5 << 20);
  const std::size_t heap_before = HeapInUse();
  const Language l = Detect(huge, model, o);
  const std::size_t heap_after = HeapInUse();
  EXPECT_GT(l.words, 400000u);
  EXPECT_EQ(l.best, "en");
  const internal::ScratchUsage after = internal::TEST_ScratchUsage();
  EXPECT_EQ(after.idle, before.idle);
  EXPECT_LE(after.idle, internal::ScratchIdleBound());
  EXPECT_LE(after.max_held_bytes, internal::ScratchKeptBound());
  EXPECT_LE(after.total_held_bytes, after.idle * internal::ScratchKeptBound());
  EXPECT_LE(heap_after, heap_before + internal::ScratchKeptBound())
      << "heap grew by " << heap_after - heap_before << " bytes";
  // 2 MB of Japanese without punctuation (one unspaced run, cut by
  // segmentation into word-sized pieces): nothing else is kept either.
  std::string japanese;
  while (japanese.size() < (2u << 20)) {
    japanese += "日本語の文章をたくさん書いてみました東京都に住んでいる友達と";
  }
  const std::size_t heap_before_ja = HeapInUse();
  EXPECT_GT(Detect(japanese, model, o).words, 10000u);
  const std::size_t heap_after_ja = HeapInUse();
  EXPECT_LE(heap_after_ja, heap_before_ja + internal::ScratchKeptBound())
      << "heap grew by " << heap_after_ja - heap_before_ja << " bytes";
  EXPECT_LE(internal::TEST_ScratchUsage().max_held_bytes,
            internal::ScratchKeptBound());
  // Still a working memo: the small text gives the same evidence as the
  // reference path.
  const Evidence memo = Collect(small, model);
  const Evidence every = TEST_CollectEveryWord(small, model);
  EXPECT_EQ(memo.ngram, every.ngram);
  EXPECT_EQ(memo.ngram_affinity, every.ngram_affinity);
  EXPECT_EQ(memo.shared, every.shared);
}

}  // namespace
}  // namespace mw::langid
