// mailwave dict: builds and describes the language dictionary that langid
// reads.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/util.h"
#include "langid/build.h"
#include "langid/model.h"

namespace mw::cli {
namespace {

constexpr std::string_view kName = "dict";

constexpr std::string_view kHelp =
    R"(Usage: mailwave dict build --input DIR --out FILE [options]
       mailwave dict info [--] FILE
       mailwave dict --help

Builds or describes the language dictionary of `mailwave langid` and the
milter: a compact, immutable, memory-mapped file with a tier of words that
belong to one language only and a tier of words shared by several languages,
each with a per-language weight (its share of the word's relative frequency).
See docs/langid.md.

dict build reads every DIR/<code>.txt, one file per language, named by its
ISO 639-1 code (ISO 639-3 where there is none). A file is either a frequency
list, one "word count" pair per line (as hermitdave/FrequencyWords), or plain
UTF-8 text, whose words it counts itself. Words are NFKC case folded, split at
apostrophes; words with digits are left out. A list whose words are mostly in
a script that identifies the language alone (Greek, Hangul, Thai, ...) is
recorded without words. When there is an sr.txt (Serbian, Latin script), its
Cyrillic transliteration is added. A DIR/<code>.trigrams beside a list, one
"trigram count" pair per line (letter trigrams inside words, with their
frequency per billion trigrams of running text, as langid/data/
prepare_lingua.py makes from Lingua's models), gives the n-gram tier the
probabilities of the trigrams inside that language's words; the list's own
words still give those at word boundaries. A DIR/<code>.variant without a
list makes <code> a written variant of the language its first line names
("variant-of nb"), told from it by the letter n-grams on the other lines
("n-gram value", value = 100 * ln(P_variant / P_base), as prepare_lingua.py
makes Nynorsk's). A DIR/<code>.pair beside <code>.txt ("pair-with zu", then
the same lines) tells two languages with lists of their own apart wherever
a verdict names one of them (Xhosa and Zulu; the other may be a variant:
sv.pair says "pair-with nn"); "pair-with hi 6" leaves to the words a text
whose sum is under 6 nats (Marathi beside Hindi's strong list). Progress
goes to standard error.
The same input and options give a byte-identical file; it is written to
FILE.tmp and renamed. The options are checked before any input is read.

dict info prints the file's format version, size, checksum, build parameters,
tier sizes and languages (code, script, words, tier-1 words; a variant or
the first of a close pair names the language it is told from).

Options of dict build:
  --input DIR            directory of <code>.txt files (required)
  --out FILE             dictionary to write (required)
  --max-words N          keep the N most frequent words of each language
                         (default: all)
  --min-count N          ignore words counted fewer than N times (default 1)
  --max-languages N      a word spread over more than N languages with no
                         dominant one (perplexity of its shares) is a common
                         cross-language token, evidence for no language
                         (default 5; N > 0)
  --pure-share X         a shared word whose share for one language is at
                         least X is a tier-1 word of that language
                         (default 0.9; 0.5 < X <= 1)
  --min-share X          drop tier-2 weights below X (default 0.01;
                         0 <= X < 0.5)
  --ngram-top N          keep the N most frequent character trigrams of each
                         language for the optional n-gram tier (default 3000;
                         0 = no n-gram tier)
  --no-serbian-cyrillic  do not add the Cyrillic transliteration of sr.txt
  -q, --quiet            no progress messages
  -h, --help             this text

Exit status:
  0  success
  1  an input could not be read or is not usable, or the output could not be
     written; a dictionary that fails validation in dict info
  2  usage error (unknown option, bad or missing value)

Examples:
  mailwave dict build --input langid/data/wordlists --out langid.dict \
      --max-words 20000
  mailwave dict info build/share/mailwave/langid.dict
)";

bool ParseUint(const std::string& s, std::uint32_t& out) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool ParseReal(const std::string& s, double& out) {
  try {
    std::size_t used = 0;
    out = std::stod(s, &used);
    return used == s.size();
  } catch (...) {
    return false;
  }
}

int Build(const std::vector<std::string>& args) {
  std::string input, out;
  langid::BuildParams params;
  bool serbian_cyrillic = true;
  bool quiet = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](std::string& v) {
      if (i + 1 >= args.size()) return false;
      v = args[++i];
      return true;
    };
    std::string v;
    if (a == "--input") {
      if (!value(input))
        return Complain(kName, "--input needs a directory", kExitUsage);
    } else if (a == "--out") {
      if (!value(out))
        return Complain(kName, "--out needs a file name", kExitUsage);
    } else if (a == "--ngram-top") {
      if (!value(v) || !ParseUint(v, params.ngram_top)) {
        return Complain(kName, a + " needs a non-negative integer", kExitUsage);
      }
    } else if (a == "--max-words" || a == "--min-count" ||
               a == "--max-languages") {
      std::uint32_t n = 0;
      if (!value(v) || !ParseUint(v, n)) {
        return Complain(kName, a + " needs a non-negative integer", kExitUsage);
      }
      (a == "--max-words"   ? params.max_words
       : a == "--min-count" ? params.min_count
                            : params.max_languages) = n;
    } else if (a == "--pure-share" || a == "--min-share") {
      double x = 0;
      if (!value(v) || !ParseReal(v, x))
        return Complain(kName, a + " needs a number", kExitUsage);
      (a == "--pure-share" ? params.pure_share : params.min_share) = x;
    } else if (a == "--no-serbian-cyrillic") {
      serbian_cyrillic = false;
    } else if (a == "-q" || a == "--quiet") {
      quiet = true;
    } else if (a == "--") {
      if (i + 1 < args.size())
        return Complain(kName, "build takes no FILE: " + args[i + 1],
                        kExitUsage);
    } else {
      return Complain(
          kName,
          (IsOption(a) ? "unknown option " : "unexpected argument ") + a +
              " (try mailwave dict --help)",
          kExitUsage);
    }
  }
  if (input.empty() || out.empty()) {
    return Complain(kName, "build needs --input DIR and --out FILE",
                    kExitUsage);
  }
  // The parameters langid::Build would refuse, refused before hours of
  // reading: a usage error, not a failed build.
  if (!(params.pure_share > 0.5 && params.pure_share <= 1.0))
    return Complain(kName, "--pure-share needs 0.5 < X <= 1", kExitUsage);
  if (!(params.min_share >= 0 && params.min_share < 0.5))
    return Complain(kName, "--min-share needs 0 <= X < 0.5", kExitUsage);
  if (params.max_languages == 0)
    return Complain(kName, "--max-languages needs N > 0", kExitUsage);
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> files, variant_files;
  for (const auto& e : fs::directory_iterator(input, ec)) {
    if (!e.is_regular_file()) continue;
    if (e.path().extension() == ".txt") files.push_back(e.path());
    if (e.path().extension() == ".variant" || e.path().extension() == ".pair")
      variant_files.push_back(e.path());
  }
  if (ec) return Complain(kName, input + ": " + ec.message(), kExitFailure);
  if (files.empty())
    return Complain(kName, input + ": no <code>.txt files", kExitFailure);
  std::sort(files.begin(), files.end());
  std::sort(variant_files.begin(), variant_files.end());
  auto progress = [&](std::string_view s) {
    if (!quiet) std::cerr << "mailwave dict: " << s << '\n';
  };
  std::vector<langid::WordList> lists;
  for (const fs::path& f : files) {
    auto text = ReadInput(f.string());
    if (!text) return Complain(kName, text.error().message(), kExitFailure);
    auto list = langid::ParseWordList(f.stem().string(), *text);
    if (!list)
      return Complain(kName, f.string() + ": " + list.error().message(),
                      kExitFailure);
    if (serbian_cyrillic && list->code == "sr")
      langid::AddSerbianCyrillic(*list);
    fs::path trigrams_path = f;
    trigrams_path.replace_extension(".trigrams");
    if (fs::is_regular_file(trigrams_path)) {
      auto trigrams_text = ReadInput(trigrams_path.string());
      if (!trigrams_text)
        return Complain(kName, trigrams_text.error().message(), kExitFailure);
      auto trigrams = langid::ParseTrigramList(*trigrams_text);
      if (!trigrams)
        return Complain(
            kName, trigrams_path.string() + ": " + trigrams.error().message(),
            kExitFailure);
      list->inner_trigrams = std::move(*trigrams);
      progress("read " + trigrams_path.filename().string() + ": " +
               std::to_string(list->inner_trigrams.size()) + " trigrams");
    }
    progress("read " + f.filename().string() + ": " +
             std::to_string(list->words.size()) + " distinct words");
    lists.push_back(std::move(*list));
  }
  std::vector<langid::VariantList> variants;
  for (const fs::path& f : variant_files) {
    auto text = ReadInput(f.string());
    if (!text) return Complain(kName, text.error().message(), kExitFailure);
    auto variant = langid::ParseVariantList(f.stem().string(), *text);
    if (!variant)
      return Complain(kName, f.string() + ": " + variant.error().message(),
                      kExitFailure);
    progress(
        "read " + f.filename().string() + ": " +
        std::to_string(variant->ngrams.size()) +
        (variant->pair ? " n-grams, told from " : " n-grams, a variant of ") +
        variant->base);
    variants.push_back(std::move(*variant));
  }
  auto bytes =
      langid::Build(std::move(lists), std::move(variants), params, progress);
  if (!bytes) return Complain(kName, bytes.error().message(), kExitFailure);
  const std::string tmp = out + ".tmp";
  {
    std::ofstream os(tmp, std::ios::binary | std::ios::trunc);
    os.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    os.close();
    if (!os) {
      std::remove(tmp.c_str());
      return Complain(kName, tmp + ": cannot write", kExitFailure);
    }
  }
  fs::rename(tmp, out, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return Complain(kName, out + ": " + ec.message(), kExitFailure);
  }
  progress("wrote " + out + " (" + std::to_string(bytes->size()) + " bytes)");
  return kExitOk;
}

int Info(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  bool only_files = false;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (!only_files && args[i] == "--") {
      only_files = true;
    } else if (!only_files && IsOption(args[i])) {
      return Complain(
          kName, "unknown option " + args[i] + " (try mailwave dict --help)",
          kExitUsage);
    } else {
      files.push_back(args[i]);
    }
  }
  if (files.size() != 1)
    return Complain(kName, "info needs exactly one FILE", kExitUsage);
  const std::string& file = files[0];
  auto model = langid::Model::Open(file);
  if (!model) return Complain(kName, model.error().message(), kExitFailure);
  const langid::Model& m = *model;
  char checksum[32];
  std::snprintf(checksum, sizeof checksum, "%016llx",
                static_cast<unsigned long long>(m.checksum()));
  std::cout << "file: " << file << "\n"
            << "format version: " << m.version() << "\n"
            << "size: " << m.file_size() << " bytes\n"
            << "checksum: " << checksum << "\n"
            << "build parameters: max-words " << m.params().max_words
            << ", min-count " << m.params().min_count << ", max-languages "
            << m.params().max_languages << ", pure-share "
            << m.params().pure_share << ", min-share " << m.params().min_share
            << ", ngram-top " << m.params().ngram_top << "\n"
            << "entries: " << m.entry_count()
            << " (tier 1 words: " << m.pure_count()
            << ", tier 2: " << m.shared_count()
            << ", common: " << m.common_count() << "; " << m.posting_count()
            << " out-of-line tier-2 weights)\n"
            << "languages: " << m.languages().size() << "\n";
  char line[128];
  std::snprintf(line, sizeof line, "  %-8s %-12s %9s %9s\n", "code", "script",
                "words", "tier1");
  std::cout << line;
  for (const auto& l : m.languages()) {
    if (l.script_decided) {
      std::snprintf(line, sizeof line, "  %-8s %-12s %19s\n", l.code.c_str(),
                    l.script.c_str(), "(script decides)");
    } else if (l.variant_of >= 0) {
      const std::string note =
          "(variant of " + m.languages()[l.variant_of].code + ")";
      std::snprintf(line, sizeof line, "  %-8s %-12s %19s\n", l.code.c_str(),
                    l.script.c_str(), note.c_str());
    } else {
      const std::string note =
          l.pair_with < 0 ? std::string()
          : l.pair_min > 0
              ? "  (told from " + m.languages()[l.pair_with].code +
                    ", sums of " +
                    std::to_string(static_cast<int>(l.pair_min)) + " or more)"
              : "  (told from " + m.languages()[l.pair_with].code + ")";
      std::snprintf(line, sizeof line, "  %-8s %-12s %9u %9u%s\n",
                    l.code.c_str(), l.script.c_str(), l.words, l.pure_words,
                    note.c_str());
    }
    std::cout << line;
  }
  // Letters only one list writes (langid::Model::LetterLanguage).
  std::cout << "marker letters: " << m.letters().size();
  for (const auto& [c, language] : m.letters()) {
    std::snprintf(line, sizeof line, " U+%04X %s", static_cast<unsigned>(c),
                  m.languages()[language].code.c_str());
    std::cout << line;
  }
  std::cout << "\n";
  return kExitOk;
}

int Run(const std::vector<std::string>& args, const GlobalOptions&) {
  if (args.empty())
    return Complain(kName, "needs build or info (try mailwave dict --help)",
                    kExitUsage);
  if (args[0] == "build") return Build(args);
  if (args[0] == "info") return Info(args);
  return Complain(kName, "unknown subcommand '" + args[0] + "' (build or info)",
                  kExitUsage);
}

const Registration kReg({"dict", "build or describe the language dictionary",
                         kHelp, &Run});

}  // namespace
}  // namespace mw::cli
