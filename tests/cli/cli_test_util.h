// What the black-box tests of `mailwave` share: running the built program
// through the shell, the mail fixtures, scratch files.
#ifndef MW_TESTS_CLI_CLI_TEST_UTIL_H_
#define MW_TESTS_CLI_CLI_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <string>

namespace mw::cli_test {

struct Outcome {
  int status = -1;
  std::string out;  // what the command line printed (stderr too unless
                    // redirected by the caller)
};

inline std::string Binary() {
  return std::string(MW_BINARY_DIR) + "/bin/mailwave";
}

// Runs a shell command line (trusted test text) and returns its status and
// output. `cmd` names the program itself, e.g. Binary() + " extract x".
inline Outcome Shell(const std::string& cmd) {
  Outcome r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// Runs `mailwave ARGS 2>&1`.
inline Outcome Mailwave(const std::string& args) {
  return Shell(Binary() + " " + args + " 2>&1");
}

// Runs `mailwave ARGS` and keeps standard output only.
inline Outcome MailwaveOut(const std::string& args) {
  return Shell(Binary() + " " + args + " 2>/dev/null");
}

inline std::string Fixture(const std::string& name) {
  return std::string(MW_SOURCE_DIR) + "/tests/fixtures/mail/" + name;
}

inline std::string Dictionary() {
  return std::string(MW_BINARY_DIR) + "/share/mailwave/langid.dict";
}

// A fresh scratch directory for one test.
inline std::string ScratchDir(const std::string& name) {
  const std::string dir = testing::TempDir() + "/mw-cli-" + name;
  Shell("rm -rf '" + dir + "' && mkdir -p '" + dir + "'");
  return dir;
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline int Lines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace mw::cli_test

#endif  // MW_TESTS_CLI_CLI_TEST_UTIL_H_
