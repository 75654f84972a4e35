// Helpers shared by the pipeline tests: settings that find the dictionary the
// build made, real fixture messages, and a store in a temporary directory.
#ifndef MW_TESTS_PIPELINE_TESTUTIL_H_
#define MW_TESTS_PIPELINE_TESTUTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

#include "config/config.h"
#include "pipeline/analysis.h"
#include "store/sqlite.h"

namespace mw::pipeline::testing {

inline config::Settings TestSettings() {
  config::Settings s;
  s.langid.dictionary =
      std::string(MW_BINARY_DIR) + "/share/mailwave/langid.dict";
  return s;
}

inline std::shared_ptr<const Analyzer> TestAnalyzer(
    const config::Settings& settings = TestSettings()) {
  auto a = Analyzer::Create(settings);
  EXPECT_TRUE(a.has_value()) << (a ? "" : a.error().message());
  return a ? *a : nullptr;
}

// An envelope with every field named (GCC's -Wmissing-field-initializers
// warns on designated initialisers that leave some out).
inline Envelope Env(std::string sender, std::string queue_id = "",
                    std::vector<std::string> recipients = {},
                    std::string client_ip = "") {
  Envelope e;
  e.sender = std::move(sender);
  e.queue_id = std::move(queue_id);
  e.recipients = std::move(recipients);
  e.client_ip = std::move(client_ip);
  return e;
}

// The message with one word of its body replaced and a Message-ID of its
// own: a near-duplicate copy number `i`.
inline std::string Variant(const std::string& bytes, int i) {
  std::string v = bytes;
  const auto body = v.find("\n\n");
  const auto p = v.find(" the ", body);
  if (p != std::string::npos) v.replace(p, 5, " a" + std::to_string(i) + " ");
  return "Message-ID: <v" + std::to_string(i) + "@example.org>\n" + v;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string Fixture(const std::string& name) {
  return ReadFile(std::string(MW_SOURCE_DIR) + "/tests/fixtures/mail/" + name);
}

// A directory under /tmp removed with everything in it at destruction.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/mw-pipeline-XXXXXX";
    const char* d = mkdtemp(tmpl);
    EXPECT_NE(d, nullptr);
    path_ = d ? d : "/tmp";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A SQLite store at DIR/mailwave.db, default options; null (with a test
// failure) when it cannot be opened.
inline std::unique_ptr<store::Store> OpenStore(const std::string& dir) {
  store::SqliteOptions o;
  o.path = dir + "/mailwave.db";
  auto s = store::OpenSqlite(o);
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().message());
  return s ? std::move(*s) : nullptr;
}

}  // namespace mw::pipeline::testing

#endif  // MW_TESTS_PIPELINE_TESTUTIL_H_
