// Help everywhere: `mailwave CMD --help` for every command and sub-action,
// every line within 80 columns, `mailwave help CMD` printing the same, and
// `--` ending the options of every command.
#include <cctype>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli/cli_test_util.h"

namespace mw::cli_test {
namespace {

const std::vector<std::string> kCommands = {
    "extract", "config", "fingerprint", "compare", "langid",
    "dict",    "check",  "store",       "scan",    "help"};

// Every command, and the sub-actions that take their own arguments.
const std::vector<std::string> kHelpTargets = {
    "",           "extract",     "config", "fingerprint",
    "compare",    "langid",      "dict",   "dict build",
    "dict info",  "check",       "store",  "store stats",
    "store show", "store prune", "scan",   "help"};

// Columns of a line of UTF-8 text: its code points (the help texts use "·",
// "Σ", "…", which take one column each).
std::size_t Columns(const std::string& line) {
  std::size_t n = 0;
  for (const unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

TEST(HelpCli, EveryCommandAndActionHasHelpWithin80Columns) {
  for (const std::string& target : kHelpTargets) {
    for (const char* flag : {"--help", "-h"}) {
      const std::string args = target + (target.empty() ? "" : " ") + flag;
      const Outcome r = Mailwave(args);
      EXPECT_EQ(r.status, 0) << args << ": " << r.out;
      EXPECT_EQ(r.out.rfind("Usage: mailwave", 0), 0u) << args << ": " << r.out;
      std::size_t start = 0;
      for (std::size_t end;
           (end = r.out.find('\n', start)) != std::string::npos;
           start = end + 1) {
        const std::string line = r.out.substr(start, end - start);
        EXPECT_LE(Columns(line), 80u) << args << ": " << line;
      }
      EXPECT_EQ(start, r.out.size()) << args << ": no final newline";
    }
  }
}

// A default a help text states ("langid.min_score (default 5)") is the one
// `mailwave config --defaults` prints: help texts state them in prose, the
// configuration declares them, and a retuned default must not leave the help
// behind (langid's once said 15 where the setting was 5).
TEST(HelpCli, DefaultsStatedInHelpAreTheConfigurationsDefaults) {
  // Parsed by hand: std::regex trips GCC 12's -Wmaybe-uninitialized in the
  // sanitizer build.
  std::map<std::string, std::string> defaults;  // "table.key" -> value
  {
    const Outcome r = Mailwave("config --defaults");
    ASSERT_EQ(r.status, 0);
    std::istringstream in(r.out);
    std::string line, table;
    while (std::getline(in, line)) {
      if (line.size() > 2 && line.front() == '[' && line.back() == ']') {
        table = line.substr(1, line.size() - 2);
      }
      const std::size_t eq = line.find(" = ");
      if (!table.empty() && eq != std::string::npos && line[0] != '#') {
        defaults[table + "." + line.substr(0, eq)] = line.substr(eq + 3);
      }
    }
  }
  ASSERT_GT(defaults.count("langid.min_score"), 0u);
  // "table.key (default 5)", the words possibly wrapped onto the next line.
  auto key_before = [](const std::string& text, std::size_t end) {
    std::size_t begin = end;
    while (begin > 0 &&
           (std::isalnum(static_cast<unsigned char>(text[begin - 1])) != 0 ||
            text[begin - 1] == '_' || text[begin - 1] == '.')) {
      --begin;
    }
    return text.substr(begin, end - begin);
  };
  std::size_t stated = 0;
  for (const std::string& target : kHelpTargets) {
    std::string help = Mailwave(target + " --help").out;
    for (char& c : help) {
      if (c == '\n') c = ' ';
    }
    for (std::size_t p = help.find("(default "); p != std::string::npos;
         p = help.find("(default ", p + 1)) {
      std::size_t end = p;
      while (end > 0 && help[end - 1] == ' ') --end;
      const std::string key = key_before(help, end);
      if (defaults.count(key) == 0) continue;  // not a setting
      const std::size_t v = p + 9;
      std::size_t v_end = v;
      while (v_end < help.size() &&
             (std::isdigit(static_cast<unsigned char>(help[v_end])) != 0 ||
              help[v_end] == '.')) {
        ++v_end;
      }
      if (v_end == v || help[v_end] != ')') continue;
      ++stated;
      EXPECT_DOUBLE_EQ(std::stod(help.substr(v, v_end - v)),
                       std::stod(defaults[key]))
          << "mailwave " << target << " --help says " << key << " (default "
          << help.substr(v, v_end - v)
          << "); config --defaults: " << defaults[key];
    }
  }
  EXPECT_GE(stated, 5u) << "the langid help states its defaults";
}

TEST(HelpCli, HelpAfterOtherArgumentsStillHelps) {
  const Outcome want = Mailwave("dict --help");
  EXPECT_EQ(Mailwave("dict build --input x --help").out, want.out);
  EXPECT_EQ(Mailwave("langid --json --help").out,
            Mailwave("langid --help").out);
}

TEST(HelpCli, HelpCommandPrintsTheSameAsDashDashHelp) {
  for (const std::string& c : kCommands) {
    const Outcome a = Mailwave("help " + c);
    const Outcome b = Mailwave(c + " --help");
    EXPECT_EQ(a.status, 0) << c;
    EXPECT_EQ(a.out, b.out) << c;
  }
  EXPECT_EQ(Mailwave("help dict build").out, Mailwave("dict build --help").out);
}

TEST(HelpCli, HelpAlonePrintsTheOverview) {
  const Outcome a = Mailwave("help");
  EXPECT_EQ(a.status, 0);
  EXPECT_EQ(a.out, Mailwave("--help").out);
  for (const std::string& c : kCommands) {
    EXPECT_NE(a.out.find("\n  " + c + " "), std::string::npos) << c;
  }
  const Outcome none = Mailwave("");
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(none.out, a.out) << "without a command: the overview, exit 2";
}

TEST(HelpCli, UnknownHelpTopicIsAUsageError) {
  const Outcome r = Mailwave("help no-such-command");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "mailwave help: unknown command 'no-such-command'\n");
}

TEST(HelpCli, DoubleDashEndsTheOptionsOfEveryCommand) {
  const std::string dir = ScratchDir("dashdash");
  Shell("cp " + Fixture("encoding-7bit.eml") + " " + dir + "/-x");
  Shell("ln -s " + Dictionary() + " " + dir + "/-d");
  const std::string in = "cd " + dir + " && " + Binary() + " ";
  const std::string db = " --store " + dir + "/store.db ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"extract -- -x", "plain 7bit ascii text."},
      {"extract --json -- -x", "\"subject\":\"7bit\""},
      {"fingerprint -- -x", "body_sha1: "},
      {"compare -- -x -x", "method: exact"},
      {"compare --json -- - -x < -x", "\"method\":\"exact\""},
      {"langid -- -x", "\t"},
      {"langid --text -- -x -", "-x\t"},
      {"check --dry-run" + db + "-- -x", "X-Mailwave-Language: "},
      {"dict info -- -d", "format version: "},
  };
  for (const auto& [args, want] : cases) {
    const std::string stdin_ =
        args.find('<') == std::string::npos ? " < /dev/null" : "";
    const Outcome r = Shell(in + args + " 2>&1" + stdin_);
    EXPECT_EQ(r.status, 0) << args << ": " << r.out;
    EXPECT_NE(r.out.find(want), std::string::npos) << args << ": " << r.out;
    // Without "--", -x is an unknown option.
    std::string without = args;
    without.erase(without.find("-- "), 3);
    const Outcome u = Shell(in + without + " 2>&1" + stdin_);
    EXPECT_EQ(u.status, 2) << without << ": " << u.out;
    EXPECT_NE(u.out.find("unknown option -"), std::string::npos)
        << without << ": " << u.out;
  }
  // After "--", --help is a file name too.
  const Outcome r = Shell(in + "extract -- --help 2>&1");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "mailwave extract: --help: No such file or directory\n");
  // Commands that take no FILE refuse one after "--".
  EXPECT_EQ(Mailwave("config --defaults -- x").status, 2);
  EXPECT_EQ(Mailwave("config -- --defaults").status, 2);
  EXPECT_EQ(Mailwave("config --defaults --").status, 0);
}

}  // namespace
}  // namespace mw::cli_test
