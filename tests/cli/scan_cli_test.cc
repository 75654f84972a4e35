// `mailwave scan`: the JSON and CSV outputs, a damaged mbox reported while
// the scan goes on, --quiet, exit statuses.
#include <nlohmann/json.hpp>
#include <string>

#include "tests/archive/testutil.h"  // MakeMbox
#include "tests/cli/cli_test_util.h"

namespace mw::cli_test {
namespace {

bool Has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// A directory with a copy pair and two distinct messages.
std::string Archive(const std::string& name) {
  const std::string dir = ScratchDir(name);
  const std::string faq = ReadFile(Fixture("fp-faq-a.eml"));
  WriteFile(dir + "/a.eml", faq);
  WriteFile(dir + "/b.eml", faq);
  WriteFile(dir + "/c.eml", ReadFile(Fixture("encoding-7bit.eml")));
  WriteFile(dir + "/d.eml", ReadFile(Fixture("charset-utf-8.eml")));
  return dir;
}

TEST(ScanCli, WritesTheJsonSchema) {
  const std::string dir = Archive("scan-json");
  const Outcome r = MailwaveOut("scan --backend cpu --threads 2 " + dir);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["messages"].size(), 4u);
  for (const auto& m : j["messages"]) {
    for (const char* key : {"path", "message_id", "cluster_id", "is_canonical",
                            "similarity", "method"}) {
      EXPECT_TRUE(m.contains(key)) << key << " in " << m.dump();
    }
  }
  ASSERT_EQ(j["clusters"].size(), 1u);
  const auto& c = j["clusters"][0];
  EXPECT_EQ(c["canonical"], dir + "/a.eml");  // equal Dates: listing order
  EXPECT_EQ(c["members"],
            nlohmann::json::array({dir + "/a.eml", dir + "/b.eml"}));
  EXPECT_EQ(j["messages"][1]["method"], "exact");
  EXPECT_EQ(j["messages"][1]["cluster_id"], c["cluster_id"]);
  EXPECT_TRUE(j["messages"][0]["is_canonical"].get<bool>());
  EXPECT_TRUE(j["messages"][2]["cluster_id"].is_null());
  EXPECT_TRUE(j["messages"][2]["method"].is_null());
  EXPECT_EQ(j["meta"]["messages"], 4);
  EXPECT_EQ(j["meta"]["backend"], "cpu");
  for (const char* stage :
       {"read", "analyse", "candidates", "verify", "cluster", "total"}) {
    EXPECT_TRUE(j["meta"]["seconds"][stage].is_number()) << stage;
  }
}

TEST(ScanCli, WritesCsvToAFile) {
  const std::string dir = Archive("scan-csv");
  const std::string out = dir + "/../scan-csv.csv";
  const Outcome r = Mailwave("scan --quiet --out " + out + " " + dir);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out, "");
  const std::string csv = ReadFile(out);
  EXPECT_EQ(Lines(csv), 5) << csv;
  EXPECT_TRUE(csv.starts_with(
      "path,message_id,cluster_id,is_canonical,similarity,method\n"));
  EXPECT_TRUE(Has(csv, dir + "/b.eml,,0,false,1.0000,exact\n")) << csv;
  EXPECT_TRUE(Has(csv, dir + "/c.eml,encoding-7bit@example.org,,false,,\n"))
      << csv;
}

TEST(ScanCli, ReportsADamagedMboxAndGoesOn) {
  const std::string dir = ScratchDir("scan-damaged");
  const std::string faq = ReadFile(Fixture("fp-faq-a.eml"));
  std::string mbox = std::string("\x01\x02junk\0\n\n", 9) +
                     archive::testing::MakeMbox(
                         {faq, faq, ReadFile(Fixture("encoding-7bit.eml"))});
  mbox.resize(mbox.size() - 20);
  WriteFile(dir + "/box", mbox);
  WriteFile(dir + "/picture.bin", std::string("\x89PNG\0\0\0", 7));
  const Outcome r = Shell(Binary() + " scan --out " + dir + "/out.json " + dir +
                          " 2>&1 >/dev/null");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(Has(r.out, "mailwave scan: " + dir +
                             "/box: damaged mbox: 9 bytes before the first"))
      << r.out;
  EXPECT_TRUE(Has(r.out, dir + "/box:3: damaged mbox: the last message is cut"))
      << r.out;
  EXPECT_TRUE(Has(r.out, dir + "/picture.bin: neither a message nor an mbox"))
      << r.out;
  const auto j = nlohmann::json::parse(ReadFile(dir + "/out.json"));
  EXPECT_EQ(j["messages"].size(), 3u);
  EXPECT_EQ(j["messages"][0]["path"], dir + "/box:1");
  EXPECT_EQ(j["clusters"][0]["members"],
            nlohmann::json::array({dir + "/box:1", dir + "/box:2"}));
  EXPECT_EQ(j["problems"].size(), 3u);
}

TEST(ScanCli, QuietPrintsNothingOnStandardError) {
  const std::string dir = Archive("scan-quiet");
  WriteFile(dir + "/junk.bin", std::string("\x89PNG\0\0\0", 7));
  const Outcome r =
      Shell(Binary() + " scan --quiet " + dir + " 2>&1 >/dev/null");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "");
  // Without --quiet, the same scan reports the junk file (and no progress
  // bar: standard error is not a terminal here).
  const Outcome loud = Shell(Binary() + " scan " + dir + " 2>&1 >/dev/null");
  EXPECT_TRUE(Has(loud.out, "junk.bin: neither")) << loud.out;
  EXPECT_FALSE(Has(loud.out, "messages/s")) << loud.out;
}

TEST(ScanCli, ExitStatuses) {
  const std::string dir = ScratchDir("scan-status");
  EXPECT_EQ(Mailwave("scan").status, 2);
  EXPECT_EQ(Mailwave("scan --no-such " + dir).status, 2);
  EXPECT_EQ(Mailwave("scan --out x.txt " + dir).status, 2);
  EXPECT_EQ(Mailwave("scan --threshold ctph=2 " + dir).status, 2);
  EXPECT_EQ(Mailwave("scan --backend gpu " + dir).status, 2);
  const Outcome empty = Mailwave("scan " + dir);
  EXPECT_EQ(empty.status, 1);
  EXPECT_TRUE(Has(empty.out, "no message could be read")) << empty.out;
  EXPECT_EQ(Mailwave("scan --out /nonexistent/dir/x.json " +
                     Archive("scan-status-out"))
                .status,
            1);
}

}  // namespace
}  // namespace mw::cli_test
