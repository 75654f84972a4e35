// Real fingerprints for the gpu tests: the mail fixtures and the dev corpus
// (MW_SOURCE_DIR/../shared/data/mail, absent on some machines), fingerprinted
// as the daemon does (mime::Parse, Normalise, fingerprint::Compute with the
// default options).
#ifndef MW_TESTS_GPU_REAL_SIGNATURES_H_
#define MW_TESTS_GPU_REAL_SIGNATURES_H_

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fingerprint/fingerprint.h"
#include "mime/message.h"

namespace mw::gpu::testing {

// Fingerprints of the message files under `dir` (recursively, in path order),
// at most `limit` of them; empty when `dir` is absent.
inline std::vector<fingerprint::Fingerprint> FingerprintsUnder(
    const std::filesystem::path& dir, std::size_t limit) {
  std::vector<fingerprint::Fingerprint> out;
  if (!std::filesystem::is_directory(dir)) return out;
  mime::Init();
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name != "SOURCE.txt" &&
        e.path().extension() != ".expected")
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  if (files.size() > limit) files.resize(limit);
  for (const auto& p : files) {
    std::ifstream in(p, std::ios::binary);
    const std::string raw((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
    auto parsed = mime::Parse(std::string_view(raw), mime::Limits{});
    if (!parsed) continue;
    out.push_back(fingerprint::Compute(mime::Normalise(*parsed).body,
                                       fingerprint::Options{}));
  }
  return out;
}

inline std::filesystem::path CorpusDir() {
  return std::filesystem::path(MW_SOURCE_DIR) / ".." / "shared" / "data" /
         "mail";
}
inline std::filesystem::path FixtureDir() {
  return std::filesystem::path(MW_SOURCE_DIR) / "tests" / "fixtures" / "mail";
}

}  // namespace mw::gpu::testing

#endif  // MW_TESTS_GPU_REAL_SIGNATURES_H_
