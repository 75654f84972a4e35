// The process steps of the daemon's start (milter/src/process.h): names
// resolved before anything is bound, socket modes, and the pid file's
// refusal of a live owner and takeover of a stale one.
#include "milter/src/process.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace mw::milter {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/mw-process-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const {
    return path_ + "/" + name;
  }

 private:
  std::string path_;
};

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

TEST(ParseMode, OctalPermissionBitsOnly) {
  EXPECT_EQ(*ParseMode("0660"), 0660u);
  EXPECT_EQ(*ParseMode("660"), 0660u);
  EXPECT_EQ(*ParseMode("0"), 0u);
  EXPECT_FALSE(ParseMode(""));
  EXPECT_FALSE(ParseMode("0668"));
  EXPECT_FALSE(ParseMode("rw-rw----"));
  EXPECT_FALSE(ParseMode("04755")) << "no setuid bit on a socket";
  EXPECT_EQ(
      ParseMode("4755").error().message(),
      "milter.socket_mode: at most 0777 (no setuid, setgid or sticky bit)");
}

TEST(UnixSocketPath, LibmilterAddresses) {
  EXPECT_EQ(UnixSocketPath("unix:/run/m.sock"), "/run/m.sock");
  EXPECT_EQ(UnixSocketPath("local:/run/m.sock"), "/run/m.sock");
  EXPECT_EQ(UnixSocketPath("/run/m.sock"), "/run/m.sock");
  EXPECT_EQ(UnixSocketPath("inet:9901@127.0.0.1"), "");
  EXPECT_EQ(UnixSocketPath("inet6:9901@[::1]"), "");
}

TEST(ResolveIdentity, NamesAreCheckedAtStart) {
  auto none = ResolveIdentity("", "");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());

  auto root = ResolveIdentity("root", "");
  ASSERT_TRUE(root) << root.error().message();
  ASSERT_TRUE(root->has_value());
  EXPECT_EQ((*root)->uid, 0u);
  EXPECT_EQ((*root)->gid, 0u);

  auto bad = ResolveIdentity("no-such-user-mw", "");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "milter.user: no such user no-such-user-mw");
  auto bad_group = ResolveIdentity("root", "no-such-group-mw");
  ASSERT_FALSE(bad_group);
  EXPECT_EQ(bad_group.error().message(),
            "milter.group: no such group no-such-group-mw");
  EXPECT_EQ(*ResolveGroup("root"), 0u);
}

TEST(SocketAccess, ModeIsSet) {
  TempDir dir;
  const std::string f = dir / "file";
  std::ofstream(f) << "x";
  ASSERT_TRUE(SetSocketAccess(f, std::nullopt, std::nullopt, 0640));
  struct stat st {};
  ASSERT_EQ(stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  auto missing =
      SetSocketAccess(dir / "absent", std::nullopt, std::nullopt, 0600);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("absent"), std::string::npos);
}

TEST(PidFile, WrittenAndRemovedByItsOwner) {
  TempDir dir;
  const std::string path = dir / "m.pid";
  {
    auto p = PidFile::Create(path);
    ASSERT_TRUE(p) << p.error().message();
    EXPECT_EQ(Read(path), std::to_string(getpid()));
    // Our own pid is not "another daemon".
    EXPECT_TRUE(CheckNotRunning(path));
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(PidFile, ALiveOwnerIsRefusedAStaleOneReplaced) {
  TempDir dir;
  const std::string path = dir / "m.pid";
  // A live process other than us: a child that waits.
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  std::ofstream(path) << child << "\n";
  auto refused = PidFile::Create(path);
  ASSERT_FALSE(refused);
  EXPECT_EQ(
      refused.error().message(),
      path + ": mailwave-milter " + std::to_string(child) + " is running");
  EXPECT_FALSE(CheckNotRunning(path));

  // Exited but not reaped (a zombie) counts as gone, and so does reaped.
  kill(child, SIGKILL);
  for (int i = 0; i < 200; ++i) {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string line;
    std::getline(stat, line);
    if (line.find(") Z") != std::string::npos) break;
    usleep(10000);
  }
  EXPECT_TRUE(CheckNotRunning(path)) << "a zombie holds no pid file";
  waitpid(child, nullptr, 0);
  auto taken = PidFile::Create(path);
  ASSERT_TRUE(taken) << taken.error().message();
  EXPECT_EQ(Read(path), std::to_string(getpid()));
}

TEST(PidFile, NotRemovedWhenAnotherProcessRewroteIt) {
  TempDir dir;
  const std::string path = dir / "m.pid";
  {
    auto p = PidFile::Create(path);
    ASSERT_TRUE(p);
    std::ofstream(path) << "1\n";
  }
  EXPECT_TRUE(fs::exists(path));
}

}  // namespace
}  // namespace mw::milter
