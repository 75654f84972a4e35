// Extract throughput over the dev corpus (../shared/data/mail, or the folder in
// MW_MAIL_DIR).
//
//   build/bin/extract_bench
//
// Reports MB/s (bytes_per_second) and messages/s (items_per_second) for:
//   GMimeBaseline  GMime's parse plus transfer decoding of every leaf: the
//                  floor any GMime-based extractor pays, measured in the same
//                  run as the reference
//   Parse          mime::Parse: the above plus charset conversion/detection
//                  and HTML to text
//   Extract        mime::Parse + mime::Normalise: what the milter runs per
//                  message
//   HtmlToText     the HTML-to-text converter alone (mime/src/html.h) over
//                  every text/html leaf of the corpus, transfer-decoded by
//                  GMime; bytes and items are those parts (2.1k/s here)
//   GMimeBaselineUtf8, ParseUtf8
//                  the same two on mail as it is written today, which the
//                  2002 corpus is not: text/plain; charset=utf-8, 8bit, the
//                  text 4 KB pieces of the labelled sentences of every
//                  language in ../shared/data/langid-dev/sentences (20 a
//                  language at most)
// Compare Parse and Extract to GMimeBaseline as ratios; absolute figures vary
// with the machine.
#include <benchmark/benchmark.h>
#include <gmime/gmime.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/corpus_files.h"
#include "bench/gmime_baseline.h"
#include "mime/message.h"
#include "mime/src/html.h"

namespace {

namespace fs = std::filesystem;

const std::vector<std::string>& Corpus() {
  static const std::vector<std::string> corpus = mw::bench::CorpusFiles();
  return corpus;
}

int64_t CorpusBytes() {
  int64_t n = 0;
  for (const auto& m : Corpus()) n += static_cast<int64_t>(m.size());
  return n;
}

bool Ready(benchmark::State& state) {
  if (Corpus().empty()) {
    state.SkipWithError(
        "dev corpus not found: set MW_MAIL_DIR or provide ../shared/data/mail");
    return false;
  }
  return true;
}

void Extract(benchmark::State& state) {
  if (!Ready(state)) return;
  const mw::mime::Limits limits;
  for (auto _ : state) {
    for (const auto& m : Corpus()) {
      auto msg = mw::mime::Parse(m, limits);
      if (msg) {
        mw::mime::Text text = mw::mime::Normalise(*msg);
        benchmark::DoNotOptimize(text);
      }
    }
  }
  state.SetBytesProcessed(state.iterations() * CorpusBytes());
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(Corpus().size()));
}

const std::vector<std::string>& Utf8Messages() {
  static const std::vector<std::string> messages = [] {
    std::vector<std::string> out;
    const fs::path dir = fs::path(MW_SOURCE_DIR) / ".." / "shared" / "data" /
                         "langid-dev" / "sentences";
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(dir, ec)) {
      files.push_back(f.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      std::ifstream in(f, std::ios::binary);
      std::stringstream ss;
      ss << in.rdbuf();
      const std::string text = ss.str();
      int pieces = 0;
      for (std::size_t i = 0; i < text.size() && pieces < 20; ++pieces) {
        std::size_t e = text.find('\n', std::min(text.size(), i + 4096));
        if (e == std::string::npos) e = text.size();
        out.push_back(
            "From: a@example.org\r\nTo: b@example.net\r\nSubject: utf-8\r\n"
            "MIME-Version: 1.0\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Transfer-Encoding: 8bit\r\n\r\n" +
            text.substr(i, e - i) + "\r\n");
        i = e + 1;
      }
    }
    return out;
  }();
  return messages;
}

int64_t Bytes(const std::vector<std::string>& v) {
  int64_t n = 0;
  for (const auto& m : v) n += static_cast<int64_t>(m.size());
  return n;
}

// GMime's floor and mime::Parse over one set of messages.
void RunGMime(benchmark::State& state, const std::vector<std::string>& set) {
  size_t decoded = 0;
  for (auto _ : state) {
    for (const auto& m : set) decoded += mw::bench::GMimeBareParse(m);
  }
  benchmark::DoNotOptimize(decoded);
  state.SetBytesProcessed(state.iterations() * Bytes(set));
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(set.size()));
}

void RunParse(benchmark::State& state, const std::vector<std::string>& set) {
  const mw::mime::Limits limits;
  for (auto _ : state) {
    for (const auto& m : set) {
      auto msg = mw::mime::Parse(m, limits);
      benchmark::DoNotOptimize(msg);
    }
  }
  state.SetBytesProcessed(state.iterations() * Bytes(set));
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(set.size()));
}

bool Utf8Ready(benchmark::State& state) {
  if (!Utf8Messages().empty()) return true;
  state.SkipWithError("../shared/data/langid-dev/sentences not found");
  return false;
}

void GMimeBaseline(benchmark::State& state) {
  if (Ready(state)) RunGMime(state, Corpus());
}

void Parse(benchmark::State& state) {
  if (Ready(state)) RunParse(state, Corpus());
}

void GMimeBaselineUtf8(benchmark::State& state) {
  if (Utf8Ready(state)) RunGMime(state, Utf8Messages());
}

void ParseUtf8(benchmark::State& state) {
  if (Utf8Ready(state)) RunParse(state, Utf8Messages());
}

void CollectHtml(GMimeObject*, GMimeObject* part, gpointer data) {
  if (!GMIME_IS_PART(part)) return;
  GMimeContentType* type = g_mime_object_get_content_type(part);
  if (type == nullptr || !g_mime_content_type_is_type(type, "text", "html"))
    return;
  GMimeDataWrapper* w = g_mime_part_get_content(GMIME_PART(part));
  if (w == nullptr) return;
  GMimeStream* mem = g_mime_stream_mem_new();
  g_mime_data_wrapper_write_to_stream(w, mem);
  GByteArray* bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(mem));
  static_cast<std::vector<std::string>*>(data)->emplace_back(
      reinterpret_cast<const char*>(bytes->data), bytes->len);
  g_object_unref(mem);
}

// The transfer-decoded text/html leaves of the corpus.
const std::vector<std::string>& HtmlParts() {
  static const std::vector<std::string> parts = [] {
    std::vector<std::string> out;
    for (const auto& m : Corpus()) {
      GMimeStream* stream =
          g_mime_stream_mem_new_with_buffer(m.data(), m.size());
      GMimeParser* parser = g_mime_parser_new_with_stream(stream);
      GMimeMessage* msg = g_mime_parser_construct_message(parser, nullptr);
      if (msg != nullptr) {
        g_mime_message_foreach(msg, CollectHtml, &out);
        g_object_unref(msg);
      }
      g_object_unref(parser);
      g_object_unref(stream);
    }
    return out;
  }();
  return parts;
}

void HtmlToText(benchmark::State& state) {
  if (!Ready(state)) return;
  int64_t bytes = 0;
  for (const auto& h : HtmlParts()) bytes += static_cast<int64_t>(h.size());
  for (auto _ : state) {
    for (const auto& h : HtmlParts()) {
      auto text = mw::mime::HtmlToText(h, 512);
      benchmark::DoNotOptimize(text);
    }
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.SetItemsProcessed(state.iterations() *
                          static_cast<int64_t>(HtmlParts().size()));
}

BENCHMARK(GMimeBaseline)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(Parse)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(Extract)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(HtmlToText)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(GMimeBaselineUtf8)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(ParseUtf8)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

int main(int argc, char** argv) {
  mw::mime::Init();
  benchmark::Initialize(&argc, argv);
  std::cerr << "corpus: " << Corpus().size() << " messages, "
            << CorpusBytes() / 1e6 << " MB\n";
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
