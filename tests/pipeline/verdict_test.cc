// The wave decision (canonical first, then the other candidates) and the
// header values, on fingerprints of real text.
#include "pipeline/verdict.h"

#include <gtest/gtest.h>

// GCC 12 at -O1 with the sanitizers (the ASan build) warns that libstdc++'s
// own regex automaton may use a std::function uninitialised: a false positive
// inside the standard library. The warning is issued after inlining, where a
// push/pop around the include does not reach, so it is off for this file.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <fstream>
#include <regex>
#include <string>

#include "fingerprint/fingerprint.h"
#include "mime/message.h"

namespace mw::pipeline {
namespace {

// A few paragraphs of ordinary prose; variants change single sentences.
std::string Base() {
  return mime::NormaliseText(
      "Thank you for your order of the garden chairs. They will leave our "
      "warehouse on Monday morning.\n"
      "The delivery company will call you the day before to agree on a "
      "time that suits you.\n"
      "If you are not at home, the driver leaves a card with a number to "
      "call for a new date.\n"
      "Please keep the packaging until you have checked that nothing was "
      "damaged on the way.\n"
      "Our customer service answers every working day from eight in the "
      "morning until six in the evening.\n"
      "We hope you will enjoy many summer evenings in your new chairs.\n"
      "With kind regards, the team of the garden shop on the corner of the "
      "market square.\n");
}

std::string Unrelated() {
  return mime::NormaliseText(
      "The committee meets on Thursday to discuss the budget for next "
      "year.\nMembers who cannot attend may send their comments by letter "
      "before Wednesday noon.\nThe minutes of the last meeting are attached "
      "and will be approved first.\nCoffee will be served in the hall from "
      "half past nine.\n");
}

std::string Replace(std::string s, const std::string& from,
                    const std::string& to) {
  const auto p = s.find(from);
  EXPECT_NE(p, std::string::npos) << from;
  if (p != std::string::npos) s.replace(p, from.size(), to);
  return s;
}

fingerprint::Fingerprint Fp(const std::string& text) {
  return fingerprint::Compute(text, fingerprint::Options{});
}

store::Candidate Cand(std::int64_t id, store::ClusterId cluster,
                      const std::string& text) {
  return {.id = id, .cluster = cluster, .fingerprint = Fp(text)};
}

store::Cluster ClusterOf(store::ClusterId id, std::int64_t canonical) {
  store::Cluster c;
  c.id = id;
  c.canonical = canonical;
  c.size = 2;
  return c;
}

TEST(Decide, NothingToCompare) {
  EXPECT_FALSE(Decide(Fp(Base()), {}, {}).has_value());
}

TEST(Decide, EmptyBodyMatchesNothing) {
  store::Lookup l;
  l.candidates.push_back(Cand(1, 7, ""));
  l.clusters.push_back({ClusterOf(7, 1), Fp("")});
  EXPECT_FALSE(Decide(Fp(""), l, {}).has_value());
}

TEST(Decide, UnrelatedCandidatesDoNotMatch) {
  store::Lookup l;
  l.candidates.push_back(Cand(1, 7, Unrelated()));
  l.clusters.push_back({ClusterOf(7, 1), Fp(Unrelated())});
  EXPECT_FALSE(Decide(Fp(Base()), l, {}).has_value());
}

TEST(Decide, ExactCopyOfCanonical) {
  store::Lookup l;
  l.candidates.push_back(Cand(1, 7, Base()));
  l.clusters.push_back({ClusterOf(7, 1), Fp(Base())});
  const auto m = Decide(Fp(Base()), l, {});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->cluster, 7u);
  EXPECT_TRUE(m->canonical);
  EXPECT_EQ(m->comparison.method, fingerprint::Method::kExact);
}

// A chain of edits: cluster 7's newest member has drifted far from its
// canonical and happens to resemble the query; cluster 9's canonical is the
// query's own original. The query joins 9, although 7's member ranks first.
TEST(Decide, CanonicalFirstStopsDrift) {
  const std::string query =
      Replace(Base(), "monday morning", "tuesday afternoon");
  store::Lookup l;
  l.candidates.push_back(Cand(5, 7, query));  // ranks first, drifted cluster
  l.candidates.push_back(Cand(2, 9, Base()));
  l.clusters.push_back({ClusterOf(7, 4), Fp(Unrelated())});
  l.clusters.push_back({ClusterOf(9, 2), Fp(Base())});
  const auto m = Decide(Fp(query), l, {});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->cluster, 9u);
  EXPECT_TRUE(m->canonical);
  EXPECT_EQ(m->message, 2);
}

// No canonical matches: the best other candidate decides.
TEST(Decide, FallsBackToOtherMembers) {
  const std::string member = Replace(Base(), "garden chairs", "deck chairs");
  const std::string query = Replace(member, "eight in the", "nine in the");
  store::Lookup l;
  l.candidates.push_back(Cand(8, 7, member));
  l.clusters.push_back({ClusterOf(7, 3), Fp(Unrelated())});
  const auto m = Decide(Fp(query), l, {});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->cluster, 7u);
  EXPECT_FALSE(m->canonical);
  EXPECT_EQ(m->message, 8);
  EXPECT_TRUE(m->comparison.duplicate);
}

// A cluster whose canonical was pruned (nullopt) is still reachable through
// its members.
TEST(Decide, PrunedCanonical) {
  store::Lookup l;
  l.candidates.push_back(Cand(8, 7, Base()));
  l.clusters.push_back({ClusterOf(7, 3), std::nullopt});
  const auto m = Decide(Fp(Base()), l, {});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->cluster, 7u);
  EXPECT_FALSE(m->canonical);
}

const std::regex& WaveGrammar() {
  static const std::regex re(
      "dup=(exact|near); "
      "method=(exact|blocks|containment|trailer|reordered|ctph|simhash|words); "
      "sim=[01]\\.[0-9]{2}; cluster=[0-9a-f]{8}; size=[0-9]+; "
      "senders=[0-9]+; "
      "first=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z; "
      "rcpts=[0-9]+; networks=[0-9]+; kind=(bulk|spread); "
      "why=(allow|ham|spam|auth|unauth|senders|networks); "
      "wave=(yes|no)");
  return re;
}

// The wave header's regular expression as docs/waves.md gives it to
// administrators (the line in its grammar block that starts "^dup=").
std::string DocumentedWaveGrammar() {
  std::ifstream in(std::string(MW_SOURCE_DIR) + "/docs/waves.md");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("^dup=")) return line;
  }
  return {};
}

TEST(Headers, WaveValueAsDocumented) {
  WaveVerdict v{.method = fingerprint::Method::kBlocks,
                .similarity = 0.9371,
                .cluster = 0x7f3a9c21,
                .size = 148,
                .senders = 97,
                .first_seen = 1763802843000,  // 2025-11-22T09:14:03Z
                .wave = true};
  v.recipients = 150;
  v.networks = 41;
  v.kind = WaveKind::kSpread;
  v.reason = WaveReason::kSenders;
  EXPECT_EQ(WaveHeaderValue(v),
            "dup=near; method=blocks; sim=0.93; cluster=7f3a9c21; size=148; "
            "senders=97; first=2025-11-22T09:14:03Z; rcpts=150; networks=41; "
            "kind=spread; why=senders; wave=yes");
  EXPECT_TRUE(std::regex_match(WaveHeaderValue(v), WaveGrammar()));
  v.method = fingerprint::Method::kExact;
  v.similarity = 1;
  v.cluster = 0x1;
  v.wave = false;
  const std::string exact = WaveHeaderValue(v);
  EXPECT_TRUE(
      exact.starts_with("dup=exact; method=exact; sim=1.00; "
                        "cluster=00000001;"))
      << exact;
  EXPECT_TRUE(std::regex_match(exact, WaveGrammar()));
}

// Every header the code can emit: each method, each kind with each reason,
// wave or not, through the expression administrators copy from the docs.
TEST(Headers, DocumentedGrammarMatchesEveryHeader) {
  const std::string documented = DocumentedWaveGrammar();
  ASSERT_FALSE(documented.empty()) << "no ^dup= line in docs/waves.md";
  const std::regex re(documented, std::regex::extended);
  using fingerprint::Method;
  const Method methods[] = {Method::kExact,       Method::kBlocks,
                            Method::kContainment, Method::kTrailer,
                            Method::kReordered,   Method::kCtph,
                            Method::kSimHash,     Method::kWords};
  const WaveReason reasons[] = {WaveReason::kAllowed,
                                WaveReason::kHam,
                                WaveReason::kSpam,
                                WaveReason::kAuthenticated,
                                WaveReason::kUnauthenticated,
                                WaveReason::kSenders,
                                WaveReason::kNetworks};
  int checked = 0;
  for (Method m : methods) {
    for (WaveKind k : {WaveKind::kBulk, WaveKind::kSpread}) {
      for (WaveReason r : reasons) {
        for (bool wave : {false, true}) {
          const WaveVerdict v{.method = m,
                              .similarity = m == Method::kExact ? 1.0 : 0.87,
                              .cluster = 0xffffffff,
                              .size = 1234567,
                              .senders = 0,
                              .first_seen = 0,
                              .recipients = 99999,
                              .networks = 12,
                              .kind = k,
                              .reason = r,
                              .wave = wave};
          const std::string value = WaveHeaderValue(v);
          EXPECT_TRUE(std::regex_match(value, re)) << value;
          EXPECT_TRUE(std::regex_match(value, WaveGrammar())) << value;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 8 * 2 * 7 * 2);
}

TEST(Kind, TheSitesWordBeforeTheCounts) {
  KindFacts f{.allowed = true,
              .mark = store::Mark::kSpam,
              .authenticated = false,
              .authenticated_senders = 40,
              .networks = 40,
              .bulk_networks = 3};
  EXPECT_EQ(DecideKind(f),
            std::make_pair(WaveKind::kBulk, WaveReason::kAllowed));
  f.allowed = false;
  EXPECT_EQ(DecideKind(f),
            std::make_pair(WaveKind::kSpread, WaveReason::kSpam));
  f.mark = store::Mark::kHam;
  EXPECT_EQ(DecideKind(f), std::make_pair(WaveKind::kBulk, WaveReason::kHam));
}

TEST(Kind, CountsDecideWithoutAWord) {
  KindFacts f{.authenticated = true,
              .authenticated_senders = 1,
              .networks = 1,
              .bulk_networks = 3};
  EXPECT_EQ(DecideKind(f),
            std::make_pair(WaveKind::kBulk, WaveReason::kAuthenticated));
  f.networks = 3;
  EXPECT_EQ(DecideKind(f).first, WaveKind::kBulk);
  f.networks = 4;
  EXPECT_EQ(DecideKind(f),
            std::make_pair(WaveKind::kSpread, WaveReason::kNetworks));
  f.networks = 1;
  f.authenticated_senders = 2;
  EXPECT_EQ(DecideKind(f),
            std::make_pair(WaveKind::kSpread, WaveReason::kSenders));
  // One identity, but this copy proves nothing: a forger sending the
  // brand's newsletter text from its own hosts.
  f.authenticated_senders = 1;
  f.authenticated = false;
  EXPECT_EQ(DecideKind(f),
            std::make_pair(WaveKind::kSpread, WaveReason::kUnauthenticated));
}

TEST(Headers, SimilarityNeverRoundsUpToOne) {
  WaveVerdict v{.method = fingerprint::Method::kBlocks,
                .similarity = 0.999,
                .cluster = 5};
  EXPECT_NE(WaveHeaderValue(v).find("sim=0.99;"), std::string::npos);
}

TEST(Headers, LanguageValue) {
  langid::Language l;
  l.code = "en";
  l.score = 87.4;
  EXPECT_EQ(LanguageHeaderValue(l), "en; score=87; bilingual=no");
  l.code = "en+es";
  l.bilingual = true;
  EXPECT_EQ(LanguageHeaderValue(l), "en+es; score=87; bilingual=yes");
  const std::regex re(
      "([a-z]{2,3}(-Han[st])?(\\+[a-z]{2,3}(-Han[st])?)?|und); score=[0-9]+; "
      "bilingual=(yes|no)");
  EXPECT_TRUE(std::regex_match(LanguageHeaderValue(l), re));
  l.code = "en+zh-Hant";  // Chinese names its script when it can
  EXPECT_TRUE(std::regex_match(LanguageHeaderValue(l), re));
  l = langid::Language{};
  EXPECT_EQ(LanguageHeaderValue(l), "und; score=0; bilingual=no");
  EXPECT_TRUE(std::regex_match(LanguageHeaderValue(l), re));
}

TEST(Headers, SimilarityPerMethod) {
  fingerprint::Comparison c;
  c.method = fingerprint::Method::kExact;
  EXPECT_EQ(Similarity(c), 1.0);
  c.method = fingerprint::Method::kBlocks;
  c.similarity = 0.8;
  EXPECT_EQ(Similarity(c), 0.8);
  c.method = fingerprint::Method::kCtph;
  c.edit_rate = 0.25;
  EXPECT_EQ(Similarity(c), 0.75);
  c.method = fingerprint::Method::kSimHash;
  c.hamming = 16;
  EXPECT_EQ(Similarity(c), 0.75);
}

TEST(Headers, FormatTime) {
  EXPECT_EQ(FormatTime(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatTime(1763802843999), "2025-11-22T09:14:03Z");
}

}  // namespace
}  // namespace mw::pipeline
