#include "mw/roff.h"

#include <cstdio>

#include "mw/utf8.h"

namespace mw::roff {
namespace {

// Escapes every line of `text`, newline-separated lines joined by spaces.
std::string JoinLines(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty()) {
      if (!out.empty()) out += ' ';
      out += line;
    }
    start = end + 1;
  }
  return Escape(out);
}

}  // namespace

std::string Escape(std::string_view line) {
  std::string out;
  out.reserve(line.size() + 8);
  if (!line.empty() && (line.front() == '.' || line.front() == '\''))
    out += "\\&";
  for (std::size_t i = 0; i < line.size();) {
    const char c = line[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // groff reads bytes as Latin-1 unless preconv runs first; a named
      // code point reads the same either way.
      std::size_t n = 1;
      const char32_t cp = DecodeUtf8(line, i, &n);
      char buf[16];
      std::snprintf(buf, sizeof buf, "\\[u%04X]",
                    static_cast<unsigned>(cp));
      out += buf;
      i += n;
      continue;
    }
    switch (c) {
      case '\\':
        out += "\\e";
        break;
      case '-':
        out += "\\-";
        break;
      default:
        out += c;
    }
    ++i;
  }
  return out;
}

std::string Title(std::string_view name, std::string_view section,
                  std::string_view date, std::string_view source,
                  std::string_view manual) {
  auto quoted = [](std::string_view s) { return "\"" + Escape(s) + "\""; };
  return ".TH " + quoted(name) + " " + quoted(section) + " " + quoted(date) +
         " " + quoted(source) + " " + quoted(manual) + "\n";
}

std::string Section(std::string_view title) {
  return ".SH \"" + Escape(title) + "\"\n";
}

std::string Subsection(std::string_view title) {
  return ".SS \"" + Escape(title) + "\"\n";
}

std::string Preformatted(std::string_view text) {
  std::string out = ".nf\n.nh\n";
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    out += line.empty() ? std::string(".sp") : Escape(line);
    out += '\n';
    start = end + 1;
  }
  out += ".hy\n.fi\n";
  return out;
}

std::string Tagged(std::string_view tag, std::string_view text) {
  // \fB...\fR rather than .B: macro arguments would eat the quotes of a
  // string default ("sqlite").
  return ".TP\n\\fB" + Escape(tag) + "\\fR\n" + JoinLines(text) + "\n";
}

std::string Paragraph(std::string_view text) {
  return ".PP\n" + JoinLines(text) + "\n";
}

}  // namespace mw::roff
