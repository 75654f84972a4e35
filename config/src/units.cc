#include "units.h"

#include <array>
#include <charconv>
#include <limits>

#include "mw/ascii.h"

namespace mw::config {
namespace {

struct Unit {
  std::string_view name;
  std::uint64_t factor;
};

// Binary units first: FormatSize uses them, largest first.
constexpr std::array<Unit, 9> kSizeUnits = {{
    {"TiB", 1ull << 40},
    {"GiB", kGiB},
    {"MiB", kMiB},
    {"KiB", kKiB},
    {"B", 1},
    {"TB", 1000ull * 1000 * 1000 * 1000},
    {"GB", 1000ull * 1000 * 1000},
    {"MB", 1000ull * 1000},
    {"kB", 1000},
}};

constexpr std::array<Unit, 5> kDurationUnits = {{
    {"d", 86400000},
    {"h", 3600000},
    {"m", 60000},
    {"s", 1000},
    {"ms", 1},
}};

// Reads the run of digits at the front of `s` into `value`; false when there is
// none or it overflows. Advances `s` past the digits.
bool TakeNumber(std::string_view& s, std::uint64_t& value) {
  size_t n = 0;
  while (n < s.size() && IsDigit(s[n])) ++n;
  if (n == 0) return false;
  const auto r = std::from_chars(s.data(), s.data() + n, value);
  if (r.ec != std::errc()) return false;
  s.remove_prefix(n);
  return true;
}

bool MulOverflows(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b;
}

}  // namespace

Result<std::uint64_t> ParseSize(std::string_view text) {
  const auto malformed = [&] {
    return Fail(
        Error::InvalidArgument("expected a size such as \"4MiB\" (units B, "
                               "KiB, MiB, GiB, TiB, kB, MB, GB, TB), got \"" +
                               std::string(text) + "\""));
  };
  std::string_view s = text;
  std::uint64_t n = 0;
  if (s.empty() || !IsDigit(s[0])) return malformed();
  if (!TakeNumber(s, n))
    return Fail(Error::InvalidArgument("size is too large"));
  if (!s.empty() && s[0] == '.') {
    return Fail(
        Error::InvalidArgument("a size must be a whole number of its unit "
                               "(\"1536KiB\", not \"1.5MiB\"), got \"" +
                               std::string(text) + "\""));
  }
  if (s.empty()) return n;  // plain bytes
  if (s[0] == ' ')
    s.remove_prefix(1);  // "4 MiB"; "4 " falls through to malformed
  for (const auto& u : kSizeUnits) {
    if (s != u.name) continue;
    if (MulOverflows(n, u.factor))
      return Fail(Error::InvalidArgument("size is too large"));
    return n * u.factor;
  }
  if (s == "KB" || s == "kiB" || s == "K" || s == "k") {
    return Fail(Error::InvalidArgument(
        "unknown size unit \"" + std::string(s) +
        "\": write KiB (1024 bytes) or kB (1000 bytes)"));
  }
  return malformed();
}

std::string FormatSize(std::uint64_t bytes, bool spaced) {
  const std::string_view sep = spaced ? " " : "";
  for (const auto& u : kSizeUnits) {
    if (u.factor == 1) break;
    if (bytes != 0 && bytes % u.factor == 0) {
      return std::to_string(bytes / u.factor) + std::string(sep) +
             std::string(u.name);
    }
  }
  return std::to_string(bytes) + std::string(sep) + "B";
}

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  const auto malformed = [&] {
    return Fail(Error::InvalidArgument(
        "expected a duration such as \"30s\" (units ms, s, m, h, d), got \"" +
        std::string(text) + "\""));
  };
  if (text == "0") return std::chrono::milliseconds(0);
  std::string_view s = text;
  std::uint64_t total = 0;
  if (s.empty()) return malformed();
  while (!s.empty()) {
    std::uint64_t n = 0;
    if (!IsDigit(s[0])) return malformed();
    if (!TakeNumber(s, n))
      return Fail(Error::InvalidArgument("duration is too long"));
    // The longest unit name that matches, so "ms" is not read as "m" followed
    // by "s".
    const Unit* unit = nullptr;
    for (const auto& u : kDurationUnits) {
      if (s.substr(0, u.name.size()) == u.name &&
          (unit == nullptr || u.name.size() > unit->name.size())) {
        unit = &u;
      }
    }
    if (unit == nullptr) return malformed();
    s.remove_prefix(unit->name.size());
    if (MulOverflows(n, unit->factor) ||
        n * unit->factor >
            static_cast<std::uint64_t>(
                std::numeric_limits<std::chrono::milliseconds::rep>::max()) -
                total) {
      return Fail(Error::InvalidArgument("duration is too long"));
    }
    total += n * unit->factor;
  }
  return std::chrono::milliseconds(
      static_cast<std::chrono::milliseconds::rep>(total));
}

std::string FormatDuration(std::chrono::milliseconds d) {
  auto left = static_cast<std::uint64_t>(d.count());
  if (left == 0) return "0s";
  std::string out;
  for (const auto& u : kDurationUnits) {
    if (left >= u.factor) {
      out += std::to_string(left / u.factor);
      out += u.name;
      left %= u.factor;
    }
  }
  return out;
}

std::string FormatReal(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string out(buf, r.ptr);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

}  // namespace mw::config
