// The input rules every command of `mailwave` follows: a FILE is a message
// whatever its name, input is read up to [mime] max_bytes and no further, a
// directory or unreadable file is one line naming it (the other files are
// still read), usage and configuration errors are exit status 2 before any
// input is read, and a write error is exit status 1, never 0.
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"

namespace mw::cli_test {
namespace {

const char kCommandsReadingStdin[][64] = {"extract -",
                                          "fingerprint -",
                                          "compare - {A}",
                                          "langid -",
                                          "langid --text -",
                                          "langid --lines -",
                                          "check --dry-run --store {DB} -"};

std::string Expand(std::string args, const std::string& dir) {
  for (const auto& [key, value] : {std::pair<std::string, std::string>{
                                       "{A}", Fixture("encoding-7bit.eml")},
                                   {"{DB}", dir + "/store.db"}}) {
    for (std::size_t at; (at = args.find(key)) != std::string::npos;)
      args.replace(at, key.size(), value);
  }
  return args;
}

// A config whose max_bytes is the smallest allowed, 1 KiB.
std::string SmallConfig(const std::string& dir) {
  const std::string path = dir + "/small.toml";
  WriteFile(path, "[mime]\nmax_bytes = \"1KiB\"\n");
  return path;
}

// A message whose text and fingerprints are far larger than a pipe buffer.
std::string LongMessage(const std::string& dir) {
  std::string m = "From: a@example.org\nSubject: long\n\n";
  for (int i = 0; i < 30000; ++i) {
    m += "line " + std::to_string(i) + " of the long message, word " +
         std::to_string(i * 7919 % 10007) + ".\n";
  }
  const std::string path = dir + "/long.eml";
  WriteFile(path, m);
  return path;
}

TEST(InputCli, LangidReadsAnyFileAsAMessage) {
  const std::string dir = ScratchDir("any-name");
  Shell("cp " + Fixture("charset-windows-1252.eml") + " " + dir + "/mail.txt");
  const Outcome eml =
      Mailwave("langid --json " + Fixture("charset-windows-1252.eml"));
  const Outcome txt = Mailwave("langid --json " + dir + "/mail.txt");
  const Outcome stdin_ =
      Mailwave("langid --json - < " + Fixture("charset-windows-1252.eml"));
  EXPECT_EQ(eml.status, 0) << eml.out;
  EXPECT_EQ(txt.status, 0) << txt.out;
  EXPECT_EQ(eml.out, txt.out);
  EXPECT_EQ(eml.out, stdin_.out);
  // --eml is kept, and changes nothing.
  EXPECT_EQ(Mailwave("langid --json --eml " + dir + "/mail.txt").out, eml.out);
  // --text reads the same file as plain text: the headers become words.
  const Outcome text =
      Mailwave("langid --json --text " + Fixture("charset-windows-1252.eml"));
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.out, eml.out);
}

TEST(InputCli, StandardInputIsReadUpToMaxBytes) {
  const std::string dir = ScratchDir("bounded");
  const std::string cfg = SmallConfig(dir);
  for (const char* args : kCommandsReadingStdin) {
    const std::string cmd = "yes | timeout 20 " + Binary() + " -c " + cfg +
                            " " + Expand(args, dir) + " 2>/dev/null";
    const Outcome r = Shell(cmd);
    EXPECT_EQ(r.status, 0) << args;
    EXPECT_LT(r.out.size(), 65536u) << args;
  }
  const Outcome r =
      Shell("yes | timeout 20 " + Binary() + " -c " + cfg + " extract -");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_LE(r.out.size(), 1024u) << "extract - prints at most the 1 KiB read";
}

TEST(InputCli, FilesAreReadUpToMaxBytes) {
  const std::string dir = ScratchDir("bounded-file");
  const Outcome r =
      MailwaveOut("-c " + SmallConfig(dir) + " extract " + LongMessage(dir));
  EXPECT_EQ(r.status, 0);
  EXPECT_LE(r.out.size(), 1024u);
  EXPECT_EQ(r.out.rfind("line 0 of the long message", 0), 0u) << r.out;
}

TEST(InputCli, DirectoryIsOneLineAndTheOtherFilesAreRead) {
  const std::string dir = ScratchDir("directory");
  const std::string good = Fixture("encoding-7bit.eml");
  for (const std::string& cmd : std::vector<std::string>{
           "langid", "check --dry-run --store " + dir + "/store.db"}) {
    const Outcome out =
        MailwaveOut(cmd + " " + dir + " " + good + " /nonexistent/x.eml");
    const Outcome err = Shell(Binary() + " " + cmd + " " + dir + " " + good +
                              " /nonexistent/x.eml 2>&1 >/dev/null");
    EXPECT_EQ(out.status, 1) << cmd;
    EXPECT_NE(out.out.find(good), std::string::npos) << cmd << out.out;
    EXPECT_EQ(err.out, "mailwave " + cmd.substr(0, cmd.find(' ')) + ": " + dir +
                           ": is a directory\nmailwave " +
                           cmd.substr(0, cmd.find(' ')) +
                           ": /nonexistent/x.eml: No such file or directory\n")
        << cmd;
  }
}

TEST(InputCli, SingleFileCommandsNameTheDirectory) {
  const std::string dir = ScratchDir("single");
  for (const std::string& cmd :
       std::vector<std::string>{"extract", "fingerprint", "compare"}) {
    const std::string args =
        cmd + " " + dir +
        (cmd == "compare" ? " " + Fixture("encoding-7bit.eml") : "");
    const Outcome r = Mailwave(args);
    EXPECT_EQ(r.status, 1) << cmd;
    EXPECT_EQ(r.out, "mailwave " + cmd + ": " + dir + ": is a directory\n");
  }
  const Outcome r = Mailwave("extract - < " + dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "mailwave extract: standard input: is a directory\n");
}

TEST(InputCli, WriteErrorIsExitOneWithOneLine) {
  const std::string dir = ScratchDir("full");
  const std::string m = Fixture("encoding-7bit.eml");
  const std::vector<std::string> commands = {
      "extract " + m,
      "extract --json " + m,
      "fingerprint " + m,
      "compare " + m + " " + m,
      "langid " + m,
      "langid --lines " + m,
      "check --dry-run --store " + dir + "/store.db " + m,
      "store --store " + dir + "/store.db stats",
      "config --defaults",
      "dict info " + Dictionary(),
      "help",
      "--help",
      "extract --help",
      "--version"};
  for (const std::string& args : commands) {
    const Outcome r = Shell(Binary() + " " + args + " 2>&1 >/dev/full");
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_EQ(Lines(r.out), 1) << args << ": " << r.out;
    EXPECT_NE(r.out.find("standard output: No space left on device"),
              std::string::npos)
        << args << ": " << r.out;
  }
}

TEST(InputCli, ClosedPipeIsExitOneWithOneLine) {
  const std::string dir = ScratchDir("pipe");
  const std::string m = LongMessage(dir);
  for (const std::string& args : std::vector<std::string>{
           "extract " + m, "fingerprint " + m, "langid --lines " + m}) {
    // PIPESTATUS: the status of mailwave itself, not of head.
    const Outcome r = Shell("bash -c '" + Binary() + " " + args + " 2>" + dir +
                            "/err | head -c 1 >/dev/null; "
                            "exit ${PIPESTATUS[0]}'");
    EXPECT_EQ(r.status, 1) << args;
    const std::string err = ReadFile(dir + "/err");
    EXPECT_EQ(Lines(err), 1) << args << ": " << err;
    EXPECT_NE(err.find("standard output: Broken pipe"), std::string::npos)
        << args << ": " << err;
  }
}

TEST(InputCli, UsageErrorsComeBeforeAnyInput) {
  // An endless standard input would keep a command that reads first busy
  // until the timeout (status 124).
  for (const std::string& args : std::vector<std::string>{
           "extract --bogus -", "fingerprint - -", "compare - -",
           "langid --min-words x -", "langid - -", "check --now never -",
           "extract - extra"}) {
    const Outcome r =
        Shell("yes | timeout 20 " + Binary() + " " + args + " 2>&1");
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(Lines(r.out), 1) << args << ": " << r.out;
  }
}

TEST(InputCli, DictBuildChecksParametersBeforeReading) {
  const std::string dir = ScratchDir("dict-params");
  const std::string lists =
      std::string(MW_SOURCE_DIR) + "/tests/langid/fixtures/lists";
  for (const std::string& bad : std::vector<std::string>{
           "--pure-share 0.3", "--pure-share 1.5", "--min-share 0.7",
           "--max-languages 0", "--max-words x", "--bogus", "extra"}) {
    // A missing input directory would be exit status 1: the parameters are
    // refused first.
    Outcome r = Mailwave("dict build --input /nonexistent --out " + dir +
                         "/d.dict " + bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.out;
    EXPECT_EQ(Lines(r.out), 1) << bad << ": " << r.out;
    r = Mailwave("dict build -q --input " + lists + " --out " + dir +
                 "/d.dict " + bad);
    EXPECT_EQ(r.status, 2) << bad << ": " << r.out;
  }
  EXPECT_EQ(Mailwave("dict build --out " + dir + "/d.dict").status, 2);
}

TEST(InputCli, ConfigurationErrorsAreExitTwoForEveryCommand) {
  const std::string dir = ScratchDir("config");
  const std::string bad = dir + "/bad.toml";
  WriteFile(bad, "[mime]\nmax_prts = 3\n");
  const std::string m = Fixture("encoding-7bit.eml");
  for (const std::string& args : std::vector<std::string>{
           "extract " + m, "fingerprint " + m, "compare " + m + " " + m,
           "langid " + m, "check --dry-run " + m, "store stats",
           std::string("config --check"), std::string("config --changed")}) {
    for (const std::string& cfg : {bad, dir + "/missing.toml"}) {
      const Outcome r = Mailwave("-c " + cfg + " " + args);
      EXPECT_EQ(r.status, 2) << args << ": " << r.out;
      EXPECT_EQ(Lines(r.out), 1) << args << ": " << r.out;
      EXPECT_EQ(r.out.rfind("mailwave: " + cfg + ":", 0), 0u) << r.out;
    }
  }
}

}  // namespace
}  // namespace mw::cli_test
