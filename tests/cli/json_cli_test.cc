// The JSON outputs of `mailwave`: an absent value is null, never "" or 0, and
// a number that is a fraction is written as one (1.0, not 1).
#include <string>

#include "tests/cli/cli_test_util.h"

namespace mw::cli_test {
namespace {

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(JsonCli, LangidWithoutASecondLanguageSaysNull) {
  const std::string greek =
      "echo 'Καλημέρα σας, πώς είστε σήμερα φίλε μου' | " + Binary();
  const Outcome r = Shell(greek + " langid --json --text -");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(Has(r.out, "\"lang\":\"el\",\"score\":100.0,")) << r.out;
  EXPECT_TRUE(Has(r.out, "\"second\":null,\"second_score\":null,")) << r.out;
  const Outcome text = Shell(greek + " langid --text -");
  EXPECT_EQ(text.out, "el\t100.0\t-\t-\n");
}

TEST(JsonCli, LangidScoresAreFractions) {
  const Outcome r =
      MailwaveOut("langid --json " + Fixture("encoding-7bit.eml"));
  EXPECT_EQ(r.status, 0);
  const std::size_t at = r.out.find("\"score\":");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string score = r.out.substr(at + 8, r.out.find(',', at) - at - 8);
  EXPECT_NE(score.find('.'), std::string::npos) << r.out;
  // An empty text: no language, no best guess (score 0.0), no partner, no
  // second.
  const Outcome und = MailwaveOut("langid --json --text - < /dev/null");
  EXPECT_TRUE(Has(und.out,
                  "\"lang\":\"und\",\"score\":0.0,\"best\":null,"
                  "\"partner\":null,\"partner_score\":null,\"second\":null,"
                  "\"second_score\":null"))
      << und.out;
}

TEST(JsonCli, ExtractAbsentPartValuesAreNull) {
  const Outcome r =
      MailwaveOut("extract --json " + Fixture("encoding-7bit.eml"));
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(Has(r.out, "\"filename\":null,\"sha1\":null,")) << r.out;
  EXPECT_FALSE(Has(r.out, "\"\"")) << r.out;
  // An attachment keeps its name and hash.
  const Outcome a =
      MailwaveOut("extract --json " + Fixture("header-rfc2047-rfc2231.eml"));
  EXPECT_TRUE(
      Has(a.out, "\"sha1\":\"a6a1c8998d4f5f1b2224127ad170540cd46ebf3d\""))
      << a.out;
}

TEST(JsonCli, ExtractWithoutSubjectSaysNull) {
  const std::string dir = ScratchDir("json-subject");
  WriteFile(dir + "/m.eml", "From: a@example.org\n\nhello there\n");
  const Outcome r = MailwaveOut("extract --json " + dir + "/m.eml");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("{\"subject\":null,\"text\":\"hello there\"", 0), 0u)
      << r.out;
}

TEST(JsonCli, CompareWritesFractionsAndNulls) {
  const std::string m = Fixture("encoding-7bit.eml");
  const Outcome same = MailwaveOut("compare --json " + m + " " + m);
  EXPECT_EQ(same.status, 0);
  EXPECT_TRUE(Has(same.out, "\"similarity\":1.0,")) << same.out;
  EXPECT_TRUE(Has(same.out, "\"edit_rate\":0.0}")) << same.out;
  EXPECT_TRUE(Has(same.out, "\"method\":\"exact\"")) << same.out;
  EXPECT_TRUE(Has(same.out,
                  "\"end_left_out\":0,\"edit_rate_without_end\":0.0,"
                  "\"runs_without_end\":0}"))
      << same.out;
  // An empty body compares by no method: null, not 0.
  const Outcome empty =
      MailwaveOut("compare --json --text - " + m + " < /dev/null");
  EXPECT_EQ(empty.status, 0) << empty.out;
  EXPECT_TRUE(Has(empty.out, "\"similarity\":null")) << empty.out;
  EXPECT_TRUE(Has(empty.out, "\"edit_rate\":null")) << empty.out;
  EXPECT_TRUE(Has(empty.out, "\"end_left_out\":null")) << empty.out;
}

// A spun copy (every fourth word of the body replaced, as a spinner's
// synonyms would) is a duplicate by the words path only; the JSON says so and
// gives the words path's scores.
TEST(JsonCli, CompareNamesTheWordsPath) {
  const std::string base = ReadFile(Fixture("spam-419.eml"));
  const std::size_t body = base.find("\n\n");
  ASSERT_NE(body, std::string::npos);
  // The spinner's synonyms: the words of another text, in turn.
  std::vector<std::string> synonyms;
  {
    const std::string other = ReadFile(Fixture("fp-faq-a.eml"));
    std::string w;
    for (const char c : other.substr(other.find("\n\n"))) {
      if (std::isalpha(static_cast<unsigned char>(c)) != 0) {
        w += c;
      } else if (!w.empty()) {
        if (w.size() >= 3) synonyms.push_back(w);
        w.clear();
      }
    }
  }
  ASSERT_GT(synonyms.size(), 100u);
  std::string spun = base.substr(0, body);
  std::size_t word = 0;
  bool in_word = false;
  for (std::size_t i = body; i < base.size(); ++i) {
    const bool letter = std::isalpha(static_cast<unsigned char>(base[i])) != 0;
    if (letter && !in_word && ++word % 4 == 0) {
      spun += synonyms[(word / 4) % synonyms.size()];
      while (i + 1 < base.size() &&
             std::isalpha(static_cast<unsigned char>(base[i + 1])) != 0) {
        ++i;
      }
      in_word = true;
      continue;
    }
    in_word = letter;
    spun += base[i];
  }
  const std::string dir = ScratchDir("json-words");
  WriteFile(dir + "/spun.eml", spun);
  const Outcome r = MailwaveOut("compare --json " + Fixture("spam-419.eml") +
                                " " + dir + "/spun.eml");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(Has(r.out, "\"method\":\"words\"")) << r.out;
  EXPECT_TRUE(Has(r.out, "\"words\":{\"sketch\":0.")) << r.out;
  EXPECT_FALSE(Has(r.out, "\"runs\":null")) << r.out;
}

TEST(JsonCli, FingerprintWithoutOtherBlocksSaysNull) {
  const std::string dir = ScratchDir("json-fp");
  std::string big;
  for (int i = 0; i < 4000; ++i)
    big += "sentence number " + std::to_string(i) + " of a long text.\n";
  WriteFile(dir + "/big.txt", big);
  const Outcome r =
      MailwaveOut("fingerprint --json --text " + dir + "/big.txt");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(Has(r.out, "\"other_blocks\":null")) << r.out.substr(0, 300);
}

}  // namespace
}  // namespace mw::cli_test
