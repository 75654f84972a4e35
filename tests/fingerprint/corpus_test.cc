// The fast paths of mw::fingerprint against their references on every message
// of the dev corpus (../shared/data/mail; skipped when it is absent): the raw
// message bytes, the normalised body and the folded body each go through both
// and must give identical results. Under a sanitizer (MW_TEST_SANITIZED) every
// third message (tests/CMakeLists.txt says why).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fingerprint/blocks.h"
#include "fingerprint/ctph.h"
#include "fingerprint/fold.h"
#include "fingerprint/simhash.h"
#include "mime/message.h"
#include "reference_simhash.h"

namespace mw::fingerprint {
namespace {

namespace fs = std::filesystem;

// The corpus messages read: every one, or every third under a sanitizer.
constexpr std::size_t kStride = MW_TEST_SANITIZED ? 3 : 1;

struct Message {
  std::string path;
  std::string raw;
  std::string body;    // mime::Normalise(...).body
  std::string folded;  // Fold(body) with the default folds
};

// The corpus, read once; empty when it is absent.
const std::vector<Message>& Corpus() {
  static const std::vector<Message> corpus = [] {
    std::vector<Message> out;
    const fs::path dir =
        fs::path(MW_SOURCE_DIR) / ".." / "shared" / "data" / "mail";
    if (!fs::is_directory(dir)) return out;
    mime::Init();
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (e.is_regular_file() && e.path().filename() != "SOURCE.txt")
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (std::size_t i = 0; i < files.size(); i += kStride) {
      const fs::path& p = files[i];
      Message m;
      m.path = p.string();
      std::ifstream in(p, std::ios::binary);
      m.raw.assign(std::istreambuf_iterator<char>(in),
                   std::istreambuf_iterator<char>());
      auto parsed = mime::Parse(std::string_view(m.raw), mime::Limits{});
      if (parsed) m.body = mime::Normalise(*parsed).body;
      m.folded = Fold(m.body, FoldOptions{});
      out.push_back(std::move(m));
    }
    return out;
  }();
  return corpus;
}

#define MW_REQUIRE_CORPUS()                                       \
  if (Corpus().empty()) {                                         \
    GTEST_SKIP() << "dev corpus not found under " MW_SOURCE_DIR   \
                    "/../shared/data/mail (../shared is absent)"; \
  }                                                               \
  ASSERT_GT(Corpus().size(), 1000u)

TEST(Corpus, FoldSameAsTheGeneralPath) {
  MW_REQUIRE_CORPUS();
  for (const Message& m : Corpus()) {
    for (const std::string* text : {&m.raw, &m.body}) {
      ASSERT_EQ(Fold(*text, FoldOptions{}),
                TEST_FoldLines(*text, FoldOptions{}))
          << m.path;
    }
  }
}

TEST(Corpus, CtphSameAsLibfuzzy) {
  MW_REQUIRE_CORPUS();
  for (const Message& m : Corpus()) {
    for (const std::string* text : {&m.raw, &m.body, &m.folded}) {
      ASSERT_EQ(ToString(ComputeCtph(*text)),
                ToString(TEST_ComputeCtphLibfuzzy(*text)))
          << m.path;
    }
  }
}

TEST(Corpus, SentencesSameAsIcu) {
  MW_REQUIRE_CORPUS();
  std::size_t sentences = 0;
  for (const Message& m : Corpus()) {
    for (const std::string* text : {&m.raw, &m.body, &m.folded}) {
      const std::vector<std::string> ours = SplitSentences(*text);
      ASSERT_EQ(ours, TEST_SplitSentencesIcu(*text)) << m.path;
      sentences += ours.size();
    }
  }
  EXPECT_GT(sentences, 100000u / kStride);
}

TEST(Corpus, ComputeBlocksSameAsHashingTheSplitStrings) {
  MW_REQUIRE_CORPUS();
  for (const Message& m : Corpus()) {
    for (const std::string* text : {&m.raw, &m.body, &m.folded}) {
      const BlockList sentences = ComputeBlocks(*text, BlockKind::kSentences);
      const BlockList ref_sentences =
          HashBlocks(SplitSentences(*text), BlockKind::kSentences);
      ASSERT_EQ(sentences.hashes, ref_sentences.hashes) << m.path;
      ASSERT_EQ(sentences.keys, ref_sentences.keys) << m.path;
      const BlockList lines = ComputeBlocks(*text, BlockKind::kParagraphs);
      const BlockList ref_lines =
          HashBlocks(SplitParagraphs(*text), BlockKind::kParagraphs);
      ASSERT_EQ(lines.hashes, ref_lines.hashes) << m.path;
      ASSERT_EQ(lines.keys, ref_lines.keys) << m.path;
    }
  }
}

TEST(Corpus, SimHashAndWordBagSameAsThePlainDefinition) {
  MW_REQUIRE_CORPUS();
  for (const Message& m : Corpus()) {
    for (const std::string* text : {&m.raw, &m.body, &m.folded}) {
      const WordHashes ours = ComputeWordHashes(*text);
      const WordHashes ref = testing::ReferenceWordHashes(*text);
      ASSERT_EQ(ours.simhash, ref.simhash) << m.path;
      ASSERT_EQ(ours.word_bag, ref.word_bag) << m.path;
      ASSERT_EQ(TEST_ComputeWordHashesSorted(*text).simhash, ref.simhash)
          << m.path;
      ASSERT_EQ(ComputeWordBag(*text), ours.word_bag) << m.path;
    }
  }
}

}  // namespace
}  // namespace mw::fingerprint
