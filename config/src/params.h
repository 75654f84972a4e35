// The parameter tables: every configuration key declared once, as Postfix
// declares each parameter once in mail_params.h and gives its bounds in a
// CONFIG_INT_TABLE.
//
// Each TOML table has its own file, config/src/params_<table>.cc, returning a
// `Table`. To add a key: add the field (with its default) to the settings
// struct in config/include/config/config.h and one `Param` entry to that
// table's file. To add a table: a new struct in config.h, a new
// params_<table>.cc, its declaration below and one line in Tables()
// (params.cc); nothing else changes. The parser, `mailwave config
// --defaults/--changed` and config/mailwave.toml all follow from these tables.
//
// The default of a key is not repeated here: it is the member initialiser in
// config.h, read through `field` from a default-constructed Settings, so it
// cannot disagree with what code that builds a Settings{} gets.
#ifndef MW_CONFIG_PARAMS_H_
#define MW_CONFIG_PARAMS_H_

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/config.h"

namespace mw::config {

enum class Kind {
  kSize,    // std::uint64_t bytes; TOML integer or string with a unit ("4MiB")
  kCount,   // std::uint32_t; TOML integer
  kReal,    // double; TOML float or integer
  kBool,    // bool; TOML boolean
  kString,  // std::string; TOML string
  kDuration,  // std::chrono::milliseconds; TOML string with units ("30s",
              // "500ms")
  kList,      // std::vector<std::string>; TOML array of strings
};

// Where a key's value lives in Settings. The alternative must match the kind
// (same order as Kind; Consistent() checks it).
using Field =
    std::variant<std::uint64_t& (*)(Settings&), std::uint32_t& (*)(Settings&),
                 double& (*)(Settings&), bool& (*)(Settings&),
                 std::string& (*)(Settings&),
                 std::chrono::milliseconds& (*)(Settings&),
                 std::vector<std::string>& (*)(Settings&)>;

// The accessor of one settings field, for Param::field:
//   .field = Member<&Settings::mime, &MimeSettings::max_bytes>
template <auto kTable, auto kMember>
auto& Member(Settings& s) {
  return (s.*kTable).*kMember;
}

struct Param {
  std::string_view key;  // lower_snake name inside its table
  Kind kind;
  // Inclusive bounds for size (bytes), count, real and duration (milliseconds);
  // ignored for bool and string. Doubles hold every bound exactly (all are
  // below 2^53).
  double min = 0;
  double max = 0;
  std::string_view
      meaning;  // one line, shown in --defaults and config/mailwave.toml
  Field field;
  // A string key's allowed values (empty: any string); the parser refuses
  // others with the file, line and key, and --defaults lists them.
  std::span<const std::string_view> choices = {};
};

struct Table {
  std::string_view name;     // the TOML table, "mime"
  std::string_view meaning;  // one line about the table
  std::span<const Param> params;
};

// One per TOML table, in params_<table>.cc.
Table MimeTable();
Table FingerprintTable();
Table LangidTable();
Table PipelineTable();
Table StoreTable();
Table WaveTable();
Table MilterTable();
Table MetricsTable();
Table GpuTable();

// Every table, in the order --defaults prints them.
std::span<const Table> Tables();

// ParseToml against `tables`, starting from `base` (ParseToml passes Tables()
// and Settings{}). Separate so that tests can exercise every kind with tables
// of their own.
Result<Settings> ParseWith(std::span<const Table> tables, std::string_view text,
                           std::string_view source_name, Settings base);

// True when `p.field` holds the alternative that `p.kind` requires and the
// bounds are ordered.
bool Consistent(const Param& p);

}  // namespace mw::config

#endif  // MW_CONFIG_PARAMS_H_
