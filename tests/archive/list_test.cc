#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "archive/archive.h"
#include "tests/archive/testutil.h"

namespace mw::archive {
namespace {

using testing::Fixture;
using testing::MakeMbox;
using testing::PermissionsBind;
using testing::SomeMessages;
using testing::TempDir;
using testing::WriteFile;

constexpr std::uint64_t kMax = 64u << 20;

std::vector<std::string> Names(const Listing& l) {
  std::vector<std::string> out;
  for (const Entry& e : l.entries) out.push_back(e.name);
  return out;
}

std::string Problems(const Listing& l) {
  std::string out;
  for (const Problem& p : l.problems) out += p.message + "\n";
  return out;
}

TEST(List, ReadsAnMboxMessageByMessage) {
  TempDir t;
  const std::vector<std::string> messages = SomeMessages();
  const std::string path = t.path() + "/inbox.mbox";
  WriteFile(path, MakeMbox(messages));
  const std::vector<std::string> paths = {path};
  const Listing l = List(paths);
  EXPECT_TRUE(l.problems.empty()) << Problems(l);
  ASSERT_EQ(l.entries.size(), messages.size());
  for (std::size_t i = 0; i < messages.size(); ++i) {
    EXPECT_EQ(l.entries[i].name, path + ":" + std::to_string(i + 1));
    auto bytes = Read(l.entries[i], kMax);
    ASSERT_TRUE(bytes) << bytes.error().ToString();
    EXPECT_EQ(*bytes, messages[i]);
  }
  // max_bytes cuts a message.
  auto head = Read(l.entries[1], 10);
  ASSERT_TRUE(head);
  EXPECT_EQ(*head, messages[1].substr(0, 10));
}

TEST(List, AnMboxOfOneMessageIsNamedByItsPath) {
  TempDir t;
  const std::string path = t.path() + "/00001.abc";
  WriteFile(path, MakeMbox({Fixture("fp-faq-a.eml")}));
  const std::vector<std::string> paths = {path};
  const Listing l = List(paths);
  EXPECT_EQ(Names(l), std::vector<std::string>{path});
  auto bytes = Read(l.entries[0], kMax);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, Fixture("fp-faq-a.eml"));
}

TEST(List, WalksDirectoriesMaildirsAndMboxesInNameOrder) {
  TempDir t;
  const std::string root = t.path() + "/archive";
  const std::string m = Fixture("encoding-7bit.eml");
  WriteFile(root + "/b/2.eml", m);
  WriteFile(root + "/a.eml", m);
  WriteFile(root + "/.git/config", "[core]\n");
  WriteFile(root + "/c.mbox", MakeMbox({m, m}));
  WriteFile(root + "/md/cur/1:2,S", m);
  std::filesystem::create_directories(root + "/md/new");
  WriteFile(root + "/notes.txt", "shopping list: milk\n");
  WriteFile(root + "/picture.png", std::string("\x89PNG\r\n\x1a\n\0\0", 10));
  WriteFile(root + "/empty", "");
  const std::vector<std::string> paths = {root + "/"};
  const Listing l = List(paths);
  EXPECT_EQ(Names(l),
            (std::vector<std::string>{root + "/a.eml", root + "/b/2.eml",
                                      root + "/c.mbox:1", root + "/c.mbox:2",
                                      root + "/md/cur/1:2,S"}));
  const std::string problems = Problems(l);
  EXPECT_NE(problems.find(root + "/picture.png: neither a message nor an mbox"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find(root + "/empty: empty file"), std::string::npos)
      << problems;
  EXPECT_NE(problems.find(root + "/notes.txt: neither"), std::string::npos)
      << problems;
  EXPECT_EQ(l.problems.size(), 3u) << problems;
}

TEST(List, ReportsADamagedMboxAndListsWhatItCanRead) {
  TempDir t;
  const std::vector<std::string> messages = SomeMessages();
  const std::string path = t.path() + "/damaged";
  std::string bytes =
      std::string("\0\1\2junk junk\n\n", 14) + MakeMbox(messages);
  bytes.resize(bytes.size() - 30);
  WriteFile(path, bytes);
  const std::vector<std::string> paths = {path};
  const Listing l = List(paths);
  ASSERT_EQ(l.entries.size(), messages.size());
  const std::string problems = Problems(l);
  EXPECT_NE(problems.find(path + ": damaged mbox: 14 bytes before the first"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find(path + ":4: damaged mbox: the last message is cut"),
            std::string::npos)
      << problems;
  auto first = Read(l.entries[0], kMax);
  ASSERT_TRUE(first);
  EXPECT_EQ(*first, messages[0]);
}

TEST(List, ReportsMissingAndUnreadablePathsAndGoesOn) {
  TempDir t;
  const std::string m = Fixture("encoding-7bit.eml");
  WriteFile(t.path() + "/ok.eml", m);
  WriteFile(t.path() + "/locked/x.eml", m);
  WriteFile(t.path() + "/secret.eml", m);
  ASSERT_EQ(::chmod((t.path() + "/locked").c_str(), 0), 0);
  ASSERT_EQ(::chmod((t.path() + "/secret.eml").c_str(), 0), 0);
  const std::vector<std::string> paths = {
      t.path() + "/missing", t.path() + "/ok.eml", t.path() + "/locked",
      t.path() + "/secret.eml"};
  // Root as well: the listing runs without the capabilities that let root
  // ignore permission bits.
  const PermissionsBind bind;
  if (!bind.ok())
    GTEST_SKIP() << "root here cannot drop CAP_DAC_OVERRIDE and "
                    "CAP_DAC_READ_SEARCH (capset failed), so mode 000 "
                    "does not deny it";
  const Listing l = List(paths);
  const std::string problems = Problems(l);
  EXPECT_NE(problems.find(t.path() + "/missing: No such file or directory"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find(t.path() + "/locked: Permission denied"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find(t.path() + "/secret.eml: Permission denied"),
            std::string::npos)
      << problems;
  ASSERT_EQ(l.entries.size(), 1u) << problems;
  EXPECT_EQ(l.entries[0].name, t.path() + "/ok.eml");
}

TEST(Read, FailsAsAValueWhenTheFileWentAway) {
  TempDir t;
  const std::string path = t.path() + "/gone.eml";
  WriteFile(path, Fixture("encoding-7bit.eml"));
  const std::vector<std::string> paths = {path};
  const Listing l = List(paths);
  ASSERT_EQ(l.entries.size(), 1u);
  std::filesystem::remove(path);
  auto bytes = Read(l.entries[0], kMax);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().code(), Error::Code::kNotFound);
  EXPECT_NE(bytes.error().message().find(path), std::string::npos);
}

TEST(List, ASymlinkLoopIsReadOnce) {
  TempDir t;
  WriteFile(t.path() + "/d/a.eml", Fixture("encoding-7bit.eml"));
  std::filesystem::create_directory_symlink(t.path() + "/d",
                                            t.path() + "/d/loop");
  const std::vector<std::string> paths = {t.path() + "/d"};
  const Listing l = List(paths);
  EXPECT_EQ(Names(l), std::vector<std::string>{t.path() + "/d/a.eml"});
}

}  // namespace
}  // namespace mw::archive
