// Checks on the parameter tables themselves: what every later table must also
// satisfy.
#include "config/src/params.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace mw::config {
namespace {

TEST(Params, NamesAreUniqueAndLowerSnake) {
  std::set<std::string> tables, keys;
  for (const auto& t : Tables()) {
    EXPECT_TRUE(tables.insert(std::string(t.name)).second)
        << "table twice: " << t.name;
    EXPECT_FALSE(t.meaning.empty()) << t.name;
    EXPECT_FALSE(t.params.empty()) << t.name;
    for (const auto& p : t.params) {
      const std::string name = std::string(t.name) + "." + std::string(p.key);
      EXPECT_TRUE(keys.insert(name).second) << "key twice: " << name;
      EXPECT_EQ(
          p.key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"),
          std::string_view::npos)
          << name;
      EXPECT_FALSE(p.meaning.empty()) << name;
      EXPECT_EQ(p.meaning.find('\n'), std::string_view::npos) << name;
    }
  }
}

TEST(Params, FieldMatchesKindAndBoundsAreOrdered) {
  for (const auto& t : Tables()) {
    for (const auto& p : t.params)
      EXPECT_TRUE(Consistent(p)) << t.name << "." << p.key;
  }
}

// A default outside its own bounds would make `mailwave config --defaults`
// output a file that --check rejects.
TEST(Params, DefaultsAreWithinBounds) {
  Settings s;
  for (const auto& t : Tables()) {
    for (const auto& p : t.params) {
      const std::string name = std::string(t.name) + "." + std::string(p.key);
      double v = 0;
      switch (p.kind) {
        case Kind::kSize:
          v = static_cast<double>(
              std::get<std::uint64_t& (*)(Settings&)>(p.field)(s));
          break;
        case Kind::kCount:
          v = std::get<std::uint32_t& (*)(Settings&)>(p.field)(s);
          break;
        case Kind::kReal:
          v = std::get<double& (*)(Settings&)>(p.field)(s);
          break;
        case Kind::kDuration:
          v = static_cast<double>(
              std::get<std::chrono::milliseconds& (*)(Settings&)>(p.field)(s)
                  .count());
          break;
        case Kind::kBool:
        case Kind::kString:
        case Kind::kList:
          continue;
      }
      EXPECT_GE(v, p.min) << name;
      EXPECT_LE(v, p.max) << name;
    }
  }
}

TEST(Params, ConsistentCatchesAMismatch) {
  const Param bad{.key = "x",
                  .kind = Kind::kCount,
                  .min = 0,
                  .max = 1,
                  .meaning = "m",
                  .field = Member<&Settings::mime, &MimeSettings::max_bytes>};
  EXPECT_FALSE(Consistent(bad));
  const Param reversed{
      .key = "x",
      .kind = Kind::kCount,
      .min = 2,
      .max = 1,
      .meaning = "m",
      .field = Member<&Settings::mime, &MimeSettings::nesting_limit>};
  EXPECT_FALSE(Consistent(reversed));
}

}  // namespace
}  // namespace mw::config
