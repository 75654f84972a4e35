// mailwave langid: language identification of messages or plain text, as the
// milter does it.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "cli/command.h"
#include "cli/util.h"
#include "pipeline/options.h"
#include "langid/langid.h"
#include "langid/model.h"
#include "mime/message.h"

namespace mw::cli {
namespace {

constexpr std::string_view kName = "langid";

constexpr std::string_view kHelp =
    R"(Usage: mailwave [-c FILE] langid [options] FILE...|-
       mailwave langid --help

Identifies the language of each FILE (- for standard input). A FILE whose name ends in .eml
(or any input with --eml) is an RFC 822 message: its subject and text go through the same
MIME parsing and normalisation as the milter. Anything else is plain UTF-8 text, normalised
the same way (NFKC case folding; C1 control characters read as windows-1252).

Scripts that identify a language alone decide it (Greek el, Georgian ka, Armenian hy,
Hangul ko, kana ja, Han without kana zh, Thai th, Hebrew he, ...). Words in the other
scripts are looked up in the two-tier dictionary (words in no dictionary are scored by
their character trigrams, langid.ngram_weight) and scored with the formula of
docs/langid.md. Scores are 0-100. Languages scoring at least langid.close_ratio (default
0.3) of the best's are close, and among them the one whose words lean to it most strongly
becomes the best. A text with fewer than langid.min_words words (default 5) is "und". The two best languages make a bilingual verdict ("en+es") when together they reach
langid.min_score (default 40), the second reaches langid.bilingual_min_score (default 5) and
either each falls short of min_score or, in a text of several lines, each is the best
language of lines holding langid.bilingual_min_lines (default 0.2) of the words. Otherwise
the best language wins when its score reaches min_score, else the verdict is "und".

The dictionary is [langid] dictionary from the configuration; when that is empty, the first
of <program dir>/../share/mailwave/langid.dict, /usr/local/share/mailwave/langid.dict and
/usr/share/mailwave/langid.dict.

Options:
  --json           one JSON object per text:
                     {"lang":"en","score":87.5,"second":"es","second_score":4.1,
                      "bilingual":false,"words":57,"scripts":{"Latin":57}}
                   "lang" is "und" when undetermined and "en+es" when bilingual; with
                   several FILEs (and no --lines) a "file" member comes first
  --lines          every input line is a separate text; the output has one line per input
                   line, in order (empty lines give "und")
  --min-words N    override langid.min_words for this run
  --min-score S    override langid.min_score for this run; --min-words 1 --min-score 0
                   forces a best guess, even for a single word
  --eml            read every input as an RFC 822 message
  --text           read every input as plain text, even *.eml
  --dict FILE      use this dictionary instead of the configured one
  -h, --help       this text

Output without --json: one line per text, tab-separated:
  [FILE<TAB>]LANG<TAB>SCORE<TAB>SECOND<TAB>SECOND_SCORE
with FILE only when several FILEs are given without --lines; SECOND is "-" when there is
none. Scores have one decimal.

Exit status:
  0  every input was read
  1  an input could not be read (the others are still processed), or no dictionary
  2  usage or configuration error

Examples:
  mailwave langid message.eml
  mailwave langid --json --lines subjects.txt
  echo "ceci n'est pas une pipe" | mailwave langid --min-words 1 -
)";

void AppendScore(std::string& out, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  out += buf;
}

std::string Render(const langid::Language& l, bool json,
                   const std::string* file) {
  std::string out;
  if (json) {
    out = "{";
    if (file) {
      out += "\"file\":";
      AppendJsonString(out, *file);
      out += ',';
    }
    out += "\"lang\":";
    AppendJsonString(out, l.code);
    out += ",\"score\":" + JsonNumber(std::round(l.score * 10) / 10);
    out += ",\"second\":";
    AppendJsonString(out, l.second);
    out +=
        ",\"second_score\":" + JsonNumber(std::round(l.second_score * 10) / 10);
    out += ",\"bilingual\":";
    out += l.bilingual ? "true" : "false";
    out += ",\"words\":" + std::to_string(l.words);
    out += ",\"scripts\":{";
    for (std::size_t i = 0; i < l.scripts.size(); ++i) {
      if (i) out += ',';
      AppendJsonString(out, l.scripts[i].first);
      out += ':' + std::to_string(l.scripts[i].second);
    }
    out += "}}";
    return out;
  }
  if (file) out = *file + '\t';
  out += l.code + '\t';
  AppendScore(out, l.score);
  out += '\t' + (l.second.empty() ? std::string("-") : l.second) + '\t';
  AppendScore(out, l.second_score);
  return out;
}

int Run(const std::vector<std::string>& args, const GlobalOptions& global) {
  bool json = false, lines = false, force_eml = false, force_text = false;
  std::string dict;
  std::optional<std::uint32_t> min_words;
  std::optional<double> min_score;
  std::vector<std::string> files;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      json = true;
    } else if (a == "--lines") {
      lines = true;
    } else if (a == "--eml") {
      force_eml = true;
    } else if (a == "--text") {
      force_text = true;
    } else if (a == "--dict") {
      if (i + 1 >= args.size())
        return Complain(kName, "--dict needs a file", kExitUsage);
      dict = args[++i];
    } else if (a == "--min-words") {
      std::uint32_t n = 0;
      const std::string v = i + 1 < args.size() ? args[++i] : "";
      const auto r = std::from_chars(v.data(), v.data() + v.size(), n);
      if (v.empty() || r.ec != std::errc() || r.ptr != v.data() + v.size()) {
        return Complain(kName, "--min-words needs a non-negative integer",
                        kExitUsage);
      }
      min_words = n;
    } else if (a == "--min-score") {
      const std::string v = i + 1 < args.size() ? args[++i] : "";
      try {
        std::size_t used = 0;
        const double s = std::stod(v, &used);
        if (used != v.size() || !(s >= 0)) throw std::invalid_argument(v);
        min_score = s;
      } catch (...) {
        return Complain(kName, "--min-score needs a non-negative number",
                        kExitUsage);
      }
    } else if (a == "-" || a.empty() || a[0] != '-') {
      files.push_back(a);
    } else {
      return Complain(kName,
                      "unknown option " + a + " (try mailwave langid --help)",
                      kExitUsage);
    }
  }
  if (files.empty())
    return Complain(kName, "needs FILE... or - (try mailwave langid --help)",
                    kExitUsage);
  if (force_eml && force_text)
    return Complain(kName, "--eml and --text exclude each other", kExitUsage);
  if (lines && force_eml)
    return Complain(kName, "--lines reads plain text, not messages",
                    kExitUsage);

  auto settings = LoadSettings(global);
  if (!settings) return Complain(kName, settings.error().message(), kExitUsage);
  const config::LangidSettings& ls = settings->langid;
  langid::Options options = pipeline::LangidOptions(ls);
  options.min_words = min_words.value_or(ls.min_words);
  options.min_score = min_score.value_or(ls.min_score);
  auto model = langid::OpenDictionary(dict.empty() ? ls.dictionary : dict);
  if (!model) return Complain(kName, model.error().message(), kExitFailure);

  const bool several = files.size() > 1 && !lines;
  int status = kExitOk;
  std::string out;
  for (const std::string& file : files) {
    auto data = ReadInput(file);
    if (!data) {
      status = Complain(kName, data.error().message(), kExitFailure);
      continue;
    }
    const bool eml =
        force_eml || (!force_text && !lines && file.size() > 4 &&
                      file.compare(file.size() - 4, 4, ".eml") == 0);
    if (lines) {
      std::string_view rest = *data;
      while (!rest.empty()) {
        const std::size_t nl = rest.find('\n');
        const std::string_view line = rest.substr(0, nl);
        const std::string text = mime::NormaliseText(line);
        out += Render(langid::Detect(text, *model, options), json, nullptr);
        out += '\n';
        if (nl == std::string_view::npos) break;
        rest.remove_prefix(nl + 1);
      }
    } else if (eml) {
      auto msg = mime::Parse(*data, pipeline::MimeLimits(settings->mime));
      if (!msg) {
        status =
            Complain(kName, file + ": " + msg.error().message(), kExitFailure);
        continue;
      }
      const mime::Text text = mime::Normalise(*msg);
      const std::string all = text.subject + "\n\n" + text.body;
      out += Render(langid::Detect(all, *model, options), json,
                    several ? &file : nullptr);
      out += '\n';
    } else {
      const std::string text = mime::NormaliseText(*data);
      out += Render(langid::Detect(text, *model, options), json,
                    several ? &file : nullptr);
      out += '\n';
    }
    if (out.size() > (1u << 16)) {
      std::cout << out;
      out.clear();
    }
  }
  std::cout << out << std::flush;
  return status;
}

const Registration kReg({"langid",
                         "identify the language of messages or text lines",
                         kHelp, &Run});

}  // namespace
}  // namespace mw::cli
