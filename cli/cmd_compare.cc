// mailwave compare: how near two messages are, and whether they are duplicates.
#include <iostream>
#include <string>
#include <vector>

#include "cli/cmd_fingerprint.h"
#include "cli/command.h"
#include "cli/util.h"
#include "fingerprint/sketch.h"
#include "pipeline/options.h"

namespace mw::cli {
namespace {

constexpr std::string_view kName = "compare";

constexpr std::string_view kHelp =
    R"(Usage: mailwave [-c FILE] compare [--json] [--text] [--] A B
       mailwave compare --help

Fingerprints messages A and B as the daemon does (see mailwave fingerprint
--help) and says how near they are by each method, and whether they are
duplicates under the configured thresholds ([fingerprint] table). One of A and
B may be - for standard input. Input is read up to mime.max_bytes.

Methods, in the order they decide (the first that holds is reported):
  exact    the normalised bodies are identical (equal SHA-1)
  blocks   block-list similarity >= duplicate_threshold (0.6). Matching
           blocks (sentences, or lines) are weighed by how far apart they
           are: Σ (M − |i − j|) / M², M the larger block count, each repeated
           block paired with its own occurrence; the score is the smaller of
           that and the same sum weighted by block length, so a shared
           template of short lines does not decide; in [0, 1]. Lists of one
           kind are compared when their counts are within block_count_ratio
           (2), line lists only when both have min_paragraph_blocks (8)
           lines; the best kind counts.
  containment
           the share of the smaller block list found in the other in any
           order, counted and by bytes (the smaller of the two) >=
           containment_threshold (0.9), the two lists' total lengths within
           containment_length_ratio (1.3), and the SimHashes at most
           containment_hamming (16) bits apart: text inserted between many
           lines. Line lists count here from containment_min_lines (4) lines
  trailer  both begin with the same blocks, at least trailer_min_blocks (2),
           and go on with at most trailer_max_bytes (512) each, no more than
           the shared part: one text with a list footer, a disclaimer or a
           signature added
  reordered
           the same words the same number of times in any order (at least
           reorder_min_words, 16), and the SimHashes at most reorder_hamming
           (20) bits apart: shuffled sentences, paragraphs wrapped again; or,
           with edits besides the new order (a greeting, a footer, words
           inserted), word sketches at least 0.85 alike, block containment
           at least 0.3 and the SimHashes at most 13 bits apart
  ctph     CTPH signature edit rate < ctph_edit_rate (0.05): Levenshtein
           distance over the sum of the two signature lengths, at a common
           block size (B or 2B); only when both bodies have ctph_min_bytes
           (512). Also a candidate below 3 × ctph_edit_rate when the block
           similarity is at least confirm_similarity (0.4) and the SimHashes
           are at most confirm_hamming (12) bits apart
  simhash  SimHash Hamming distance <= simhash_max_distance (3)
  words    the word sketches (a MinHash of each text's set of words) at
           least words_jaccard (0.4) alike, the sampled word sequences (the
           words whose hash falls in a 1-in-step sample, at most 64, in text
           order) within an edit rate of words_edit_rate (0.35), at least
           words_min_words (32) words in each and word counts within 1.3 of
           each other, and the edits spread over at least 3 separate runs
           and 0.4 runs per edit: spun text (other synonyms in every
           sentence), a letters-only token on every line, sentences
           shuffled and edited; two mails of one template, which differ in
           one or two places, are not duplicates by this path. When one
           copy has an added end (a footer on a personalised newsletter)
           of at most a third of its sampled words, the rule is read again
           without it: word counts up to 1.7 apart, the longer one's words
           without the end within 1.3 of the other's, the rest within an
           edit rate of 0.13 and spread as above, or within 0.1 with
           block similarity at least 0.2 (a text and its quoted reply
           below, every line of it prefixed, are not duplicates by this
           path)
  none     none of these: not duplicates
Bodies without text are never duplicates.

Options:
  --json      one JSON object instead of text
  --text      A and B are plain UTF-8 texts, not messages
  --          ends the options: a file named -x is given as -- -x
  -h, --help  this text

Output (JSON):
  {"blocks":{"similarity":0.83|null,"kind":"sentences|paragraphs"|null,
   "containment":0.9|null},"ctph":{"edit_rate":0.02|null},
   "simhash":{"hamming":4},"words":{"sketch":0.62,"edit_rate":0.18|null,
   "runs":7|null,"end_left_out":5|null,"edit_rate_without_end":0.06|null,
   "runs_without_end":4|null},"duplicate":true,
   "method":"exact|blocks|containment|trailer|reordered|ctph|simhash|words|
   none"}
Fractions are always written with a decimal point (1.0, not 1). null means
the method could not compare the two (block counts too far apart, CTPH block
sizes more than a factor 2 apart, or an empty body). end_left_out counts the
sampled words at the longer sequence's end that the best alignment without
them leaves out (0 when leaving none out is as good); the two fields after
it describe that alignment.
Output (text): the same items as "key: value" lines.

Exit status:
  0  compared (whether or not they are duplicates: read "duplicate")
  1  A or B cannot be read, or output could not be written
  2  usage error or invalid configuration

Examples:
  mailwave compare a.eml b.eml
  mailwave compare --json wave1.eml wave2.eml | jq .duplicate
)";

std::string OptionalNumber(const std::optional<double>& v) {
  return v ? JsonNumber(*v) : std::string("null");
}

int Run(const std::vector<std::string>& args, const GlobalOptions& global) {
  bool json = false;
  bool plain_text = false;
  bool only_files = false;
  std::vector<std::string> paths;
  for (const std::string& a : args) {
    if (!only_files && a == "--") {
      only_files = true;
    } else if (!only_files && a == "--json") {
      json = true;
    } else if (!only_files && a == "--text") {
      plain_text = true;
    } else if (!only_files && IsOption(a)) {
      return Complain(kName,
                      "unknown option " + a + " (try mailwave compare --help)",
                      kExitUsage);
    } else {
      paths.push_back(a);
    }
  }
  if (paths.size() != 2) {
    return Complain(kName,
                    "give two files A and B (try mailwave compare --help)",
                    kExitUsage);
  }
  if (paths[0] == "-" && paths[1] == "-") {
    return Complain(kName, "only one of A and B can be standard input",
                    kExitUsage);
  }
  auto settings = LoadSettings(global);
  if (!settings) return ConfigFailure(settings.error());
  const fingerprint::Options options =
      pipeline::FingerprintOptions(settings->fingerprint);
  fingerprint::Fingerprint fps[2];
  for (int i = 0; i < 2; ++i) {
    auto body = ReadBody(paths[i], plain_text, *settings);
    if (!body) return Complain(kName, body.error().message(), kExitFailure);
    fps[i] = fingerprint::Compute(*body, options);
  }
  const fingerprint::Comparison c =
      fingerprint::Compare(fps[0], fps[1], options);
  const std::string kind =
      c.kind ? std::string(KindName(*c.kind)) : std::string();
  // Compare measures the word sequences only past the sketch threshold (the
  // alignment costs more than the other scores); shown here always.
  const std::optional<fingerprint::SequenceDiff> words =
      fingerprint::DiffWordSequences(fps[0].word_sequence,
                                     fps[1].word_sequence);
  const std::optional<double> words_rate =
      words && words->length > 0
          ? std::optional<double>(static_cast<double>(words->distance) /
                                  words->length)
          : std::nullopt;
  const std::string runs = words ? std::to_string(words->runs) : "null";
  const std::string end = words ? std::to_string(words->tail) : "null";
  const std::optional<double> rate_without_end =
      words && words->trimmed_length > 0
          ? std::optional<double>(static_cast<double>(words->trimmed_distance) /
                                  words->trimmed_length)
          : std::nullopt;
  const std::string runs_without_end =
      words ? std::to_string(words->trimmed_runs) : "null";
  if (json) {
    std::string out =
        "{\"blocks\":{\"similarity\":" + OptionalNumber(c.similarity) +
        ",\"kind\":";
    if (c.kind) {
      AppendJsonString(out, kind);
    } else {
      out += "null";
    }
    out += ",\"containment\":" + OptionalNumber(c.containment);
    out += "},\"ctph\":{\"edit_rate\":" + OptionalNumber(c.edit_rate) +
           "},\"simhash\":{\"hamming\":" + std::to_string(c.hamming) +
           "},\"words\":{\"sketch\":" + OptionalNumber(c.sketch) +
           ",\"edit_rate\":" + OptionalNumber(words_rate) +
           ",\"runs\":" + runs + ",\"end_left_out\":" + end +
           ",\"edit_rate_without_end\":" + OptionalNumber(rate_without_end) +
           ",\"runs_without_end\":" + runs_without_end +
           "},\"duplicate\":" + (c.duplicate ? "true" : "false") +
           ",\"method\":";
    AppendJsonString(out, fingerprint::MethodName(c.method));
    out += "}\n";
    std::cout << out;
  } else {
    std::cout << "blocks_similarity: " << OptionalNumber(c.similarity) << '\n'
              << "blocks_kind: " << (c.kind ? kind : "null") << '\n'
              << "blocks_containment: " << OptionalNumber(c.containment) << '\n'
              << "ctph_edit_rate: " << OptionalNumber(c.edit_rate) << '\n'
              << "simhash_hamming: " << c.hamming << '\n'
              << "words_sketch: " << OptionalNumber(c.sketch) << '\n'
              << "words_edit_rate: " << OptionalNumber(words_rate) << '\n'
              << "words_runs: " << runs << '\n'
              << "words_end_left_out: " << end << '\n'
              << "words_edit_rate_without_end: "
              << OptionalNumber(rate_without_end) << '\n'
              << "words_runs_without_end: " << runs_without_end << '\n'
              << "duplicate: " << (c.duplicate ? "true" : "false") << '\n'
              << "method: " << fingerprint::MethodName(c.method) << '\n';
  }
  return kExitOk;
}

const Registration kReg(
    {kName, "compare two messages: similarity by method, duplicate or not",
     kHelp, &Run});

}  // namespace
}  // namespace mw::cli
