// langid_speed: throughput of mw::langid on message-sized texts beside CLD2 on
// the same texts in the same run, per language and per script group.
//
//   langid_speed [--dev DIR] [--dict FILE] [--chunk BYTES] [--rounds N]
//
// Each language's dev sentences (shared/data/langid-dev/sentences, both
// halves: nothing is tuned here; C1 controls mapped as windows-1252, as
// Detect reads them) are cut at line ends into texts of about
// --chunk bytes (default 4096, the size of a typical mail body), and every
// text is also timed whole (26-158 KB, a long message). mailwave is timed as
// the milter calls it (mime::NormaliseText, then Detect with the default
// options), CLD2 on the raw text (it folds case itself). Each figure is the
// median of --rounds (default 5) passes, the two detectors alternating
// language by language so that a slower moment of the shared machine hits
// both. Ratios are mailwave over CLD2; above 1 is faster.
// Exits 0 with a notice when the dev set or CLD2 is absent.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "langid/langid.h"
#include "langid/model.h"
#include "mime/message.h"

#ifdef MW_HAVE_CLD2
#include <cld2/public/compact_lang_det.h>
#endif

namespace {

namespace fs = std::filesystem;

struct LanguageTexts {
  std::string code;
  std::vector<std::string> chunks;
  std::string whole;
};

// Script groups of the report: the detectors' paths differ by script.
std::string Group(const std::string& code) {
  static const std::map<std::string, std::string> kGroups = {
      {"ja", "CJK/Thai"}, {"zh", "CJK/Thai"}, {"th", "CJK/Thai"},
      {"ko", "Hangul"},   {"ru", "Cyrillic"}, {"uk", "Cyrillic"},
      {"be", "Cyrillic"}, {"bg", "Cyrillic"}, {"mk", "Cyrillic"},
      {"sr", "Cyrillic"}, {"kk", "Cyrillic"}, {"mn", "Cyrillic"},
      {"ar", "Arabic"},   {"fa", "Arabic"},   {"ur", "Arabic"},
      {"hi", "Indic"},    {"mr", "Indic"},    {"bn", "Indic"},
      {"gu", "Indic"},    {"pa", "Indic"},    {"ta", "Indic"},
      {"te", "Indic"},    {"el", "other"},    {"he", "other"},
      {"hy", "other"},    {"ka", "other"}};
  const auto it = kGroups.find(code);
  return it == kGroups.end() ? "Latin" : it->second;
}

std::vector<LanguageTexts> Load(const fs::path& dir, std::size_t chunk) {
  std::vector<LanguageTexts> out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".txt") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    LanguageTexts t;
    t.code = p.stem().string();
    std::ifstream in(p);
    std::string line, current;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      // Some lines hold C1 controls (text once mis-decoded as ISO-8859-1),
      // at which CLD2 stops reading: both detectors get them mapped.
      line = mw::langid::MapC1Controls(line);
      t.whole += line + "\n";
      current += line + "\n";
      if (current.size() >= chunk) {
        t.chunks.push_back(std::move(current));
        current.clear();
      }
    }
    if (!current.empty()) t.chunks.push_back(std::move(current));
    out.push_back(std::move(t));
  }
  return out;
}

double Seconds(std::chrono::steady_clock::time_point a,
               std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

#ifdef MW_HAVE_CLD2
// Keeps the compiler from dropping a call whose result is unused.
volatile int g_sink = 0;

double TimeOurs(const std::vector<const std::string*>& texts,
                const mw::langid::Model& model) {
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::string* t : texts) {
    const std::string normalised = mw::mime::NormaliseText(*t);
    g_sink = g_sink +
             static_cast<int>(mw::langid::Detect(normalised, model, {}).words);
  }
  return Seconds(t0, std::chrono::steady_clock::now());
}

double TimeCld2(const std::vector<const std::string*>& texts) {
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::string* t : texts) {
    bool reliable = false;
    int valid = 0;
    g_sink = g_sink + static_cast<int>(CLD2::DetectLanguageCheckUTF8(
                          t->data(), static_cast<int>(t->size()), true,
                          &reliable, &valid));
  }
  return Seconds(t0, std::chrono::steady_clock::now());
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::string dev = MW_SOURCE_DIR "/../shared/data/langid-dev";
  std::string dict = MW_BINARY_DIR "/share/mailwave/langid.dict";
  std::size_t chunk = 4096;
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr,
                   "usage: langid_speed [--dev DIR] [--dict FILE] [--chunk "
                   "BYTES] [--rounds N]\n");
      return 2;
    }
    const std::string v = argv[++i];
    if (a == "--dev") {
      dev = v;
    } else if (a == "--dict") {
      dict = v;
    } else if (a == "--chunk") {
      chunk = std::stoul(v);
    } else if (a == "--rounds") {
      rounds = std::max(1, std::stoi(v));
    } else {
      std::fprintf(stderr, "langid_speed: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (!fs::is_directory(fs::path(dev) / "sentences")) {
    std::printf("langid_speed: no dev set at %s; nothing measured\n",
                dev.c_str());
    return 0;
  }
#ifndef MW_HAVE_CLD2
  std::printf("langid_speed: CLD2 not built (libcld2-dev); nothing measured\n");
  return 0;
#else
  auto model = mw::langid::Model::Open(dict);
  if (!model) {
    std::fprintf(stderr, "langid_speed: %s: %s\n", dict.c_str(),
                 model.error().message().c_str());
    return 1;
  }
  const std::vector<LanguageTexts> langs =
      Load(fs::path(dev) / "sentences", chunk);

  struct Row {
    std::string code;
    double bytes_chunks = 0, bytes_whole = 0;
    double ours_chunks = 0, cld2_chunks = 0, ours_whole = 0, cld2_whole = 0;
  };
  std::vector<Row> rows;
  for (const LanguageTexts& l : langs) {
    Row r;
    r.code = l.code;
    std::vector<const std::string*> chunks, whole = {&l.whole};
    for (const std::string& c : l.chunks) {
      chunks.push_back(&c);
      r.bytes_chunks += c.size();
    }
    r.bytes_whole = l.whole.size();
    std::vector<double> oc, cc, ow, cw;
    (void)TimeOurs(whole, *model);  // warm the caches and the pools
    (void)TimeCld2(whole);
    for (int k = 0; k < rounds; ++k) {
      oc.push_back(TimeOurs(chunks, *model));
      cc.push_back(TimeCld2(chunks));
      ow.push_back(TimeOurs(whole, *model));
      cw.push_back(TimeCld2(whole));
    }
    r.ours_chunks = Median(oc);
    r.cld2_chunks = Median(cc);
    r.ours_whole = Median(ow);
    r.cld2_whole = Median(cw);
    rows.push_back(r);
  }

  std::printf(
      "langid_speed: %zu languages, texts of about %zu bytes and whole, "
      "median of %d rounds; MB/s, ratio = mailwave / CLD2\n\n",
      rows.size(), chunk, rounds);
  std::printf("%-6s %-9s %9s %9s %6s   %9s %9s %6s\n", "lang", "group", "ours",
              "CLD2", "ratio", "ours", "CLD2", "ratio");
  std::printf("%-16s %-26s %-26s\n", "", "  -- message-sized --",
              "  -- whole file --");
  std::map<std::string, Row> groups;
  Row all;
  for (const Row& r : rows) {
    std::printf(
        "%-6s %-9s %9.1f %9.1f %6.2f   %9.1f %9.1f %6.2f\n", r.code.c_str(),
        Group(r.code).c_str(), r.bytes_chunks / 1e6 / r.ours_chunks,
        r.bytes_chunks / 1e6 / r.cld2_chunks, r.cld2_chunks / r.ours_chunks,
        r.bytes_whole / 1e6 / r.ours_whole, r.bytes_whole / 1e6 / r.cld2_whole,
        r.cld2_whole / r.ours_whole);
    for (Row* g : {&groups[Group(r.code)], &all}) {
      g->bytes_chunks += r.bytes_chunks;
      g->bytes_whole += r.bytes_whole;
      g->ours_chunks += r.ours_chunks;
      g->cld2_chunks += r.cld2_chunks;
      g->ours_whole += r.ours_whole;
      g->cld2_whole += r.cld2_whole;
    }
  }
  groups["all"] = all;
  std::printf("\nby script group (bytes over summed medians):\n");
  for (const auto& [name, g] : groups) {
    std::printf(
        "%-16s %9.1f %9.1f %6.2f   %9.1f %9.1f %6.2f\n", name.c_str(),
        g.bytes_chunks / 1e6 / g.ours_chunks,
        g.bytes_chunks / 1e6 / g.cld2_chunks, g.cld2_chunks / g.ours_chunks,
        g.bytes_whole / 1e6 / g.ours_whole, g.bytes_whole / 1e6 / g.cld2_whole,
        g.cld2_whole / g.ours_whole);
  }
  return 0;
#endif
}
