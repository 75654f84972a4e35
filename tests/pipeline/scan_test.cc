// The archive scan on real messages (tests/fixtures/mail) and variants made
// from them here: copies, inserted text and shuffled paragraphs cluster with
// their original; distinct messages stay alone; a chain does not merge its
// ends.
#include "pipeline/scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "fingerprint/fingerprint.h"
#include "fingerprint/verify.h"
#include "tests/pipeline/testutil.h"

namespace mw::pipeline {
namespace {

using testing::Fixture;
using testing::TempDir;

std::string Body(const std::string& message) {
  const std::size_t blank = message.find("\n\n");
  return message.substr(blank + 2);
}

std::string Message(const std::string& body, int hour, const std::string& id) {
  return "From: Sender <sender@example.org>\nTo: rcpt@example.org\n"
         "Subject: scan test\nDate: Tue, 08 Oct 2002 " +
         std::to_string(10 + hour) + ":00:00 +0000\nMessage-ID: <" + id +
         "@example.org>\nMIME-Version: 1.0\n"
         "Content-Type: text/plain; charset=us-ascii\n\n" +
         body;
}

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::vector<std::string> Paragraphs(const std::string& body) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < body.size()) {
    std::size_t end = body.find("\n\n", pos);
    end = end == std::string::npos ? body.size() : end + 2;
    out.push_back(body.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

// `body` with most words of [from, to) (fractions of its length) replaced by
// random letters of the same length.
std::string Respell(const std::string& body, double from, double to,
                    std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string out = body;
  const auto begin = static_cast<std::size_t>(from * body.size());
  const auto end = static_cast<std::size_t>(to * body.size());
  bool in_word = false;
  bool change = false;
  for (std::size_t i = begin; i < end; ++i) {
    const bool letter = std::isalpha(static_cast<unsigned char>(out[i]));
    if (letter && !in_word) change = rng() % 10 < 8;
    in_word = letter;
    if (letter && change) out[i] = static_cast<char>('a' + rng() % 26);
  }
  return out;
}

ScanReport RunScan(const std::vector<std::string>& paths,
                   const ScanOptions& options = {}) {
  auto analyzer = testing::TestAnalyzer();
  const archive::Listing listing = archive::List(paths);
  EXPECT_TRUE(listing.problems.empty());
  auto report = Scan(*analyzer, listing.entries, options);
  EXPECT_TRUE(report) << report.error().ToString();
  return report ? std::move(*report) : ScanReport{};
}

const ScannedMessage& Find(const ScanReport& r, const std::string& path) {
  for (const ScannedMessage& m : r.messages) {
    if (m.path == path) return m;
  }
  ADD_FAILURE() << path << " not scanned";
  static const ScannedMessage kNone;
  return kNone;
}

TEST(Scan, ClustersCopiesInsertionsAndShufflesAroundTheEarliest) {
  TempDir t;
  const std::string base = Body(Fixture("fp-faq-a.eml"));
  std::vector<std::string> paras = Paragraphs(base);
  ASSERT_GE(paras.size(), 6u);
  std::string inserted;
  for (std::size_t i = 0; i < paras.size(); ++i) {
    inserted += paras[i];
    if (i == paras.size() / 2) {
      inserted +=
          "Act now: this offer expires at midnight, and only the first "
          "hundred readers will get the bonus pack.\n\n";
    }
  }
  std::string shuffled;
  std::mt19937_64 rng(7);
  std::shuffle(paras.begin(), paras.end(), rng);
  for (const std::string& p : paras) shuffled += p;
  const std::string d = t.path();
  // Written out of time order: the canonical is the earliest by Date.
  Write(d + "/1-copy.eml", Message(base, 3, "copy"));
  Write(d + "/2-inserted.eml", Message(inserted, 2, "inserted"));
  Write(d + "/3-shuffled.eml", Message(shuffled, 4, "shuffled"));
  Write(d + "/4-original.eml", Message(base, 1, "original"));
  Write(d + "/5-template.eml", Fixture("fp-template-a.eml"));
  Write(d + "/6-utf8.eml", Fixture("charset-utf-8.eml"));
  Write(d + "/7-7bit.eml", Fixture("encoding-7bit.eml"));
  ScanOptions options;
  options.threads = 2;
  // Asked for by name, so the report's backend is the one asked for on any
  // host, with a GPU or without (kAuto would pick a device where there is one).
  options.backend = gpu::Backend::kCpu;
  const ScanReport r = RunScan({d}, options);
  ASSERT_EQ(r.messages.size(), 7u);
  ASSERT_EQ(r.clusters.size(), 1u);
  const ScanCluster& c = r.clusters[0];
  EXPECT_EQ(r.messages[c.canonical].path, d + "/4-original.eml");
  EXPECT_EQ(c.members.size(), 4u);
  const ScannedMessage& original = Find(r, d + "/4-original.eml");
  EXPECT_TRUE(original.is_canonical);
  EXPECT_EQ(original.message_id, "original@example.org");
  EXPECT_EQ(original.similarity, 1.0);
  const ScannedMessage& copy = Find(r, d + "/1-copy.eml");
  EXPECT_EQ(copy.cluster, 0u);
  EXPECT_FALSE(copy.is_canonical);
  EXPECT_EQ(copy.method, "exact");
  EXPECT_EQ(copy.similarity, 1.0);
  for (const char* name : {"/2-inserted.eml", "/3-shuffled.eml"}) {
    const ScannedMessage& m = Find(r, d + name);
    EXPECT_EQ(m.cluster, 0u) << name;
    EXPECT_FALSE(m.method.empty()) << name;
    ASSERT_TRUE(m.similarity) << name;
    EXPECT_GT(*m.similarity, 0.5) << name;
  }
  for (const char* name : {"/5-template.eml", "/6-utf8.eml", "/7-7bit.eml"}) {
    const ScannedMessage& m = Find(r, d + name);
    EXPECT_FALSE(m.cluster) << name;
    EXPECT_FALSE(m.is_canonical) << name;
    EXPECT_FALSE(m.similarity) << name;
    EXPECT_EQ(m.method, "") << name;
  }
  EXPECT_EQ(r.meta.messages, 7u);
  EXPECT_EQ(r.meta.clustered, 4u);
  EXPECT_GE(r.meta.pairs_exact, 1u);
  EXPECT_EQ(r.meta.backend, "cpu");
}

TEST(Scan, AChainOfEditsDoesNotMergeItsEnds) {
  // B respells most words of the first half of A, C those of the second
  // half of B: A ~ B and B ~ C by text edit rate, A !~ C.
  TempDir t;
  const std::string a = Body(Fixture("fp-faq-b.eml"));
  const std::string b = Respell(a, 0.0, 0.5, 1);
  const std::string c = Respell(b, 0.5, 1.0, 2);
  auto analyzer = testing::TestAnalyzer();
  auto text = [&](const std::string& body) {
    return ToText(Message(body, 0, "x"), false, analyzer->mime_limits())->body;
  };
  const std::string ta = text(a), tb = text(b), tc = text(c);
  const fingerprint::Options& fo = analyzer->fingerprint_options();
  const auto fa = fingerprint::Compute(ta, fo),
             fc = fingerprint::Compute(tc, fo);
  // The premise of the test, checked rather than assumed, at a text
  // threshold above the default (the chain needs two text joins).
  ScanOptions options;
  options.text_threshold = 0.2;
  ASSERT_LT(fingerprint::TextEditRate(ta, tb), options.text_threshold);
  ASSERT_LT(fingerprint::TextEditRate(tb, tc), options.text_threshold);
  ASSERT_GE(fingerprint::TextEditRate(ta, tc), options.text_threshold);
  ASSERT_FALSE(fingerprint::Compare(fa, fc, fo).duplicate);

  const std::string d = t.path();
  Write(d + "/a.eml", Message(a, 1, "a"));
  Write(d + "/b.eml", Message(b, 2, "b"));
  Write(d + "/c.eml", Message(c, 3, "c"));
  const ScanReport r = RunScan({d}, options);
  const ScannedMessage& ma = Find(r, d + "/a.eml");
  const ScannedMessage& mb = Find(r, d + "/b.eml");
  const ScannedMessage& mc = Find(r, d + "/c.eml");
  EXPECT_TRUE(ma.is_canonical);
  EXPECT_EQ(mb.cluster, ma.cluster);
  EXPECT_EQ(mb.method, "text");
  EXPECT_FALSE(mc.cluster) << "C joined A's cluster through B";
  EXPECT_EQ(r.clusters.size(), 1u);
  EXPECT_GE(r.meta.cluster_verifications, 1u);  // C was checked against A
}

TEST(Scan, ReportsUnreadableMessagesAndGoesOn) {
  TempDir t;
  const std::string d = t.path();
  Write(d + "/a.eml", Fixture("encoding-7bit.eml"));
  Write(d + "/b.eml", Fixture("charset-utf-8.eml"));
  auto analyzer = testing::TestAnalyzer();
  const std::vector<std::string> paths = {d};
  archive::Listing listing = archive::List(paths);
  ASSERT_EQ(listing.entries.size(), 2u);
  std::filesystem::remove(d + "/a.eml");  // gone between listing and reading
  auto r = Scan(*analyzer, listing.entries, {});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->messages.size(), 1u);
  EXPECT_EQ(r->messages[0].path, d + "/b.eml");
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_EQ(r->problems[0].path, d + "/a.eml");
  EXPECT_EQ(r->meta.unreadable, 1u);
}

TEST(Scan, WithoutADeviceCudaFailsAsAValue) {
  auto analyzer = testing::TestAnalyzer();
  ScanOptions options;
  options.backend = gpu::Backend::kCuda;
  auto made = gpu::MakeEngine(gpu::Backend::kCuda);
  if (made) GTEST_SKIP() << "a CUDA device is present";
  auto r = Scan(*analyzer, {}, options);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), Error::Code::kUnavailable);
}

}  // namespace
}  // namespace mw::pipeline
