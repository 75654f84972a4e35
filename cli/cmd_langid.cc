// mailwave langid: language identification of messages or plain text, as the
// milter does it.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "cli/command.h"
#include "cli/util.h"
#include "langid/langid.h"
#include "langid/model.h"
#include "mime/message.h"
#include "pipeline/analysis.h"
#include "pipeline/options.h"

namespace mw::cli {
namespace {

constexpr std::string_view kName = "langid";

constexpr std::string_view kHelp =
    R"(Usage: mailwave [-c FILE] langid [options] [--] FILE...|-
       mailwave langid --help

Identifies the language of each FILE (- for standard input). Every FILE is an
RFC 822 message, whatever its name: its subject and text go through the same
MIME parsing and normalisation as the milter. With --text (or --lines) a FILE
is plain UTF-8 text, normalised the same way (NFKC case folding; C1 control
characters read as windows-1252). Input is read up to mime.max_bytes.

Scripts that identify a language alone decide it (Greek el, Georgian ka,
Armenian hy, Hangul ko, kana ja, Han without kana zh, Thai th, Hebrew he, ...).
Chinese is zh-Hans (simplified) or zh-Hant (traditional) when its characters
say which, else zh. Norwegian is nb (Bokmål), or nn (Nynorsk) when the
letter n-grams of its words say so (also for a text whose words read as
Swedish or Danish); the same n-grams tell apart close pairs whose lists
confuse them (Xhosa and Zulu, Sotho and Tswana, Marathi and Hindi, Serbian
and Macedonian, Urdu and Persian, Azerbaijani and Turkish, Latin and
Italian).
Words in the other scripts are looked up in the two-tier dictionary (words in
no dictionary are scored by their character trigrams, langid.ngram_weight) and
scored with the formula of docs/langid.md. Scores are 0-100. Languages scoring
at least langid.close_ratio (default 0.3) of the best's are close, and among
them the one whose words lean to it most strongly becomes the best. "und"
means too little text: a text with fewer than langid.min_words words
(default 3) is "und", and so is one whose best score stays under
langid.min_score (default 5); the JSON still names the best guess. A text is
bilingual ("en+es") when two languages each win paragraphs (blocks between
blank lines) holding langid.bilingual_min_paragraphs (default 0.1) of the
words: a paragraph of 8 or more words is won by the language it would be
named on its own, when that scores 5 or more there. Else, unless two or more
paragraphs all read as the best language, when the two best languages together
reach min_score, the second reaches langid.bilingual_min_score (default 10),
and either each falls short of min_score or, in a text of several lines, each
is the best language of lines holding langid.bilingual_min_lines (default 0.3)
of the words. Otherwise the best language is the verdict. --min-words 1
--min-score 0 forces a verdict on any text with a letter the dictionary or its
trigrams know.

The dictionary is [langid] dictionary from the configuration; when that is
empty, the first of <program dir>/../share/mailwave/langid.dict,
/usr/local/share/mailwave/langid.dict and /usr/share/mailwave/langid.dict.

Options:
  --json         one JSON object per text:
                   {"lang":"en","score":87.5,"best":"en","partner":null,
                    "partner_score":null,"second":"es","second_score":4.1,
                    "bilingual":false,"words":57,"scripts":{"Latin":57}}
                 "lang" is "und" when undetermined and "en+es" when
                 bilingual; "best" is the best guess (also for "und"; null
                 when no word gave evidence) and "score" its score; "partner"
                 and "partner_score" name the other language of a bilingual
                 verdict (else null); "second" and "second_score" the
                 strongest language the verdict does not name (null when
                 there is none); with several FILEs (and no --lines) a
                 "file" member comes first
  --text         every FILE is plain text, not a message
  --lines        every input line is a separate plain text; the output has
                 one line per input line, in order (empty lines give "und")
  --min-words N  override langid.min_words for this run
  --min-score S  override langid.min_score for this run; --min-words 1
                 --min-score 0 forces a best guess, even for a single word
  --dict FILE    use this dictionary instead of the configured one
  --eml          accepted and ignored, for compatibility: messages are the
                 default (a FILE's name no longer matters)
  --             ends the options: a FILE named -x is given as -- -x
  -h, --help     this text

Output without --json: one line per text, tab-separated:
  [FILE<TAB>]LANG<TAB>SCORE<TAB>SECOND<TAB>SECOND_SCORE
with FILE only when several FILEs are given without --lines; SECOND and
SECOND_SCORE are "-" when there is none. Scores have one decimal.

Exit status:
  0  every input was read
  1  an input could not be read (the others are still processed), no
     dictionary, or output could not be written
  2  usage or configuration error

Examples:
  mailwave langid message.eml
  mailwave langid --json --lines subjects.txt
  echo "ceci n'est pas une pipe" | mailwave langid --text --min-words 1 -
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
    out += ",\"best\":" + JsonStringOrNull(l.best);
    out += ",\"partner\":" + JsonStringOrNull(l.partner);
    out +=
        ",\"partner_score\":" +
        (l.partner.empty() ? std::string("null")
                           : JsonNumber(std::round(l.partner_score * 10) / 10));
    out += ",\"second\":" + JsonStringOrNull(l.second);
    out +=
        ",\"second_score\":" +
        (l.second.empty() ? std::string("null")
                          : JsonNumber(std::round(l.second_score * 10) / 10));
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
  if (l.second.empty()) {
    out += "\t-\t-";
  } else {
    out += '\t' + l.second + '\t';
    AppendScore(out, l.second_score);
  }
  return out;
}

int Run(const std::vector<std::string>& args, const GlobalOptions& global) {
  bool json = false, lines = false, plain_text = false, only_files = false;
  std::string dict;
  std::optional<std::uint32_t> min_words;
  std::optional<double> min_score;
  std::vector<std::string> files;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_files || !IsOption(a)) {
      files.push_back(a);
    } else if (a == "--") {
      only_files = true;
    } else if (a == "--json") {
      json = true;
    } else if (a == "--lines") {
      lines = true;
    } else if (a == "--eml") {
      // A no-op kept for old scripts: every FILE is a message by default.
    } else if (a == "--text") {
      plain_text = true;
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
    } else {
      return Complain(kName,
                      "unknown option " + a + " (try mailwave langid --help)",
                      kExitUsage);
    }
  }
  if (files.empty())
    return Complain(kName, "needs FILE... or - (try mailwave langid --help)",
                    kExitUsage);
  if (std::count(files.begin(), files.end(), "-") > 1)
    return Complain(kName, "standard input (-) can be given once", kExitUsage);

  auto settings = LoadSettings(global);
  if (!settings) return ConfigFailure(settings.error());
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
    if (lines) {
      auto data = ReadInput(file, settings->mime.max_bytes);
      if (!data) {
        status = Complain(kName, data.error().message(), kExitFailure);
        continue;
      }
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
    } else {
      auto text = ReadText(file, plain_text, *settings);
      if (!text) {
        status = Complain(kName, text.error().message(), kExitFailure);
        continue;
      }
      const std::string all =
          plain_text ? text->body : pipeline::LanguageText(*text);
      out += Render(langid::Detect(all, *model, options), json,
                    several ? &file : nullptr);
      out += '\n';
    }
    if (out.size() > (1u << 16)) {
      std::cout << out;
      out.clear();
      if (OutputFailed()) return kExitFailure;  // main() says why
    }
  }
  std::cout << out;
  return status;
}

const Registration kReg({"langid",
                         "identify the language of messages or text lines",
                         kHelp, &Run});

}  // namespace
}  // namespace mw::cli
