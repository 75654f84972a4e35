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

// Every message file under `dir` (SOURCE.txt files name the sources).
std::vector<fs::path> CorpusFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "SOURCE.txt")
      files.push_back(e.path());
  }
  return files;
}

std::string ReadFile(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Corpus, EveryMessageExtracts) {
  const fs::path dir = CorpusDir();
  if (!fs::is_directory(dir)) {
    GTEST_SKIP() << "dev corpus not found at " << dir
                 << " (../shared is absent)";
  }
  const std::vector<fs::path> files = CorpusFiles(dir);
  ASSERT_GT(files.size(), 1000u);
  size_t with_text = 0;
  size_t with_parts = 0;
  for (const auto& f : files) {
    auto msg = Parse(ReadFile(f), Limits{});
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

// Limits::parser_warnings only adds GMime's "parser:" diagnostics (and the
// truncation GMime reports): with it off, as the daemon runs, every corpus
// message gives the same subject, text and parts, and the same warnings of
// mailwave's own.
TEST(Corpus, ParserWarningsChangeNothingElse) {
  const fs::path dir = CorpusDir();
  if (!fs::is_directory(dir)) {
    GTEST_SKIP() << "dev corpus not found at " << dir
                 << " (../shared is absent)";
  }
  Limits asked;
  asked.parser_warnings = true;
  const std::vector<fs::path> files = CorpusFiles(dir);
  std::size_t with_parser_warnings = 0;
  for (const fs::path& f : files) {
    const std::string raw = ReadFile(f);
    auto with = Parse(raw, asked);
    auto without = Parse(raw, Limits{});
    ASSERT_TRUE(with.has_value() && without.has_value()) << f;
    std::vector<std::string> own;
    for (const std::string& w : with->warnings) {
      if (!w.starts_with("parser: ")) own.push_back(w);
    }
    if (own.size() != with->warnings.size()) ++with_parser_warnings;
    EXPECT_EQ(without->warnings, own) << f;
    EXPECT_EQ(without->subject, with->subject) << f;
    EXPECT_EQ(without->body, with->body) << f;
    EXPECT_EQ(without->message_id, with->message_id) << f;
    EXPECT_EQ(without->from, with->from) << f;
    ASSERT_EQ(without->parts.size(), with->parts.size()) << f;
    for (std::size_t i = 0; i < with->parts.size(); ++i) {
      const Part& a = without->parts[i];
      const Part& b = with->parts[i];
      EXPECT_TRUE(a.path == b.path && a.content_type == b.content_type &&
                  a.charset_used == b.charset_used && a.size == b.size &&
                  a.filename == b.filename && a.sha1 == b.sha1)
          << f << " part " << b.path;
    }
  }
  // The corpus has messages GMime warns about (89 of 3,784 in 2026-11).
  EXPECT_GT(with_parser_warnings, 10u) << "of " << files.size();
}

}  // namespace
}  // namespace mw::mime
