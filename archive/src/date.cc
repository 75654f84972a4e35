#include "archive/date.h"

#include <array>
#include <cctype>
#include <vector>

#include "mw/ascii.h"

namespace mw::archive {
namespace {

char Lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

// Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (Howard
// Hinnant's days_from_civil).
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Splits a date into tokens: runs of letters, runs of digits, and the signs
// and colons between them; commas, spaces and comments separate.
std::vector<std::string_view> Tokens(std::string_view v) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < v.size()) {
    const char c = v[i];
    if (c == '(') break;  // a trailing comment: "(PDT)"
    if (std::isalpha(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < v.size() && std::isalpha(static_cast<unsigned char>(v[j])))
        ++j;
      out.push_back(v.substr(i, j - i));
      i = j;
    } else if (IsDigit(c)) {
      std::size_t j = i;
      while (j < v.size() && IsDigit(v[j])) ++j;
      out.push_back(v.substr(i, j - i));
      i = j;
    } else if (c == ':' || c == '+' || c == '-') {
      out.push_back(v.substr(i, 1));
      ++i;
    } else {
      ++i;
    }
  }
  return out;
}

int Number(std::string_view digits) {
  int n = 0;
  for (char c : digits.substr(0, 9)) n = n * 10 + (c - '0');
  return n;
}

int Month(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "jan", "feb", "mar", "apr", "may", "jun",
      "jul", "aug", "sep", "oct", "nov", "dec"};
  if (name.size() < 3) return 0;
  for (std::size_t i = 0; i < kMonths.size(); ++i) {
    if (EqualsIgnoreCase(name.substr(0, 3), kMonths[i]))
      return static_cast<int>(i) + 1;
  }
  return 0;
}

// Minutes east of UTC of an obsolete zone name; 0 for unknown ones (RFC 5322
// section 4.3 says to read those as -0000).
int ZoneMinutes(std::string_view name) {
  struct Zone {
    std::string_view name;
    int minutes;
  };
  static constexpr std::array<Zone, 8> kZones = {{{"EST", -300},
                                                  {"EDT", -240},
                                                  {"CST", -360},
                                                  {"CDT", -300},
                                                  {"MST", -420},
                                                  {"MDT", -360},
                                                  {"PST", -480},
                                                  {"PDT", -420}}};
  for (const Zone& z : kZones) {
    if (EqualsIgnoreCase(name, z.name)) return z.minutes;
  }
  return 0;
}

}  // namespace

std::optional<std::string> HeaderValue(std::string_view message,
                                       std::string_view name) {
  std::optional<std::string> value;
  std::size_t pos = 0;
  while (pos < message.size()) {
    std::size_t end = message.find('\n', pos);
    if (end == std::string_view::npos) end = message.size();
    std::string_view line = message.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the end of the header block
    const bool continuation = line[0] == ' ' || line[0] == '\t';
    if (value && !continuation) return value;
    if (value) {
      value->append(" ");
      value->append(line.substr(line.find_first_not_of(" \t")));
    } else if (!continuation && line.size() > name.size() &&
               line[name.size()] == ':' &&
               EqualsIgnoreCase(line.substr(0, name.size()), name)) {
      std::string_view v = line.substr(name.size() + 1);
      const std::size_t first = v.find_first_not_of(" \t");
      value = std::string(first == std::string_view::npos ? std::string_view()
                                                          : v.substr(first));
    }
    pos = end + 1;
  }
  return value;
}

std::optional<std::int64_t> ParseDate(std::string_view value) {
  const std::vector<std::string_view> t = Tokens(value);
  std::size_t i = 0;
  // An optional day name.
  if (i < t.size() && std::isalpha(static_cast<unsigned char>(t[i][0])) &&
      Month(t[i]) == 0) {
    ++i;
  }
  // "22 Aug 2002", or "Aug 22 2002" as some writers have it.
  int day = 0, month = 0, year = -1;
  if (i + 2 < t.size() && IsDigit(t[i][0]) && Month(t[i + 1]) &&
      IsDigit(t[i + 2][0])) {
    day = Number(t[i]);
    month = Month(t[i + 1]);
    year = Number(t[i + 2]);
    if (t[i + 2].size() <= 2) year += year >= 50 ? 1900 : 2000;
    if (t[i + 2].size() == 3) year += 1900;
    i += 3;
  } else if (i + 2 < t.size() && Month(t[i]) && IsDigit(t[i + 1][0]) &&
             IsDigit(t[i + 2][0]) && t[i + 2].size() == 4) {
    month = Month(t[i]);
    day = Number(t[i + 1]);
    year = Number(t[i + 2]);
    i += 3;
  } else {
    return std::nullopt;
  }
  // hh:mm[:ss]
  if (i + 2 >= t.size() || !IsDigit(t[i][0]) || t[i + 1] != ":" ||
      !IsDigit(t[i + 2][0])) {
    return std::nullopt;
  }
  const int hour = Number(t[i]);
  const int minute = Number(t[i + 2]);
  int second = 0;
  i += 3;
  if (i + 1 < t.size() && t[i] == ":" && IsDigit(t[i + 1][0])) {
    second = Number(t[i + 1]);
    i += 2;
  }
  if (day < 1 || day > 31 || year < 1900 || year > 9999 || hour > 23 ||
      minute > 59 || second > 60) {
    return std::nullopt;
  }
  int zone = 0;
  if (i + 1 < t.size() && (t[i] == "+" || t[i] == "-") &&
      t[i + 1].size() == 4 && IsDigit(t[i + 1][0])) {
    const int hhmm = Number(t[i + 1]);
    zone = (hhmm / 100) * 60 + hhmm % 100;
    if (t[i] == "-") zone = -zone;
  } else if (i < t.size() &&
             std::isalpha(static_cast<unsigned char>(t[i][0]))) {
    zone = ZoneMinutes(t[i]);
  }
  return DaysFromCivil(year, static_cast<unsigned>(month),
                       static_cast<unsigned>(day)) *
             86400 +
         hour * 3600 + minute * 60 + second - zone * 60;
}

std::optional<std::int64_t> MessageDate(std::string_view message) {
  const std::optional<std::string> v = HeaderValue(message, "Date");
  if (!v) return std::nullopt;
  return ParseDate(*v);
}

}  // namespace mw::archive
