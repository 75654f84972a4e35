#include "secret.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "tests/store/test_util.h"

namespace mw::store {
namespace {

TEST(Secret, CreatedPrivateThenReused) {
  testing::TempDir dir;
  const std::string path = dir.File("secret");
  auto first = LoadOrCreateSecret(path);
  ASSERT_TRUE(first.has_value()) << first.error().ToString();
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, static_cast<off_t>(kSecretBytes));
  auto second = LoadOrCreateSecret(path);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(first->Hash("sender", "a@b"), second->Hash("sender", "a@b"));
  // No temporary file is left beside it.
  int files = 0;
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator(dir.path())) {
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(Secret, WrongSizeIsAnError) {
  testing::TempDir dir;
  for (const std::string& content :
       {std::string(), std::string(31, 'x'), std::string(33, 'x')}) {
    const std::string path = dir.File("secret");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    auto secret = LoadOrCreateSecret(path);
    ASSERT_FALSE(secret.has_value());
    EXPECT_EQ(secret.error().code(), Error::Code::kCorrupt);
  }
}

TEST(Secret, UnusableDirectoryIsAnIoError) {
  auto secret = LoadOrCreateSecret("/nonexistent-dir/for/sure/secret");
  ASSERT_FALSE(secret.has_value());
  EXPECT_EQ(secret.error().code(), Error::Code::kIo);
}

TEST(Secret, HashDependsOnKeyTagAndValue) {
  std::array<std::uint8_t, kSecretBytes> k1{};
  std::array<std::uint8_t, kSecretBytes> k2{};
  k2[0] = 1;
  const Secret a(k1);
  const Secret b(k2);
  EXPECT_EQ(a.Hash("sender", "x@y"), a.Hash("sender", "x@y"));
  EXPECT_NE(a.Hash("sender", "x@y"), b.Hash("sender", "x@y"));
  EXPECT_NE(a.Hash("sender", "x@y"), a.Hash("message-id", "x@y"));
  EXPECT_NE(a.Hash("ab", "c"), a.Hash("a", "bc"));
}

TEST(Secret, HashHex) {
  EXPECT_EQ(HashHex(0), "0000000000000000");
  EXPECT_EQ(HashHex(-1), "ffffffffffffffff");
  EXPECT_EQ(HashHex(0x0123456789abcdefll), "0123456789abcdef");
}

}  // namespace
}  // namespace mw::store
