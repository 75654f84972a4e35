// mailwave fingerprint: the fingerprints the daemon computes for one message.
#include "cli/cmd_fingerprint.h"

#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/util.h"
#include "fingerprint/simhash.h"
#include "mime/message.h"
#include "pipeline/analysis.h"
#include "pipeline/options.h"

namespace mw::cli {

Result<std::string> ReadBody(const std::string& path, bool plain_text,
                             const config::Settings& settings) {
  auto text = ReadText(path, plain_text, settings);
  if (!text) return Fail(text.error());
  return std::move(text->body);
}

std::string_view KindName(fingerprint::BlockKind kind) {
  return kind == fingerprint::BlockKind::kSentences ? "sentences"
                                                    : "paragraphs";
}

namespace {

constexpr std::string_view kName = "fingerprint";

constexpr std::string_view kHelp =
    R"(Usage: mailwave [-c FILE] fingerprint [--json] [--text] [--] FILE|-
       mailwave fingerprint --help

Prints the fingerprints mailwave computes for one message, exactly as the
daemon does: the message is parsed (MIME decoded, HTML turned into text), its
body normalised (NFKC, case folded, whitespace collapsed) and fingerprinted.
Headers and the subject never enter a fingerprint. Settings come from the
[fingerprint] and [mime] tables; input is read up to mime.max_bytes.

Fingerprints:
  body SHA-1   SHA-1 of the whole normalised body, for exact duplicates
  blocks       the body split into sentences (bodies up to
               paragraph_threshold, 20 KiB by default) or lines (larger
               bodies), each block's SHA-1 in message order
  other blocks the other kind, for bodies up to paragraph_threshold·(1 +
               paragraph_band) (25 KiB): small bodies also keep their lines,
               bodies just over the threshold their sentences, so that
               variants on both sides of it still compare
  CTPH         the ssdeep-style signature "B:sig:sig2" (block size B,
               signatures at B and 2B)
  SimHash      64 bits over 3-word shingles, in hexadecimal, with its bucket
               keys
CTPH, SimHash and the blocks are computed on the folded body (see the fold_*
settings).

Options:
  --json      one JSON object instead of text
  --text      FILE is plain UTF-8 text, not a message: it is normalised and
              fingerprinted
  --          ends the options: a FILE named -x is given as -- -x
  -h, --help  this text

Output (text): one "key: value" line per item; block hashes one per line
after "blocks:".
Output (JSON):
  {"body_sha1":"…","body_bytes":N,
   "blocks":{"kind":"sentences|paragraphs","count":N,"hashes":["…",…]},
   "other_blocks":{…}|null,
   "ctph":{"block_size":B,"signature":"…","signature2":"…",
           "ssdeep":"B:…:…"},
   "simhash":"0123456789abcdef","simhash_keys":["…",…]}

Exit status:
  0  success
  1  FILE cannot be read, or no usable message in it; output could not be
     written
  2  usage error or invalid configuration

Examples:
  mailwave fingerprint message.eml
  mailwave fingerprint --json - < message.eml | jq .ctph
  mailwave fingerprint --text notes.txt
)";

std::string Hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
  return buf;
}

void AppendBlocksJson(std::string& out, const fingerprint::BlockList& list) {
  out += "{\"kind\":";
  AppendJsonString(out, KindName(list.kind));
  out += ",\"count\":" + std::to_string(list.hashes.size()) + ",\"hashes\":[";
  for (std::size_t i = 0; i < list.hashes.size(); ++i) {
    if (i > 0) out += ',';
    AppendJsonString(out, fingerprint::Hex(list.hashes[i]));
  }
  out += "]}";
}

void PrintBlocksText(std::string_view label,
                     const fingerprint::BlockList& list) {
  std::cout << label << "_kind: " << KindName(list.kind) << '\n'
            << label << "_count: " << list.hashes.size() << '\n'
            << label << ":\n";
  for (const auto& h : list.hashes)
    std::cout << "  " << fingerprint::Hex(h) << '\n';
}

int Run(const std::vector<std::string>& args, const GlobalOptions& global) {
  bool json = false;
  bool plain_text = false;
  bool only_files = false;
  std::string path;
  for (const std::string& a : args) {
    if (!only_files && a == "--") {
      only_files = true;
    } else if (!only_files && a == "--json") {
      json = true;
    } else if (!only_files && a == "--text") {
      plain_text = true;
    } else if (!only_files && IsOption(a)) {
      return Complain(
          kName, "unknown option " + a + " (try mailwave fingerprint --help)",
          kExitUsage);
    } else if (!path.empty()) {
      return Complain(kName, "give one FILE (try mailwave fingerprint --help)",
                      kExitUsage);
    } else {
      path = a;
    }
  }
  if (path.empty()) {
    return Complain(kName, "missing FILE, or - for standard input", kExitUsage);
  }
  auto settings = LoadSettings(global);
  if (!settings) return ConfigFailure(settings.error());
  auto body = ReadBody(path, plain_text, *settings);
  if (!body) return Complain(kName, body.error().message(), kExitFailure);
  const fingerprint::Options options =
      pipeline::FingerprintOptions(settings->fingerprint);
  const fingerprint::Fingerprint fp = fingerprint::Compute(*body, options);
  const std::vector<std::uint64_t> keys =
      fingerprint::SimHashKeys(fp.simhash, options.simhash_max_distance);

  if (json) {
    std::string out = "{\"body_sha1\":";
    AppendJsonString(out, fingerprint::Hex(fp.body_sha1));
    out += ",\"body_bytes\":" + std::to_string(fp.body_bytes) + ",\"blocks\":";
    AppendBlocksJson(out, fp.blocks);
    out += ",\"other_blocks\":";
    if (fp.other_blocks) {
      AppendBlocksJson(out, *fp.other_blocks);
    } else {
      out += "null";
    }
    out += ",\"ctph\":{\"block_size\":" + std::to_string(fp.ctph.block_size) +
           ",\"signature\":";
    AppendJsonString(out, fp.ctph.sig);
    out += ",\"signature2\":";
    AppendJsonString(out, fp.ctph.sig2);
    out += ",\"ssdeep\":";
    AppendJsonString(out, fingerprint::ToString(fp.ctph));
    out += "},\"simhash\":";
    AppendJsonString(out, Hex64(fp.simhash));
    out += ",\"simhash_keys\":[";
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i > 0) out += ',';
      AppendJsonString(out, Hex64(keys[i]));
    }
    out += "]}\n";
    std::cout << out;
  } else {
    std::cout << "body_sha1: " << fingerprint::Hex(fp.body_sha1) << '\n'
              << "body_bytes: " << fp.body_bytes << '\n';
    PrintBlocksText("blocks", fp.blocks);
    if (fp.other_blocks) PrintBlocksText("other_blocks", *fp.other_blocks);
    std::cout << "ctph: " << fingerprint::ToString(fp.ctph) << '\n'
              << "ctph_block_size: " << fp.ctph.block_size << '\n'
              << "simhash: " << Hex64(fp.simhash) << '\n'
              << "simhash_keys:";
    for (const std::uint64_t k : keys) std::cout << ' ' << Hex64(k);
    std::cout << '\n';
  }
  return kExitOk;
}

const Registration kReg(
    {kName, "print a message's fingerprints (block list, CTPH, SimHash)", kHelp,
     &Run});

}  // namespace
}  // namespace mw::cli
