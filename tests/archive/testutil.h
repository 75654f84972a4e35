// What the archive tests share: the mail fixtures, and Maildir folders and
// mbox files built from them in a temporary directory.
#ifndef MW_TESTS_ARCHIVE_TESTUTIL_H_
#define MW_TESTS_ARCHIVE_TESTUTIL_H_

#include <gtest/gtest.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace mw::archive::testing {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string Fixture(const std::string& name) {
  return ReadFile(std::string(MW_SOURCE_DIR) + "/tests/fixtures/mail/" + name);
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::filesystem::create_directories(
      std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Real messages from tests/fixtures/mail.
inline std::vector<std::string> SomeMessages() {
  return {Fixture("encoding-7bit.eml"), Fixture("fp-faq-a.eml"),
          Fixture("charset-utf-8.eml"), Fixture("fp-template-a.eml")};
}

// `messages` as an mbox: each behind a From_ line, lines starting with
// (>*)From quoted (mboxrd), an empty line after each.
inline std::string MakeMbox(const std::vector<std::string>& messages) {
  std::string out;
  for (const std::string& m : messages) {
    out += "From sender@example.org Thu Aug 22 14:44:07 2002\n";
    std::size_t pos = 0;
    while (pos < m.size()) {
      std::size_t end = m.find('\n', pos);
      end = end == std::string::npos ? m.size() : end + 1;
      const std::string line = m.substr(pos, end - pos);
      const std::size_t q = line.find_first_not_of('>');
      if (q != std::string::npos && line.compare(q, 5, "From ") == 0)
        out += ">";
      out += line;
      pos = end;
    }
    if (!m.empty() && m.back() != '\n') out += "\n";
    out += "\n";
  }
  return out;
}

// A directory under /tmp removed with everything in it at destruction.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/mw-archive-XXXXXX";
    const char* d = mkdtemp(tmpl);
    EXPECT_NE(d, nullptr);
    path_ = d ? d : "/tmp";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    for (auto& e : std::filesystem::recursive_directory_iterator(
             path_, std::filesystem::directory_options::skip_permission_denied,
             ec)) {
      std::filesystem::permissions(e.path(), std::filesystem::perms::owner_all,
                                   std::filesystem::perm_options::add, ec);
    }
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Makes permission bits bind this thread, root included, for its scope:
// CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH leave the effective set (they
// stay permitted, so the destructor puts them back). Capabilities are per
// thread and threads started inside the scope inherit the reduced set, so a
// listing run here meets "Permission denied" as an ordinary user would.
// capset(2) directly: the test needs two bits, not libcap.
class PermissionsBind {
 public:
  PermissionsBind() {
    if (::geteuid() != 0) {
      ok_ = true;  // an ordinary user is bound already
      return;
    }
    if (Get(saved_) != 0) return;
    __user_cap_data_struct reduced[2] = {saved_[0], saved_[1]};
    for (const int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH})
      reduced[cap / 32].effective &= ~(1u << (cap % 32));
    ok_ = Set(reduced) == 0;
    restore_ = ok_;
  }
  ~PermissionsBind() {
    if (restore_) {
      EXPECT_EQ(Set(saved_), 0) << "capabilities not restored";
    }
  }
  PermissionsBind(const PermissionsBind&) = delete;
  PermissionsBind& operator=(const PermissionsBind&) = delete;

  // False when this thread is root and could not give up the two
  // capabilities; permission bits do not bind it then.
  bool ok() const { return ok_; }

 private:
  static int Get(__user_cap_data_struct (&data)[2]) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    return static_cast<int>(::syscall(SYS_capget, &header, data));
  }
  static int Set(__user_cap_data_struct (&data)[2]) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    return static_cast<int>(::syscall(SYS_capset, &header, data));
  }

  __user_cap_data_struct saved_[2] = {};
  bool ok_ = false;
  bool restore_ = false;
};

}  // namespace mw::archive::testing

#endif  // MW_TESTS_ARCHIVE_TESTUTIL_H_
