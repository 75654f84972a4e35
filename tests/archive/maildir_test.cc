#include "archive/maildir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "tests/archive/testutil.h"

namespace mw::archive {
namespace {

using testing::Fixture;
using testing::PermissionsBind;
using testing::TempDir;
using testing::WriteFile;

TEST(IsMaildir, NeedsCurAndNew) {
  TempDir t;
  const std::string md = t.path() + "/Mail";
  std::filesystem::create_directories(md + "/cur");
  EXPECT_FALSE(IsMaildir(md));
  std::filesystem::create_directories(md + "/new");
  EXPECT_TRUE(IsMaildir(md));
  EXPECT_FALSE(IsMaildir(t.path() + "/missing"));
}

TEST(ListMaildir, ReadsNewCurAndSubfoldersButNotTmp) {
  TempDir t;
  const std::string md = t.path() + "/Mail";
  const std::string m = Fixture("encoding-7bit.eml");
  WriteFile(md + "/cur/1000.M1.host:2,S", m);
  WriteFile(md + "/cur/1001.M2.host:2,", m);
  WriteFile(md + "/new/1002.M3.host", m);
  WriteFile(md + "/tmp/1003.M4.host", m);  // delivery in progress
  WriteFile(md + "/cur/.hidden", m);
  WriteFile(md + "/.Sent/cur/2000.M5.host:2,S", m);
  std::filesystem::create_directories(md + "/.Sent/new");
  WriteFile(md + "/.NotAFolder/cur/x", m);  // no new/: not a Maildir
  const MaildirListing l = ListMaildir(md);
  EXPECT_TRUE(l.problems.empty());
  EXPECT_EQ(l.files, (std::vector<std::string>{
                         md + "/new/1002.M3.host", md + "/cur/1000.M1.host:2,S",
                         md + "/cur/1001.M2.host:2,",
                         md + "/.Sent/cur/2000.M5.host:2,S"}));
}

TEST(ListMaildir, ReportsAnUnreadableDirectory) {
  TempDir t;
  const std::string md = t.path() + "/Mail";
  WriteFile(md + "/new/1.host", Fixture("encoding-7bit.eml"));
  WriteFile(md + "/cur/2.host", Fixture("encoding-7bit.eml"));
  ASSERT_EQ(::chmod((md + "/cur").c_str(), 0), 0);
  // Root as well: the listing runs without the capabilities that let root
  // ignore permission bits.
  const PermissionsBind bind;
  if (!bind.ok())
    GTEST_SKIP() << "root here cannot drop CAP_DAC_OVERRIDE and "
                    "CAP_DAC_READ_SEARCH (capset failed), so mode 000 "
                    "does not deny it";
  const MaildirListing l = ListMaildir(md);
  EXPECT_EQ(l.files, std::vector<std::string>{md + "/new/1.host"});
  ASSERT_EQ(l.problems.size(), 1u);
  EXPECT_NE(l.problems[0].find("Permission denied"), std::string::npos)
      << l.problems[0];
}

}  // namespace
}  // namespace mw::archive
