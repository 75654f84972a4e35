#include "cli/util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <sstream>

#include "mw/utf8.h"
#include "pipeline/analysis.h"
#include "pipeline/options.h"

namespace mw::cli {

Result<std::string> ReadInput(const std::string& path,
                              std::uint64_t max_bytes) {
  // One read loop for files and standard input: never more than max_bytes
  // (an endless stream is cut, not read forever), and a directory or an
  // unreadable file is one error naming it.
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? "standard input" : path;
  const int fd = is_stdin ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Fail(Error::Io(path + ": " + std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    if (!is_stdin) ::close(fd);
    return Fail(Error::Io(name + ": is a directory"));
  }
  std::string data;
  if (S_ISREG(st.st_mode)) {
    data.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(
        static_cast<std::uint64_t>(st.st_size), max_bytes)));
  }
  char buf[1 << 16];
  int err = 0;
  while (data.size() < max_bytes) {
    const std::size_t want = static_cast<std::size_t>(
        std::min<std::uint64_t>(sizeof buf, max_bytes - data.size()));
    const ssize_t n = ::read(fd, buf, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  if (!is_stdin) ::close(fd);
  if (err != 0) return Fail(Error::Io(name + ": " + std::strerror(err)));
  return data;
}

Result<std::string> ReadInput(const std::string& path) {
  return ReadInput(path, std::numeric_limits<std::uint64_t>::max());
}

Result<mime::Text> ReadText(const std::string& path, bool plain_text,
                            const config::Settings& settings) {
  auto bytes = ReadInput(path, settings.mime.max_bytes);
  if (!bytes) return Fail(bytes.error());
  auto text =
      pipeline::ToText(*bytes, plain_text, pipeline::MimeLimits(settings.mime));
  if (!text) {
    return Fail(
        Error(text.error().code(), path + ": " + text.error().message()));
  }
  return std::move(*text);
}

Result<config::Settings> LoadSettings(const GlobalOptions& global) {
  return config::Load(global.config_path);
}

int ConfigFailure(const Error& error) {
  return Complain("", error.message(), kExitUsage);
}

bool IsOption(std::string_view arg) { return arg.size() > 1 && arg[0] == '-'; }

namespace {

// std::cout's buffer: writes to descriptor 1 and keeps the errno of the first
// failed write, which stdio forgets, so that the one line says why ("Broken
// pipe", "No space left on device"). After a failure it discards the rest.
class StdoutBuffer : public std::streambuf {
 public:
  StdoutBuffer() { setp(buffer_, buffer_ + sizeof buffer_); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!Drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return Drain() ? 0 : -1; }

 private:
  bool Drain() {
    const char* p = pbase();
    const char* const end = pptr();
    while (error_ == 0 && p < end) {
      const ssize_t n = ::write(1, p, static_cast<std::size_t>(end - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        break;
      }
      p += n;
    }
    setp(buffer_, buffer_ + sizeof buffer_);
    return error_ == 0;
  }

  char buffer_[1 << 16];
  int error_ = 0;
};

// Never destroyed: std::cout may be flushed after static destructors ran.
StdoutBuffer* const kStdout = new StdoutBuffer;

}  // namespace

void InstallStdout() { std::cout.rdbuf(kStdout); }

bool OutputFailed() {
  std::cout.flush();
  return !std::cout || kStdout->error() != 0;
}

int OutputStatus(std::string_view command) {
  if (!OutputFailed()) return kExitOk;
  const int err = kStdout->error();
  return Complain(command,
                  std::string("standard output: ") +
                      (err != 0 ? std::strerror(err) : "write error"),
                  kExitFailure);
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

std::string JsonStringOrNull(std::string_view s) {
  return s.empty() ? std::string("null") : JsonString(s);
}

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string out(buf, r.ptr);
  if (out.find_first_of(".e") == std::string::npos) out += ".0";
  return out;
}

int Complain(std::string_view command, std::string_view message, int status) {
  std::cerr << "mailwave";
  if (!command.empty()) std::cerr << ' ' << command;
  std::cerr << ": " << message << '\n';
  return status;
}

bool IsHelp(std::string_view arg) { return arg == "-h" || arg == "--help"; }

}  // namespace mw::cli
