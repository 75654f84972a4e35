// Sizes, durations and reals as they are written in mailwave.toml and in
// messages.
//
// Sizes: a whole number of bytes with an optional unit, binary "B", "KiB",
// "MiB", "GiB", "TiB" or decimal "kB", "MB", "GB", "TB"; a space may separate
// number and unit ("4MiB", "4 MiB"). Durations: one or more number-unit pairs,
// units "ms", "s", "m", "h", "d" ("500ms", "30s", "1m30s"); "0" alone is zero.
// Units are case-sensitive, as "m" (minute) and "M" (mega) differ.
//
// Errors carry only the reason ("unknown unit \"KB\" ..."); the caller adds the
// place.
#ifndef MW_CONFIG_UNITS_H_
#define MW_CONFIG_UNITS_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "mw/result.h"

namespace mw::config {

inline constexpr std::uint64_t kKiB = 1ull << 10;
inline constexpr std::uint64_t kMiB = 1ull << 20;
inline constexpr std::uint64_t kGiB = 1ull << 30;

// Bytes, or an error when the text is malformed or the value does not fit 64
// bits.
Result<std::uint64_t> ParseSize(std::string_view text);

// The largest binary unit that divides `bytes` exactly: "32MiB", "100KiB",
// "12345B", "0B". ParseSize(FormatSize(x)) == x for every x. `spaced` puts a
// space before the unit ("1 KiB"), for messages.
std::string FormatSize(std::uint64_t bytes, bool spaced = false);

Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

// Largest units first, zero parts left out: "1m30s", "500ms", "0s". Round-trips
// like sizes. REQUIRES: d >= 0.
std::string FormatDuration(std::chrono::milliseconds d);

// Shortest text that reads back as `v`, always with a '.' or exponent so that
// TOML reads it as a float ("2.0", "0.05", "1e+20"). REQUIRES: v is finite.
std::string FormatReal(double v);

}  // namespace mw::config

#endif  // MW_CONFIG_UNITS_H_
