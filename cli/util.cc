#include "cli/util.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "mw/utf8.h"

namespace mw::cli {

Result<std::string> ReadInput(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    if (std::cin.bad()) return Fail(Error::Io("-: cannot read standard input"));
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail(Error::Io(path + ": " + std::strerror(errno)));
  std::string data((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  if (in.bad()) return Fail(Error::Io(path + ": read error"));
  return data;
}

Result<config::Settings> LoadSettings(const GlobalOptions& global) {
  return config::Load(global.config_path);
}

mime::Limits MimeLimits(const config::MimeSettings& s) {
  mime::Limits l;
  l.max_bytes = s.max_bytes;
  l.max_text_bytes = s.max_text_bytes;
  l.header_size_limit = s.header_size_limit;
  l.nesting_limit = s.nesting_limit;
  l.max_parts = s.max_parts;
  l.html_nesting_limit = s.html_nesting_limit;
  return l;
}

void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t n = 0;
      if (DecodeUtf8(s, i, &n) == 0xFFFD && n == 1) {
        out += "\xEF\xBF\xBD";
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
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
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

std::string JsonString(std::string_view s) {
  std::string out;
  AppendJsonString(out, s);
  return out;
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

int Complain(std::string_view command, std::string_view message, int status) {
  std::cerr << "mailwave";
  if (!command.empty()) std::cerr << ' ' << command;
  std::cerr << ": " << message << '\n';
  return status;
}

bool IsHelp(std::string_view arg) { return arg == "-h" || arg == "--help"; }

}  // namespace mw::cli
