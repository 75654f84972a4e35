// Golden tests: every tests/fixtures/mail/*.eml against its .expected (see
// make_fixtures.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mime/message.h"

namespace mw::mime {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Golden {
  std::string subject;
  bool has_charsets = false;
  std::string charsets;
  std::vector<std::string> warnings;
  bool no_warnings = false;
  std::string text;
};

Golden ReadGolden(const fs::path& p) {
  Golden g;
  const std::string all = Slurp(p);
  const std::string marker = "--- text\n";
  const auto at = all.find(marker);
  g.text = at == std::string::npos ? "" : all.substr(at + marker.size());
  std::istringstream head(all.substr(0, at));
  std::string line;
  while (std::getline(head, line)) {
    if (line.rfind("subject: ", 0) == 0)
      g.subject = line.substr(9);
    else if (line == "subject:")
      g.subject.clear();
    else if (line.rfind("charsets: ", 0) == 0) {
      g.has_charsets = true;
      g.charsets = line.substr(10);
    } else if (line.rfind("warning: ", 0) == 0)
      g.warnings.push_back(line.substr(9));
    else if (line == "no-warnings")
      g.no_warnings = true;
  }
  return g;
}

std::vector<std::string> FixtureNames() {
  std::vector<std::string> names;
  const fs::path dir = fs::path(MW_SOURCE_DIR) / "tests/fixtures/mail";
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".eml" &&
        fs::exists(fs::path(e.path()).replace_extension(".expected"))) {
      names.push_back(e.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

class FixtureTest : public testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, MatchesGolden) {
  const fs::path dir = fs::path(MW_SOURCE_DIR) / "tests/fixtures/mail";
  const std::string raw = Slurp(dir / (GetParam() + ".eml"));
  const Golden golden = ReadGolden(dir / (GetParam() + ".expected"));
  auto msg = Parse(raw, Limits{});
  ASSERT_TRUE(msg.has_value()) << msg.error().ToString();
  const Text text = Normalise(*msg);
  EXPECT_EQ(text.body, golden.text);
  EXPECT_EQ(text.subject, golden.subject);
  if (golden.has_charsets) {
    std::string used;
    for (const Part& p : msg->parts) {
      if (p.attachment) continue;
      if (!used.empty()) used += ',';
      used += p.charset_used;
    }
    EXPECT_EQ(used, golden.charsets);
  }
  std::string all_warnings;
  for (const auto& w : msg->warnings) all_warnings += w + "\n";
  for (const auto& w : golden.warnings) {
    EXPECT_NE(all_warnings.find(w), std::string::npos)
        << "missing warning: " << w << "\nwarnings:\n"
        << all_warnings;
  }
  if (golden.no_warnings) {
    EXPECT_EQ(all_warnings, "");
  }
}

INSTANTIATE_TEST_SUITE_P(Mail, FixtureTest, testing::ValuesIn(FixtureNames()),
                         [](const testing::TestParamInfo<std::string>& param) {
                           std::string n = param.param;
                           for (char& c : n) {
                             if (!std::isalnum(static_cast<unsigned char>(c)))
                               c = '_';
                           }
                           return n;
                         });

TEST(FixtureSet, IsNotEmpty) { EXPECT_GE(FixtureNames().size(), 25u); }

}  // namespace
}  // namespace mw::mime
