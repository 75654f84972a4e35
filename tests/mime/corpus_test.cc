// Every message of the dev corpus (../shared/data/mail) extracts: no crash, no
// hang, no sanitizer report, valid UTF-8 out, and text found in nearly all of
// them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mime/message.h"

namespace mw::mime {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() {
  return fs::path(MW_SOURCE_DIR) / ".." / "shared" / "data" / "mail";
}

TEST(Corpus, EveryMessageExtracts) {
  const fs::path dir = CorpusDir();
  if (!fs::is_directory(dir)) {
    GTEST_SKIP() << "dev corpus not found at " << dir
                 << " (../shared is absent)";
  }
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "SOURCE.txt")
      files.push_back(e.path());
  }
  ASSERT_GT(files.size(), 1000u);
  size_t with_text = 0;
  size_t with_parts = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    auto msg = Parse(ss.str(), Limits{});
    ASSERT_TRUE(msg.has_value()) << f << ": " << msg.error().ToString();
    const Text text = Normalise(*msg);
    // Normalised text is a fixed point of normalisation, which also proves it
    // is valid UTF-8.
    ASSERT_EQ(NormaliseText(text.body), text.body) << f;
    if (!text.body.empty()) ++with_text;
    if (!msg->parts.empty()) ++with_parts;
  }
  EXPECT_EQ(with_parts, files.size());
  // A handful of corpus messages are attachment-only; text must come out of all
  // the rest.
  EXPECT_GE(with_text * 100, files.size() * 99)
      << with_text << " of " << files.size();
}

}  // namespace
}  // namespace mw::mime
