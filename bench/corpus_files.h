// The raw files of the development corpus, for the benchmarks: every regular
// file under MW_MAIL_DIR, else MW_SOURCE_DIR/../shared/data/mail, in path
// order (SOURCE.txt excepted). Empty when the corpus is absent; each program
// says so and stops.
#ifndef MW_BENCH_CORPUS_FILES_H_
#define MW_BENCH_CORPUS_FILES_H_

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mw::bench {

inline std::vector<std::string> CorpusFiles() {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  const char* env = std::getenv("MW_MAIL_DIR");
  const fs::path dir =
      env ? fs::path(env) : fs::path(MW_SOURCE_DIR) / ".." / "shared/data/mail";
  if (!fs::is_directory(dir)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "SOURCE.txt")
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    out.push_back(ss.str());
  }
  return out;
}

}  // namespace mw::bench

#endif  // MW_BENCH_CORPUS_FILES_H_
