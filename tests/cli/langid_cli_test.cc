// `mailwave langid` as a user runs it: messages by default whatever the file
// name, --text and --lines for plain text, --eml a kept no-op, one output
// line per text.
#include <string>

#include "tests/cli/cli_test_util.h"

namespace mw::cli_test {
namespace {

TEST(LangidCli, MessageSubjectAndBodyAreRead) {
  // The subject counts: a message whose body is empty is still identified.
  const std::string dir = ScratchDir("langid-subject");
  WriteFile(dir + "/m",
            "Subject: the quick brown fox jumps over the lazy dog "
            "and runs into the forest\n\n");
  const Outcome r = MailwaveOut("langid " + dir + "/m");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("en\t", 0), 0u) << r.out;
}

TEST(LangidCli, TextReadsHeadersAsWords) {
  const std::string dir = ScratchDir("langid-text");
  WriteFile(dir + "/m.eml",
            "Subject: x\nX-Note: le chat est sur la table avec le chien\n\n"
            "the quick brown fox jumps over the lazy dog and runs away\n");
  const Outcome msg = MailwaveOut("langid --json " + dir + "/m.eml");
  const Outcome text = MailwaveOut("langid --json --text " + dir + "/m.eml");
  EXPECT_EQ(msg.status, 0);
  EXPECT_EQ(text.status, 0);
  // The message: subject "x" and the body; as text, the French header too.
  EXPECT_NE(msg.out.find("\"lang\":\"en\","), std::string::npos) << msg.out;
  EXPECT_NE(msg.out.find("\"words\":13,"), std::string::npos) << msg.out;
  EXPECT_NE(text.out.find("\"words\":25,"), std::string::npos) << text.out;
}

TEST(LangidCli, LinesArePlainTextOneOutputLineEach) {
  const std::string dir = ScratchDir("langid-lines");
  WriteFile(dir + "/l.txt",
            "Subject: the quick brown fox jumps over the lazy dog\n\n"
            "le chat est sur la table avec le chien\n");
  const Outcome r = MailwaveOut("langid --lines " + dir + "/l.txt");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(Lines(r.out), 3) << r.out;
  EXPECT_EQ(r.out.rfind("en\t", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\nund\t"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nfr\t"), std::string::npos) << r.out;
  // --eml, kept for old scripts, changes nothing, not even with --lines.
  EXPECT_EQ(MailwaveOut("langid --eml --lines " + dir + "/l.txt").out, r.out);
}

// "und" means too little text, and its JSON still names the best guess;
// forced mode (--min-words 1 --min-score 0) names a language even for a word
// every list shares.
TEST(LangidCli, UndNamesTheBestGuessAndForcedModeForces) {
  const std::string dir = ScratchDir("langid-und");
  WriteFile(dir + "/l.txt", "je suis très content\ntrès content\nhello\n");
  const Outcome r = MailwaveOut("langid --json --lines " + dir + "/l.txt");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("{\"lang\":\"fr\",", 0), 0u) << r.out;
  // Two words: "und", with the guess and its score.
  const std::size_t second_line = r.out.find('\n') + 1;
  EXPECT_EQ(r.out.compare(second_line, 20, "{\"lang\":\"und\",\"score"), 0)
      << r.out;
  EXPECT_EQ(r.out.find("\"best\":null", second_line), std::string::npos)
      << r.out;
  const Outcome forced = MailwaveOut(
      "langid --json --lines --min-words 1 --min-score 0 " + dir + "/l.txt");
  EXPECT_EQ(forced.out.find("\"lang\":\"und\""), std::string::npos)
      << forced.out;
}

// A bilingual verdict names its two languages in "lang", "best" and
// "partner", and does not repeat the partner as "second".
TEST(LangidCli, BilingualDoesNotRepeatThePartner) {
  const std::string dir = ScratchDir("langid-bilingual");
  WriteFile(dir + "/b.txt",
            "thank you for your order, we will send the parcel to your "
            "address tomorrow morning.\n\nvielen dank für ihre bestellung, "
            "wir schicken das paket morgen früh an ihre adresse.\n");
  const Outcome r = MailwaveOut("langid --json --text " + dir + "/b.txt");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("\"lang\":\"en+de\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"partner\":\"de\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"second\":\"de\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"second\":\"en\""), std::string::npos) << r.out;
}

TEST(LangidCli, SeveralFilesAreNamed) {
  const std::string a = Fixture("encoding-7bit.eml");
  const std::string b = Fixture("encoding-8bit.eml");
  const Outcome r = MailwaveOut("langid " + a + " " + b);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(Lines(r.out), 2);
  EXPECT_EQ(r.out.rfind(a + "\t", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\n" + b + "\t"), std::string::npos) << r.out;
}

TEST(LangidCli, HelpSaysMessagesAreTheDefault) {
  const Outcome r = Mailwave("langid --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Every FILE is an\nRFC 822 message, whatever its name"),
            std::string::npos);
  EXPECT_NE(r.out.find("--eml          accepted and ignored"),
            std::string::npos);
  EXPECT_EQ(r.out.find("ends in .eml"), std::string::npos)
      << "no suffix rule left";
}

}  // namespace
}  // namespace mw::cli_test
