// mailwave extract: the MIME-to-text stage on one message, exactly as the
// milter runs it.
#include <iostream>

#include "cli/command.h"
#include "cli/util.h"
#include "mime/message.h"
#include "pipeline/options.h"

namespace mw::cli {
namespace {

constexpr std::string_view kHelp =
    R"(Usage: mailwave [-c FILE] extract [--json] [--] MESSAGE
       mailwave extract --help

Reads one RFC 822 message (a file, or - for standard input) and prints the
text mailwave analyses: every text part at any depth, forwarded messages
included, decoded from its transfer encoding and charset to UTF-8, HTML turned
into the text a reader sees, then normalised (NFKC case folding, invisible
characters removed, whitespace collapsed inside lines). Lines are kept;
paragraphs are separated by one blank line. In multipart/alternative only one
alternative is used: the plain text unless it is a placeholder, else the HTML.

The input is read up to mime.max_bytes and no further (an endless stream is
cut there). The limits of the [mime] table apply (mime.max_bytes,
mime.max_text_bytes, mime.nesting_limit, mime.max_parts,
mime.html_nesting_limit, mime.header_size_limit). A message that hits one is
still extracted as far as the limit, with a warning. GMime's parser
diagnostics ("parser: duplicated header", "parser: truncated message", ...)
are always among the warnings here, whatever mime.parser_warnings says: this
is the command that shows what the analysis made of one message.

Options:
  --json      print one JSON object instead of the text:
                {"subject": "...",      decoded, normalised; null if none
                 "text": "...",         the normalised body text
                 "truncated": false,    true when a limit stopped extraction
                 "parts": [{"path": "1.2", "depth": 1,
                   "content_type": "text/html",
                   "declared_charset": "iso-8859-1",
                   "charset": "windows-1252",
                   "transfer_encoding": "quoted-printable", "size": 1234,
                   "filename": null, "sha1": null, "attachment": false,
                   "used_for_text": true}, ...],
                 "warnings": ["part 2: base64 content is truncated", ...]}
              "sha1" is the SHA-1 of an attachment's decoded content; a
              value that is absent (no charset, no file name) is null.
  --          ends the options: a MESSAGE named -x is given as -- -x
  -h, --help  this text

Exit status:
  0  the message was read (warnings do not change this)
  1  the input could not be read, or is empty; output could not be written
  2  usage or configuration error

Examples:
  mailwave extract message.eml
  mailwave extract --json - < message.eml | jq .parts
)";

std::string RenderJson(const mime::Message& msg, const mime::Text& text) {
  std::string out = "{\"subject\":" + JsonStringOrNull(text.subject);
  out += ",\"text\":";
  AppendJsonString(out, text.body);
  out += ",\"truncated\":";
  out += msg.truncated ? "true" : "false";
  out += ",\"parts\":[";
  for (std::size_t i = 0; i < msg.parts.size(); ++i) {
    const mime::Part& p = msg.parts[i];
    if (i > 0) out += ',';
    out += "{\"path\":" + JsonString(p.path);
    out += ",\"depth\":" + std::to_string(p.depth);
    out += ",\"content_type\":" + JsonString(p.content_type);
    out += ",\"declared_charset\":" + JsonStringOrNull(p.declared_charset);
    out += ",\"charset\":" + JsonStringOrNull(p.charset_used);
    out += ",\"transfer_encoding\":" + JsonStringOrNull(p.transfer_encoding);
    out += ",\"size\":" + std::to_string(p.size);
    out += ",\"filename\":" + JsonStringOrNull(p.filename);
    out += ",\"sha1\":" + JsonStringOrNull(p.sha1);
    out += std::string(",\"attachment\":") + (p.attachment ? "true" : "false");
    out += std::string(",\"used_for_text\":") +
           (p.used_for_text ? "true" : "false");
    out += '}';
  }
  out += "],\"warnings\":[";
  for (std::size_t i = 0; i < msg.warnings.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, msg.warnings[i]);
  }
  out += "]}";
  return out;
}

int Run(const std::vector<std::string>& args, const GlobalOptions& global) {
  bool json = false;
  bool only_files = false;
  std::string path;
  for (const std::string& a : args) {
    if (!only_files && a == "--") {
      only_files = true;
    } else if (!only_files && a == "--json") {
      json = true;
    } else if (!only_files && IsOption(a)) {
      return Complain("extract",
                      "unknown option " + a + " (try mailwave extract --help)",
                      kExitUsage);
    } else if (path.empty()) {
      path = a;
    } else {
      return Complain("extract",
                      "expects one message, got '" + path + "' and '" + a + "'",
                      kExitUsage);
    }
  }
  if (path.empty()) {
    return Complain("extract",
                    "no message given (a file, or - for standard input)",
                    kExitUsage);
  }
  auto settings = LoadSettings(global);
  if (!settings) return ConfigFailure(settings.error());
  auto bytes = ReadInput(path, settings->mime.max_bytes);
  if (!bytes) return Complain("extract", bytes.error().message(), kExitFailure);
  mime::Limits limits = pipeline::MimeLimits(settings->mime);
  limits.parser_warnings = true;
  auto msg = mime::Parse(*bytes, limits);
  if (!msg)
    return Complain("extract", path + ": " + msg.error().message(),
                    kExitFailure);
  const mime::Text text = mime::Normalise(*msg);
  if (json) {
    std::cout << RenderJson(*msg, text) << '\n';
  } else {
    std::cout << text.body;
    if (!text.body.empty()) std::cout << '\n';
  }
  return kExitOk;
}

const Registration kReg(
    {"extract", "print the normalised text of a message (MIME to text)", kHelp,
     &Run});

}  // namespace
}  // namespace mw::cli
