// Corpus reading and the evaluation's base candidates (variants.h).
#include <algorithm>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "mime/message.h"
#include "variants/variants.h"

namespace fs = std::filesystem;

namespace mw::variants {

namespace {

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

}  // namespace

fs::path DefaultCorpusDir(const fs::path& source_dir) {
  return source_dir / ".." / "shared" / "data" / "mail";
}

Corpus ReadCorpus(const fs::path& dir) {
  Corpus corpus;
  std::vector<fs::path> files;
  for (const auto& sub : fs::directory_iterator(dir)) {
    if (!sub.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(sub.path())) {
      if (f.is_regular_file()) files.push_back(f.path());
    }
  }
  std::sort(files.begin(), files.end());
  corpus.files = files.size();
  std::set<std::string> seen;
  for (const fs::path& p : files) {
    std::string raw = ReadFile(p);
    auto m = mime::Parse(std::string_view(raw), mime::Limits{});
    if (!m) continue;
    Doc d;
    d.name = p.parent_path().filename().string() + "/" + p.filename().string();
    d.ham = d.name.find("ham") != std::string::npos;
    d.decoded = m->body;
    d.subject = m->subject;
    d.body = mime::Normalise(*m).body;
    if (!seen.insert(d.body).second) continue;  // same body counts once
    corpus.raw[d.name] = std::move(raw);
    corpus.docs.push_back(std::move(d));
  }
  return corpus;
}

std::vector<std::size_t> BaseCandidates(const Corpus& corpus,
                                        std::uint64_t seed) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < corpus.docs.size(); ++i) {
    const std::size_t n = corpus.docs[i].body.size();
    if (n >= 200 && n <= (256u << 10)) out.push_back(i);
  }
  std::mt19937_64 rng(seed);
  std::shuffle(out.begin(), out.end(), rng);
  return out;
}

}  // namespace mw::variants
