// Helpers shared by the sender tests: fixture files.
#ifndef MW_TESTS_SENDER_TESTUTIL_H_
#define MW_TESTS_SENDER_TESTUTIL_H_

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

namespace mw::sender::testing {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// tests/fixtures/sender/NAME (see its README).
inline std::string Fixture(const std::string& name) {
  return ReadFile(std::string(MW_SOURCE_DIR) + "/tests/fixtures/sender/" +
                  name);
}

}  // namespace mw::sender::testing

#endif  // MW_TESTS_SENDER_TESTUTIL_H_
