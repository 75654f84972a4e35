#include <gtest/gtest.h>

#include "mw/result.h"

namespace mw {
namespace {

Result<int> Half(int v) {
  if (v % 2 != 0)
    return Fail(Error::InvalidArgument(std::to_string(v) + " is odd"));
  return v / 2;
}

TEST(Error, CarriesCodeAndMessage) {
  const Error e = Error::Corrupt("langid.dict: bad checksum");
  EXPECT_EQ(e.code(), Error::Code::kCorrupt);
  EXPECT_EQ(e.message(), "langid.dict: bad checksum");
  EXPECT_EQ(e.ToString(), "corrupt: langid.dict: bad checksum");
}

TEST(Result, ValueOrError) {
  ASSERT_TRUE(Half(4).has_value());
  EXPECT_EQ(*Half(4), 2);
  const auto r = Half(3);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Error::Code::kInvalidArgument);
  EXPECT_EQ(r.error().message(), "3 is odd");
}

}  // namespace
}  // namespace mw
