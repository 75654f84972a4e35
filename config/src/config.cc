// Parsing, loading and rendering of mailwave.toml, driven by the tables in
// params_*.cc.
#include "config/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <vector>

#include "mw/roff.h"
#include "params.h"
#include "units.h"

namespace mw::config {
namespace {

// ---------------------------------------------------------------- reading
// values

std::string_view TypeName(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// A bound as users write it: "1 KiB", "10000", "0.5", "30s".
std::string FormatBound(Kind kind, double v) {
  switch (kind) {
    case Kind::kSize:
      return FormatSize(static_cast<std::uint64_t>(v), /*spaced=*/true);
    case Kind::kDuration:
      return FormatDuration(
          std::chrono::milliseconds(static_cast<std::int64_t>(v)));
    case Kind::kReal: {
      std::string s = FormatReal(v);
      if (s.size() > 2 && s.ends_with(".0")) s.resize(s.size() - 2);
      return s;
    }
    default:
      return std::to_string(static_cast<std::int64_t>(v));
  }
}

std::string RangeReason(const Param& p) {
  return "must be between " + FormatBound(p.kind, p.min) + " and " +
         FormatBound(p.kind, p.max);
}

// Integers are compared in their own type so that values beyond 2^53 are not
// rounded into range; every bound is exact as a double and fits int64.
bool IntInRange(const Param& p, std::int64_t v) {
  return v >= static_cast<std::int64_t>(p.min) &&
         v <= static_cast<std::int64_t>(p.max);
}
bool UintInRange(const Param& p, std::uint64_t v) {
  return v >= static_cast<std::uint64_t>(p.min) &&
         v <= static_cast<std::uint64_t>(p.max);
}

// Stores `node` into the field of `p`; returns the reason when it does not fit.
std::optional<std::string> Assign(const Param& p, const toml::node& node,
                                  Settings& s) {
  const auto wrong_type = [&](std::string_view expected) {
    return "expected " + std::string(expected) + ", got " +
           std::string(TypeName(node));
  };
  switch (p.kind) {
    case Kind::kSize: {
      std::uint64_t bytes = 0;
      if (const auto* i = node.as_integer()) {
        if (i->get() < 0) return RangeReason(p);
        bytes = static_cast<std::uint64_t>(i->get());
      } else if (const auto* str = node.as_string()) {
        auto r = ParseSize(str->get());
        if (!r) return r.error().message();
        bytes = *r;
      } else {
        return wrong_type(
            "a size (bytes as an integer, or a string such as \"4MiB\")");
      }
      if (!UintInRange(p, bytes)) return RangeReason(p);
      std::get<std::uint64_t& (*)(Settings&)>(p.field)(s) = bytes;
      return std::nullopt;
    }
    case Kind::kCount: {
      const auto* i = node.as_integer();
      if (i == nullptr) return wrong_type("an integer");
      if (!IntInRange(p, i->get())) return RangeReason(p);
      std::get<std::uint32_t& (*)(Settings&)>(p.field)(s) =
          static_cast<std::uint32_t>(i->get());
      return std::nullopt;
    }
    case Kind::kReal: {
      double v = 0;
      if (const auto* f = node.as_floating_point()) {
        v = f->get();
      } else if (const auto* i = node.as_integer()) {
        v = static_cast<double>(i->get());
      } else {
        return wrong_type("a number");
      }
      // Written so that NaN fails too.
      if (!(v >= p.min && v <= p.max)) return RangeReason(p);
      std::get<double& (*)(Settings&)>(p.field)(s) = v;
      return std::nullopt;
    }
    case Kind::kBool: {
      const auto* b = node.as_boolean();
      if (b == nullptr) return wrong_type("true or false");
      std::get<bool& (*)(Settings&)>(p.field)(s) = b->get();
      return std::nullopt;
    }
    case Kind::kString: {
      const auto* str = node.as_string();
      if (str == nullptr) return wrong_type("a string");
      if (!p.choices.empty() && std::find(p.choices.begin(), p.choices.end(),
                                          str->get()) == p.choices.end()) {
        std::string reason = "must be one of";
        for (std::size_t i = 0; i < p.choices.size(); ++i) {
          reason += i == 0 ? " \"" : ", \"";
          reason += p.choices[i];
          reason += "\"";
        }
        return reason;
      }
      std::get<std::string& (*)(Settings&)>(p.field)(s) = str->get();
      return std::nullopt;
    }
    case Kind::kList: {
      const auto* arr = node.as_array();
      if (arr == nullptr) return wrong_type("an array of strings");
      std::vector<std::string> values;
      for (const toml::node& item : *arr) {
        const auto* str = item.as_string();
        if (str == nullptr)
          return "expected an array of strings, got " +
                 std::string(TypeName(item)) + " in it";
        values.push_back(str->get());
      }
      std::get<std::vector<std::string>& (*)(Settings&)>(p.field)(s) =
          std::move(values);
      return std::nullopt;
    }
    case Kind::kDuration: {
      const auto* str = node.as_string();
      // A bare number is refused rather than given a default unit: "timeout =
      // 30" could mean seconds or milliseconds, and guessing wrong is a silent
      // factor of 1000.
      if (str == nullptr)
        return wrong_type("a duration string such as \"30s\"");
      auto r = ParseDuration(str->get());
      if (!r) return r.error().message();
      const auto ms = static_cast<std::uint64_t>(r->count());
      if (!UintInRange(p, ms)) return RangeReason(p);
      std::get<std::chrono::milliseconds& (*)(Settings&)>(p.field)(s) = *r;
      return std::nullopt;
    }
  }
  return "unsupported kind";  // not reached: every Kind is handled above
}

// ---------------------------------------------------------------- suggestions

// Optimal string alignment distance: Levenshtein plus adjacent transpositions,
// the typos people make in key names ("max_prats").
size_t EditDistance(std::string_view a, std::string_view b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

// How far a name may be from a known one and still be suggested: two edits,
// more for long names, so "k3" suggests "k1" but "size" does not suggest
// "max_bytes".
size_t Tolerance(std::string_view known) {
  return std::max<size_t>(2, known.size() / 4);
}

// " (did you mean mime.max_parts?)" or "". `table` is empty for a key at the
// top level. A key that exists in another table costs one edit, so "[langid]
// max_bytes" suggests mime.max_bytes.
std::string SuggestKey(std::span<const Table> tables, std::string_view table,
                       std::string_view key) {
  size_t best = SIZE_MAX;
  std::string best_name;
  for (const auto& t : tables) {
    for (const auto& p : t.params) {
      size_t d = EditDistance(key, p.key);
      if (t.name != table) ++d;
      if (d <= Tolerance(p.key) && d < best) {
        best = d;
        best_name = std::string(t.name) + "." + std::string(p.key);
      }
    }
  }
  return best_name.empty() ? "" : " (did you mean " + best_name + "?)";
}

std::string SuggestTable(std::span<const Table> tables, std::string_view name) {
  size_t best = SIZE_MAX;
  std::string_view best_name;
  for (const auto& t : tables) {
    const size_t d = EditDistance(name, t.name);
    if (d <= Tolerance(t.name) && d < best) {
      best = d;
      best_name = t.name;
    }
  }
  return best_name.empty()
             ? ""
             : " (did you mean [" + std::string(best_name) + "]?)";
}

// ---------------------------------------------------------------- rendering

enum class Style { kDefaults, kExample, kChanged };

// A TOML basic string. Control characters are escaped; other UTF-8 passes
// through (TOML strings are UTF-8, and every string we hold came from a TOML
// file or a default).
std::string QuoteString(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(ch);
        }
    }
  }
  return out + "\"";
}

std::string FormatValue(const Param& p, Settings& s) {
  return std::visit(
      [&](auto get) -> std::string {
        const auto& v = get(s);
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, std::uint64_t>) {
          return "\"" + FormatSize(v) + "\"";
        } else if constexpr (std::is_same_v<V, std::uint32_t>) {
          return std::to_string(v);
        } else if constexpr (std::is_same_v<V, double>) {
          return FormatReal(v);
        } else if constexpr (std::is_same_v<V, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<V, std::string>) {
          return QuoteString(v);
        } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
          std::string out = "[";
          for (std::size_t i = 0; i < v.size(); ++i) {
            if (i > 0) out += ", ";
            out += QuoteString(v[i]);
          }
          return out + "]";
        } else {
          return "\"" + FormatDuration(v) + "\"";
        }
      },
      p.field);
}

// "size, 1 KiB to 1 GiB", "boolean".
std::string Describe(const Param& p) {
  std::string_view kind;
  switch (p.kind) {
    case Kind::kSize:
      kind = "size";
      break;
    case Kind::kCount:
      kind = "integer";
      break;
    case Kind::kReal:
      kind = "number";
      break;
    case Kind::kBool:
      return "true or false";
    case Kind::kString: {
      if (p.choices.empty()) return "string";
      std::string out;
      for (std::string_view c : p.choices) {
        if (!out.empty()) out += " | ";
        out += "\"" + std::string(c) + "\"";
      }
      return out;
    }
    case Kind::kList:
      return "array of strings";
    case Kind::kDuration:
      kind = "duration";
      break;
  }
  return std::string(kind) + ", " + FormatBound(p.kind, p.min) + " to " +
         FormatBound(p.kind, p.max);
}

constexpr std::string_view kUnitsNote =
    "# Sizes are bytes, as an integer or as a string with a unit: \"512B\",\n"
    "# \"20KiB\", \"4MiB\", \"1GiB\" (binary) or \"20kB\", \"4MB\" (decimal).\n"
    "# Durations are strings: \"500ms\", \"30s\", \"5m\", \"1h\", \"1m30s\".\n";

constexpr std::string_view kDefaultsHeader =
    "# mailwave: every configuration parameter with its built-in default, its\n"
    "# meaning and its bounds (`mailwave config --defaults`, like\n"
    "# `postconf -d`).\n"
    "#\n";

constexpr std::string_view kExampleHeader =
    "# mailwave.toml: configuration of the mailwave mail filter.\n"
    "#\n"
    "# The programs read /etc/mailwave/mailwave.toml, or the file given with\n"
    "# -c; without either they use the built-in defaults. Every parameter is\n"
    "# listed below, commented out, with its default, its meaning and its\n"
    "# bounds. To change one, uncomment its line and edit the value. Keep "
    "only\n"
    "# the lines you change (`mailwave config --changed` lists them), so that\n"
    "# better defaults in later versions reach you; `mailwave config --check`\n"
    "# validates the file. Unknown keys and out-of-range values are errors.\n"
    "#\n";

constexpr std::string_view kExampleFooter =
    "\n"
    "# This file is generated by `mailwave config --example`; a test checks\n"
    "# that it is current.\n";

// `text` as "# " comment lines of at most 80 columns, broken at spaces.
std::string CommentLines(std::string_view text) {
  constexpr size_t kWidth = 78;  // after "# "
  std::string out;
  while (text.size() > kWidth) {
    size_t cut = text.rfind(' ', kWidth);
    if (cut == std::string_view::npos || cut == 0) cut = text.find(' ');
    if (cut == std::string_view::npos) break;
    out += "# " + std::string(text.substr(0, cut)) + "\n";
    text.remove_prefix(cut + 1);
  }
  return out + "# " + std::string(text) + "\n";
}

std::string Render(std::span<const Table> tables, const Settings& settings,
                   Style style) {
  Settings value = settings;  // the accessors take a mutable Settings
  Settings defaults;
  std::string out;
  if (style == Style::kDefaults)
    out += std::string(kDefaultsHeader) + std::string(kUnitsNote);
  if (style == Style::kExample)
    out += std::string(kExampleHeader) + std::string(kUnitsNote);
  for (const auto& t : tables) {
    std::string body;
    for (const auto& p : t.params) {
      const std::string v = FormatValue(p, value);
      if (style == Style::kChanged) {
        if (v != FormatValue(p, defaults))
          body += std::string(p.key) + " = " + v + "\n";
        continue;
      }
      body += "\n" + CommentLines(p.meaning) + "# " + Describe(p) + "\n";
      if (style == Style::kExample) body += "# ";
      body += std::string(p.key) + " = " + v + "\n";
    }
    if (body.empty()) continue;
    if (!out.empty()) out += "\n";
    out += "[" + std::string(t.name) + "]\n";
    if (style != Style::kChanged) out += CommentLines(t.meaning);
    out += body;
  }
  if (style == Style::kExample) out += kExampleFooter;
  return out;
}

}  // namespace

// ---------------------------------------------------------------- parsing

Result<Settings> ParseWith(std::span<const Table> tables, std::string_view text,
                           std::string_view source_name, Settings base) {
  const std::string source(source_name);
  toml::table root;
#if TOML_EXCEPTIONS
  try {
    root = toml::parse(text, source_name);
  } catch (const toml::parse_error& e) {
    return Fail(Error::InvalidArgument(source + ":" +
                                       std::to_string(e.source().begin.line) +
                                       ": " + std::string(e.description())));
  }
#else
  auto parsed = toml::parse(text, source_name);
  if (!parsed) {
    const auto& e = parsed.error();
    return Fail(Error::InvalidArgument(source + ":" +
                                       std::to_string(e.source().begin.line) +
                                       ": " + std::string(e.description())));
  }
  root = std::move(parsed).table();
#endif

  // Every problem is collected and the first in file order reported: toml++
  // iterates keys in sorted order, and a user fixing a file works from the top.
  struct Problem {
    toml::source_index line;
    std::string message;
  };
  std::vector<Problem> problems;
  const auto complain = [&](const toml::source_region& where,
                            std::string message) {
    problems.push_back({where.begin.line, std::move(message)});
  };

  for (const auto& [table_key, table_node] : root) {
    const std::string_view table_name = table_key.str();
    const auto t =
        std::find_if(tables.begin(), tables.end(),
                     [&](const Table& x) { return x.name == table_name; });
    if (t == tables.end()) {
      if (table_node.is_table()) {
        complain(table_key.source(), std::string(table_name) +
                                         ": unknown table" +
                                         SuggestTable(tables, table_name));
      } else {
        complain(table_key.source(),
                 std::string(table_name) +
                     ": unknown key; keys belong in a table such as [" +
                     std::string(tables.empty() ? "" : tables[0].name) + "]" +
                     SuggestKey(tables, "", table_name));
      }
      continue;
    }
    const auto* table = table_node.as_table();
    if (table == nullptr) {
      complain(table_node.source(), std::string(table_name) +
                                        ": expected a table [" +
                                        std::string(table_name) + "], got " +
                                        std::string(TypeName(table_node)));
      continue;
    }
    for (const auto& [key, node] : *table) {
      const std::string name =
          std::string(table_name) + "." + std::string(key.str());
      const auto p =
          std::find_if(t->params.begin(), t->params.end(),
                       [&](const Param& x) { return x.key == key.str(); });
      if (p == t->params.end()) {
        complain(key.source(), name + ": unknown key" +
                                   SuggestKey(tables, table_name, key.str()));
        continue;
      }
      if (auto reason = Assign(*p, node, base))
        complain(node.source(), name + ": " + *reason);
    }
  }
  // Settings that bound each other. Reported at the line of the first of the
  // two keys the file sets (the defaults agree with each other).
  if (problems.empty() && base.store.commit_delay.count() > 0 &&
      4 * base.store.commit_delay > base.store.busy_timeout) {
    toml::source_region where{};
    for (const char* key : {"commit_delay", "busy_timeout"}) {
      if (const toml::node* n =
              root.at_path(std::string("store.") + key).node();
          n != nullptr && (where.begin.line == 0 ||
                           n->source().begin.line < where.begin.line)) {
        where = n->source();
      }
    }
    complain(
        where,
        "store.commit_delay: must be at most a quarter of store.busy_timeout "
        "(another process's writer, such as `mailwave store allow`, "
        "waits that long for the lock a batch holds)");
  }
  if (problems.empty()) return base;
  const auto first = std::min_element(
      problems.begin(), problems.end(),
      [](const Problem& a, const Problem& b) { return a.line < b.line; });
  return Fail(Error::InvalidArgument(
      source + ":" + std::to_string(first->line) + ": " + first->message));
}

Result<Settings> ParseToml(std::string_view text,
                           std::string_view source_name) {
  return ParseWith(Tables(), text, source_name, Settings{});
}

Result<Settings> LoadFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Fail(Error::Io(path + ": is a directory, not a configuration file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (err == ENOENT)
      return Fail(Error::NotFound(path + ": " + std::strerror(err)));
    return Fail(Error::Io(path + ": " + std::strerror(err)));
  }
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (in.bad()) return Fail(Error::Io(path + ": read error"));
  return ParseToml(text, path);
}

Result<Settings> Load(const std::string& path,
                      const std::string& default_path) {
  if (!path.empty()) return LoadFile(path);
  std::error_code ec;
  const bool exists = std::filesystem::exists(default_path, ec);
  if (ec) return Fail(Error::Io(default_path + ": " + ec.message()));
  if (!exists) return Settings{};
  return LoadFile(default_path);
}

std::string RenderDefaults() {
  return Render(Tables(), Settings{}, Style::kDefaults);
}

std::string RenderExample() {
  return Render(Tables(), Settings{}, Style::kExample);
}

std::string RenderChanged(const Settings& settings) {
  return Render(Tables(), settings, Style::kChanged);
}

std::string RenderManPage(std::string_view version) {
  namespace r = mw::roff;
  std::string out =
      r::Title("MAILWAVE.TOML", "5", "", "mailwave " + std::string(version),
               "File Formats");
  out += r::Section("NAME");
  out += "mailwave.toml \\- configuration of the mailwave mail filter\n";
  out += r::Section("SYNOPSIS");
  out += r::Paragraph(kDefaultPath);
  out += r::Section("DESCRIPTION");
  out += r::Paragraph(
      "mailwave(8) and mailwave-milter(8) read one TOML file: the one given "
      "with -c, else " +
      std::string(kDefaultPath) +
      " when it exists, else nothing, and the built-in defaults apply. The "
      "file has one table per module and lists only the parameters it "
      "changes; keep only those, so that better defaults in later versions "
      "reach you. Unknown tables and keys, values of the wrong type and "
      "values out of bounds are errors (the programs name the file, line, "
      "key and reason); nothing is silently ignored.");
  // The units note of --defaults and the example file, without its "# ".
  std::string units;
  for (std::string_view rest = kUnitsNote; !rest.empty();) {
    const std::size_t eol = rest.find('\n');
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? "" : rest.substr(eol + 1);
    if (line.starts_with("# ")) line.remove_prefix(2);
    units += std::string(line) + " ";
  }
  out += r::Paragraph(units +
                      "Counts are integers, numbers integers or floats, "
                      "switches true or false.");
  out += r::Paragraph(
      "Each parameter below is shown with its built-in default, what it "
      "means and the values it takes; mailwave config --defaults prints "
      "the same list as TOML.");
  Settings defaults;
  for (const auto& t : Tables()) {
    out += r::Section("[" + std::string(t.name) + "]");
    out += r::Paragraph(t.meaning);
    for (const auto& p : t.params) {
      out += r::Tagged(std::string(p.key) + " = " + FormatValue(p, defaults),
                       std::string(p.meaning) + " (" + Describe(p) + ").");
    }
  }
  out += r::Section("FILES");
  out += r::Tagged(kDefaultPath,
                   "the configuration file the programs read "
                   "when no -c is given");
  out += r::Section("SEE ALSO");
  out += "mailwave(8), mailwave\\-milter(8), postconf(5)\n";
  return out;
}

}  // namespace mw::config
