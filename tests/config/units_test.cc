#include "config/src/units.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>

namespace mw::config {
namespace {

using std::chrono::milliseconds;

TEST(ParseSize, BinaryAndDecimalUnits) {
  EXPECT_EQ(ParseSize("512B").value(), 512u);
  EXPECT_EQ(ParseSize("20KiB").value(), 20u * 1024);
  EXPECT_EQ(ParseSize("4MiB").value(), 4u << 20);
  EXPECT_EQ(ParseSize("1GiB").value(), 1u << 30);
  EXPECT_EQ(ParseSize("2TiB").value(), 2ull << 40);
  EXPECT_EQ(ParseSize("20kB").value(), 20000u);
  EXPECT_EQ(ParseSize("4MB").value(), 4000000u);
  EXPECT_EQ(ParseSize("3GB").value(), 3000000000u);
  EXPECT_EQ(ParseSize("1TB").value(), 1000000000000u);
}

TEST(ParseSize, PlainNumberAndSpace) {
  EXPECT_EQ(ParseSize("102400").value(), 102400u);
  EXPECT_EQ(ParseSize("0").value(), 0u);
  EXPECT_EQ(ParseSize("4 MiB").value(), 4u << 20);
}

TEST(ParseSize, Malformed) {
  for (const char* bad :
       {"", "MiB", "-1", "4 ", "4  MiB", "4mib", "4MiBs", " 4MiB", "0x10"}) {
    auto r = ParseSize(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().message().rfind("expected a size such as \"4MiB\"", 0),
              0u)
        << r.error().message();
  }
}

TEST(ParseSize, AmbiguousUnitNamesBothMeanings) {
  auto r = ParseSize("20KB");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(
      r.error().message(),
      "unknown size unit \"KB\": write KiB (1024 bytes) or kB (1000 bytes)");
}

TEST(ParseSize, FractionsAreRefused) {
  auto r = ParseSize("1.5MiB");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message(),
            "a size must be a whole number of its unit (\"1536KiB\", not "
            "\"1.5MiB\"), got "
            "\"1.5MiB\"");
}

TEST(ParseSize, Overflow) {
  EXPECT_EQ(ParseSize("18446744073709551615").value(), UINT64_MAX);
  EXPECT_EQ(ParseSize("18446744073709551616").error().message(),
            "size is too large");
  EXPECT_EQ(ParseSize("16777216TiB").error().message(), "size is too large");
  EXPECT_EQ(ParseSize("16777215TiB").value(), 16777215ull << 40);
}

TEST(FormatSize, LargestExactBinaryUnit) {
  EXPECT_EQ(FormatSize(32ull << 20), "32MiB");
  EXPECT_EQ(FormatSize(102400), "100KiB");
  EXPECT_EQ(FormatSize(1ull << 30), "1GiB");
  EXPECT_EQ(FormatSize(3ull << 40), "3TiB");
  EXPECT_EQ(FormatSize(12345), "12345B");
  EXPECT_EQ(FormatSize(0), "0B");
  EXPECT_EQ(FormatSize(1024, /*spaced=*/true), "1 KiB");
  EXPECT_EQ(FormatSize(7, /*spaced=*/true), "7 B");
}

TEST(FormatSize, RoundTrips) {
  for (std::uint64_t v : std::initializer_list<std::uint64_t>{
           0, 1, 1023, 1024, 1025, 1536, 20000, (1ull << 40) + 1024, UINT64_MAX,
           UINT64_MAX - 1023}) {
    EXPECT_EQ(ParseSize(FormatSize(v)).value(), v) << v;
    EXPECT_EQ(ParseSize(FormatSize(v, true)).value(), v) << v;
  }
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(ParseDuration("500ms").value(), milliseconds(500));
  EXPECT_EQ(ParseDuration("30s").value(), milliseconds(30000));
  EXPECT_EQ(ParseDuration("5m").value(), milliseconds(300000));
  EXPECT_EQ(ParseDuration("2h").value(), milliseconds(7200000));
  EXPECT_EQ(ParseDuration("1d").value(), milliseconds(86400000));
  EXPECT_EQ(ParseDuration("1m30s").value(), milliseconds(90000));
  EXPECT_EQ(ParseDuration("1s250ms").value(), milliseconds(1250));
  EXPECT_EQ(ParseDuration("0").value(), milliseconds(0));
  EXPECT_EQ(ParseDuration("0s").value(), milliseconds(0));
}

TEST(ParseDuration, Malformed) {
  for (const char* bad :
       {"", "30", "s", "30 s", "30S", "1.5s", "-1s", "30sec", "1m30", "5M"}) {
    auto r = ParseDuration(bad);
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_EQ(r.error().message(),
              std::string("expected a duration such as \"30s\" (units ms, "
                          "s, m, h, d), got \"") +
                  bad + "\"");
  }
}

TEST(ParseDuration, Overflow) {
  EXPECT_EQ(ParseDuration("9223372036854775807ms").value().count(), INT64_MAX);
  EXPECT_EQ(ParseDuration("9223372036854775808ms").error().message(),
            "duration is too long");
  EXPECT_EQ(ParseDuration("9223372036854775807ms1ms").error().message(),
            "duration is too long");
  EXPECT_EQ(ParseDuration("999999999999999d").error().message(),
            "duration is too long");
}

TEST(FormatDuration, RoundTrips) {
  EXPECT_EQ(FormatDuration(milliseconds(30000)), "30s");
  EXPECT_EQ(FormatDuration(milliseconds(90000)), "1m30s");
  EXPECT_EQ(FormatDuration(milliseconds(500)), "500ms");
  EXPECT_EQ(FormatDuration(milliseconds(0)), "0s");
  EXPECT_EQ(FormatDuration(milliseconds(86400000 + 1)), "1d1ms");
  for (std::int64_t v : std::initializer_list<std::int64_t>{
           0, 1, 999, 1000, 61001, 3600000, 90061001, INT64_MAX}) {
    EXPECT_EQ(ParseDuration(FormatDuration(milliseconds(v))).value(),
              milliseconds(v))
        << v;
  }
}

TEST(FormatReal, AlwaysReadsAsFloat) {
  EXPECT_EQ(FormatReal(2.0), "2.0");
  EXPECT_EQ(FormatReal(0.05), "0.05");
  EXPECT_EQ(FormatReal(0.6), "0.6");
  EXPECT_EQ(FormatReal(50), "50.0");
  EXPECT_EQ(FormatReal(1e20), "1e+20");
}

}  // namespace
}  // namespace mw::config
