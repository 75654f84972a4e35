// pipeline::Check against a real SQLite store in a temporary directory: waves
// grow, hams stay untagged, clusters survive a restart, and a store that fails
// leaves the message untagged.
#include "pipeline/check.h"

#include <gtest/gtest.h>

#include <barrier>
#include <chrono>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "store/sqlite.h"
#include "testutil.h"

namespace mw::pipeline {
namespace {

using testing::Env;
using testing::Fixture;
using testing::OpenStore;
using testing::TempDir;
using testing::TestAnalyzer;
using testing::TestSettings;
using testing::Variant;

constexpr store::UnixMillis kT0 = 1'790'000'000'000;  // 2026-09-21
constexpr store::UnixMillis kMinute = 60'000;


const Header* Find(const Outcome& o, std::string_view name) {
  for (const Header& h : o.headers)
    if (h.name == name) return &h;
  return nullptr;
}

TEST(Check, WaveGrowsAndBecomesAWave) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer();
  ASSERT_TRUE(db && analyzer);
  const std::string base = Fixture("fp-faq-a.eml");
  std::optional<store::ClusterId> cluster;
  for (int i = 0; i < 6; ++i) {
    auto o = Check(*analyzer, db.get(), Variant(base, i),
                   Env("s@example" + std::to_string(i % 3) + ".org",
                       "Q" + std::to_string(i)),
                   {.now = kT0 + i * kMinute});
    ASSERT_TRUE(o.has_value());
    ASSERT_TRUE(o->cluster.has_value());
    ASSERT_NE(Find(*o, kLanguageHeader), nullptr);
    EXPECT_EQ(Find(*o, kLanguageHeader)->value.substr(0, 4), "en; ");
    if (i == 0) {
      cluster = o->cluster;
      EXPECT_EQ(Find(*o, kWaveHeader), nullptr);  // first of its kind
      continue;
    }
    EXPECT_EQ(o->cluster, cluster);
    const Header* w = Find(*o, kWaveHeader);
    ASSERT_NE(w, nullptr) << i;
    EXPECT_NE(w->value.find("cluster=" + store::ClusterIdString(*cluster)),
              std::string::npos);
    EXPECT_NE(w->value.find("; size=" + std::to_string(i + 1) + ";"),
              std::string::npos)
        << w->value;
    EXPECT_NE(w->value.find(i + 1 >= 5 ? "wave=yes" : "wave=no"),
              std::string::npos)
        << w->value;
    EXPECT_NE(
        w->value.find("senders=" + std::to_string(std::min(i + 1, 3)) + ";"),
        std::string::npos)
        << w->value;
    // The fifth member makes it a wave, once.
    EXPECT_EQ(o->event.has_value(), i == 4) << i;
    if (o->event) {
      EXPECT_EQ(o->event->queue_id, "Q4");
      ASSERT_EQ(o->event->earlier.size(), 4u);
      EXPECT_EQ(o->event->earlier[0].queue_id, "Q0");
      EXPECT_EQ(o->event->earlier[0].message_id_hash.size(), 16u);
      const std::string json = WaveEventJson(*o->event);
      EXPECT_NE(
          json.find("\"cluster\":\"" + store::ClusterIdString(*cluster) + "\""),
          std::string::npos);
      EXPECT_EQ(json.find("v0@example.org"), std::string::npos)
          << "message ids appear only as keyed hashes";
    }
  }
}

// A mail of `words` random words (a new wave each seed), with word `edit`
// replaced.
std::string RandomMail(std::uint64_t seed, int edit) {
  std::mt19937_64 rng(seed);
  static const char* const kWords[] = {
      "offer", "account", "please", "today",  "money",  "verify", "prize",
      "claim", "bank",    "urgent", "winner", "free",   "credit", "loan",
      "click", "secure",  "update", "refund", "bonus",  "deal",   "order",
      "cheap", "price",   "market", "invest", "profit", "notice", "reply"};
  std::string body;
  for (int w = 0; w < 160; ++w) {
    body += w == edit ? "changed" + std::to_string(seed)
                      : std::string(kWords[rng() % std::size(kWords)]);
    body += (w % 12 == 11) ? ".\n" : " ";
  }
  return "From: a@example.org\nSubject: offer " + std::to_string(seed) +
         "\nMessage-ID: <" + std::to_string(seed) + "." + std::to_string(edit) +
         "@example.org>\n\n" + body;
}

// Milter threads that check the first copies of a wave at the same moment
// end in one cluster: a thread whose lookup missed a copy recorded meanwhile
// is sent back to look up again (store::Join::seen) instead of starting a
// second cluster. Without that (kMaxStoreRaces 0, checked by hand) 0 to 10
// of 12 rounds ended in two clusters, half the runs failing; 30 rounds make
// a miss unlikely.
TEST(Check, FirstCopiesCheckedAtOnceJoinOneCluster) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer();
  ASSERT_TRUE(db && analyzer);
  constexpr int kRounds = 30;
  int split = 0;
  std::uint32_t conflicts = 0;
  for (int round = 0; round < kRounds; ++round) {
    // Analysed first, so that the two threads meet in the store.
    std::vector<Analysis> analyses;
    for (int i = 0; i < 2; ++i) {
      auto a = analyzer->Analyze(RandomMail(1000 + round, 40 + 50 * i),
                                 Env("s@example.org"));
      ASSERT_TRUE(a.has_value());
      analyses.push_back(std::move(*a));
    }
    std::vector<Outcome> outcomes(2);
    std::barrier start(2);
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) {
      threads.emplace_back([&, i] {
        start.arrive_and_wait();
        outcomes[i] =
            CheckAnalysis(*analyzer, db.get(), std::move(analyses[i]),
                          Env("s@example.org", "Q" + std::to_string(i)),
                          {.now = kT0 + round * kMinute + i});
      });
    }
    for (auto& t : threads) t.join();
    for (const Outcome& o : outcomes) {
      ASSERT_TRUE(o.cluster.has_value());
      EXPECT_TRUE(o.analysis.warnings.empty());
      conflicts += o.store_conflicts;
    }
    if (outcomes[0].cluster != outcomes[1].cluster) ++split;
  }
  EXPECT_EQ(split, 0) << "rounds in two clusters (" << conflicts
                      << " conflicts)";
}

// One sender in two spellings counts once among a cluster's senders.
TEST(Check, SendersCountedWithoutCase) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer();
  ASSERT_TRUE(db && analyzer);
  const std::string base = Fixture("fp-faq-a.eml");
  const char* senders[] = {"Bob@Example.org", "bob@example.org",
                           "BOB@EXAMPLE.ORG"};
  for (int i = 0; i < 3; ++i) {
    auto o = Check(*analyzer, db.get(), Variant(base, i), Env(senders[i]),
                   {.now = kT0 + i * kMinute});
    ASSERT_TRUE(o.has_value());
    if (i > 0) {
      ASSERT_TRUE(o->wave.has_value());
      EXPECT_EQ(o->wave->senders, 1u);
    }
  }
}

// The newsletter an ESP sends to a site: one authenticated identity (the
// site's own Authentication-Results above Received), a VERP bounce address
// per recipient, one sending network.
std::string Newsletter(const std::string& base, int i,
                       const std::string& authserv = "mx.site.example",
                       bool above_received = true) {
  const std::string ar = "Authentication-Results: " + authserv +
                         "; dkim=pass header.d=news.shop.example; "
                         "spf=pass smtp.mailfrom=bounce@esp.example\n";
  const std::string received = "Received: from out" + std::to_string(i) +
                               ".esp.example (out.esp.example [192.0.2." +
                               std::to_string(10 + i) +
                               "]) by mx.site.example\n";
  const std::string v = Variant(base, i);
  return above_received ? ar + received + v : received + ar + v;
}

Envelope VerpEnvelope(int i, std::vector<std::string> rcpts = {}) {
  if (rcpts.empty()) rcpts = {"user" + std::to_string(i) + "@site.example"};
  return Env(
      "news+user" + std::to_string(i) + "=site.example@bounces.shop.example",
      "N" + std::to_string(i), std::move(rcpts),
      "192.0.2." + std::to_string(10 + i));
}

config::Settings TrustingSettings() {
  config::Settings s = TestSettings();
  s.wave.trusted_authserv_ids = {"MX.site.example"};
  return s;
}

TEST(Check, OneAuthenticatedSenderIsWantedBulk) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer(TrustingSettings());
  ASSERT_TRUE(db && analyzer);
  const std::string base = Fixture("fp-faq-a.eml");
  std::uint64_t rcpts = 0;
  for (int i = 0; i < 8; ++i) {
    // The third copy goes to three users of the site in one delivery.
    auto env = i == 2 ? VerpEnvelope(i, {"a@site.example", "b@site.example",
                                         "c@site.example"})
                      : VerpEnvelope(i);
    rcpts += env.recipients.size();
    auto o = Check(*analyzer, db.get(), Newsletter(base, i), env,
                   {.now = kT0 + i * kMinute});
    ASSERT_TRUE(o.has_value());
    EXPECT_TRUE(o->analysis.identity.authenticated);
    EXPECT_EQ(o->analysis.identity.domain, "shop.example");
    if (i == 0) continue;
    ASSERT_TRUE(o->wave.has_value()) << i;
    EXPECT_EQ(o->wave->kind, WaveKind::kBulk) << i;
    EXPECT_EQ(o->wave->reason, WaveReason::kAuthenticated) << i;
    EXPECT_EQ(o->wave->senders, 1u);
    EXPECT_EQ(o->wave->networks, 1u);
    EXPECT_EQ(o->wave->recipients, rcpts);
    EXPECT_EQ(o->action, Action::kNone);
    EXPECT_NE(Find(*o, kWaveHeader)->value.find("; kind=bulk; why=auth; "),
              std::string::npos);
  }
}

// The same text with the results forged: below Received, or under another
// authserv-id. Nothing is authenticated, and the wave is spread.
TEST(Check, ForgedAuthenticationResultsBuyNothing) {
  for (bool below : {true, false}) {
    TempDir dir;
    auto db = OpenStore(dir.path());
    auto analyzer = TestAnalyzer(TrustingSettings());
    ASSERT_TRUE(db && analyzer);
    const std::string base = Fixture("fp-faq-a.eml");
    for (int i = 0; i < 6; ++i) {
      auto o = Check(
          *analyzer, db.get(),
          Newsletter(base, i, below ? "mx.site.example" : "mx.evil.example",
                     /*above_received=*/!below),
          VerpEnvelope(i), {.now = kT0 + i * kMinute});
      ASSERT_TRUE(o.has_value());
      EXPECT_FALSE(o->analysis.identity.authenticated);
      if (i == 0) continue;
      ASSERT_TRUE(o->wave.has_value());
      EXPECT_EQ(o->wave->kind, WaveKind::kSpread);
      EXPECT_EQ(o->wave->reason, WaveReason::kUnauthenticated);
    }
  }
}

// A forged (or broken) copy joining a wanted newsletter's cluster adds an
// identity: it is spread itself, but the sender's authenticated copies stay
// wanted; a second authenticated identity (a throwaway domain signing the
// same text) makes them spread.
TEST(Check, UnauthenticatedCopyInAWantedClusterIsSpreadAlone) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer(TrustingSettings());
  ASSERT_TRUE(db && analyzer);
  const std::string base = Fixture("fp-faq-a.eml");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(Check(*analyzer, db.get(), Newsletter(base, i), VerpEnvelope(i),
                      {.now = kT0 + i * kMinute}));
  }
  auto forged = Check(*analyzer, db.get(), Variant(base, 3),
                      Env("news@shop.example", "", {}, "203.0.113.9"),
                      {.now = kT0 + 3 * kMinute});
  ASSERT_TRUE(forged && forged->wave);
  EXPECT_EQ(forged->wave->reason, WaveReason::kUnauthenticated);
  auto next = Check(*analyzer, db.get(), Newsletter(base, 4), VerpEnvelope(4),
                    {.now = kT0 + 4 * kMinute});
  ASSERT_TRUE(next && next->wave);
  EXPECT_EQ(next->wave->kind, WaveKind::kBulk);
  EXPECT_EQ(next->wave->reason, WaveReason::kAuthenticated);
  EXPECT_EQ(next->wave->senders, 2u);
  std::string other = Newsletter(base, 5);
  const std::string d = "header.d=news.shop.example";
  other.replace(other.find(d), d.size(), "header.d=throwaway.example");
  auto signed_other = Check(*analyzer, db.get(), other, VerpEnvelope(5),
                            {.now = kT0 + 5 * kMinute});
  ASSERT_TRUE(signed_other && signed_other->wave);
  EXPECT_EQ(signed_other->wave->reason, WaveReason::kSenders);
  auto after = Check(*analyzer, db.get(), Newsletter(base, 6), VerpEnvelope(6),
                     {.now = kT0 + 6 * kMinute});
  ASSERT_TRUE(after && after->wave);
  EXPECT_EQ(after->wave->reason, WaveReason::kSenders);
}

TEST(Check, ManyNetworksSpreadAnAuthenticatedSender) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer(TrustingSettings());
  ASSERT_TRUE(db && analyzer);
  const std::string base = Fixture("fp-faq-a.eml");
  for (int i = 0; i < 6; ++i) {
    Envelope env = VerpEnvelope(i);
    env.client_ip = "198.51." + std::to_string(i) + ".7";
    auto o = Check(*analyzer, db.get(), Newsletter(base, i), env,
                   {.now = kT0 + i * kMinute});
    ASSERT_TRUE(o.has_value());
    if (i == 0) continue;
    ASSERT_TRUE(o->wave.has_value());
    EXPECT_EQ(o->wave->networks, static_cast<std::uint64_t>(i + 1));
    EXPECT_EQ(o->wave->kind, i + 1 > 3 ? WaveKind::kSpread : WaveKind::kBulk)
        << i;
  }
}

TEST(Check, AllowListedNetworkIsWanted) {
  TempDir dir;
  const std::string allow = dir.path() + "/allow";
  {
    std::ofstream out(allow);
    out << "# the site's own relay\nip 192.0.2.0/24\n";
  }
  config::Settings settings = TestSettings();
  settings.wave.allow = allow;
  auto policy = LoadPolicy(settings);
  ASSERT_TRUE(policy.has_value()) << policy.error().message();
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer(settings);
  ASSERT_TRUE(db && analyzer);
  const std::string base = Fixture("fp-faq-a.eml");
  for (int i = 0; i < 6; ++i) {
    const Envelope env = Env("x@random" + std::to_string(i) + ".example", "",
                             {}, i < 5 ? "192.0.2.77" : "203.0.113.1");
    auto o = Check(*analyzer, db.get(), Variant(base, i), env,
                   {.now = kT0 + i * kMinute, .policy = policy->get()});
    ASSERT_TRUE(o.has_value());
    if (i == 0) continue;
    ASSERT_TRUE(o->wave.has_value());
    if (i < 5) {
      EXPECT_EQ(o->wave->kind, WaveKind::kBulk);
      EXPECT_EQ(o->wave->reason, WaveReason::kAllowed);
    } else {
      // The same wave from elsewhere is not allowed.
      EXPECT_EQ(o->wave->kind, WaveKind::kSpread);
    }
  }
}

TEST(Check, BadAllowFileNamesFileAndLine) {
  TempDir dir;
  const std::string allow = dir.path() + "/allow";
  {
    std::ofstream out(allow);
    out << "dkim shop.example\nip 10.0.0.0/33\n";
  }
  config::Settings settings = TestSettings();
  settings.wave.allow = allow;
  auto policy = LoadPolicy(settings);
  ASSERT_FALSE(policy.has_value());
  EXPECT_TRUE(policy.error().message().starts_with(allow + ":2: "))
      << policy.error().message();
}

// [wave] action on a spread wave: from the copy that makes it a wave on;
// tempfail only while the cluster is young; never on wanted bulk.
TEST(Check, ActionsOnSpreadWavesOnly) {
  for (std::string action : {"header", "quarantine", "reject", "tempfail"}) {
    TempDir dir;
    config::Settings settings = TrustingSettings();
    settings.wave.action = action;
    settings.wave.young = std::chrono::minutes(10);
    auto db = OpenStore(dir.path());
    auto analyzer = TestAnalyzer(settings);
    ASSERT_TRUE(db && analyzer);
    const std::string base = Fixture("fp-faq-a.eml");
    for (int i = 0; i < 8; ++i) {
      // Two copies a minute... then one 20 minutes later (no longer young).
      const store::UnixMillis now =
          kT0 + (i < 7 ? i * kMinute / 2 : 20 * kMinute);
      auto o =
          Check(*analyzer, db.get(), Variant(base, i),
                Env("x@spam" + std::to_string(i) + ".example"), {.now = now});
      ASSERT_TRUE(o.has_value());
      Action want = Action::kNone;
      if (i + 1 >= 5) {
        if (action == "quarantine") want = Action::kQuarantine;
        if (action == "reject") want = Action::kReject;
        if (action == "tempfail" && i < 7) want = Action::kTempfail;
      }
      EXPECT_EQ(o->action, want) << action << " copy " << i;
      if (want != Action::kNone) {
        EXPECT_NE(o->action_text.find("cluster " +
                                      store::ClusterIdString(*o->cluster)),
                  std::string::npos)
            << o->action_text;
      }
    }
    // Wanted bulk is never acted on.
    for (int i = 0; i < 7; ++i) {
      auto o = Check(*analyzer, db.get(),
                     Newsletter(Fixture("fp-template-a.eml"), i),
                     VerpEnvelope(i), {.now = kT0 + i * kMinute / 2});
      ASSERT_TRUE(o.has_value());
      EXPECT_EQ(o->action, Action::kNone);
    }
  }
}

// Near-empty bodies are never clustered (Pyzor's empty-digest lesson).
TEST(Check, NearEmptyBodiesAreNotDuplicates) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer();
  ASSERT_TRUE(db && analyzer);
  for (int i = 0; i < 6; ++i) {
    const std::string m = "From: a" + std::to_string(i) +
                          "@example.org\nSubject: Read: your message\n"
                          "Message-ID: <r" +
                          std::to_string(i) + "@example.org>\n\nRead.\n";
    auto o = Check(*analyzer, db.get(), m, {}, {.now = kT0 + i * kMinute});
    ASSERT_TRUE(o.has_value());
    EXPECT_FALSE(o->wave.has_value());
    EXPECT_FALSE(o->recorded.has_value());
  }
}

TEST(Check, HamStaysUntagged) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer();
  ASSERT_TRUE(db && analyzer);
  int n = 0;
  for (const char* name :
       {"fp-faq-a.eml", "fp-template-a.eml", "alternative-html-wins.eml",
        "charset-koi8-r.eml", "encoding-base64.eml", "forwarded-rfc822.eml"}) {
    auto o = Check(*analyzer, db.get(), Fixture(name), {},
                   {.now = kT0 + (n++) * kMinute});
    ASSERT_TRUE(o.has_value()) << name;
    EXPECT_EQ(Find(*o, kWaveHeader), nullptr) << name;
    EXPECT_NE(Find(*o, kLanguageHeader), nullptr) << name;
  }
}

TEST(Check, DryRunRecordsNothing) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  auto analyzer = TestAnalyzer();
  ASSERT_TRUE(db && analyzer);
  const std::string base = Fixture("fp-faq-a.eml");
  ASSERT_TRUE(Check(*analyzer, db.get(), base, {}, {.now = kT0}).has_value());
  for (int i = 0; i < 3; ++i) {
    auto o = Check(*analyzer, db.get(), Variant(base, i), {},
                   {.dry_run = true, .now = kT0 + kMinute});
    ASSERT_TRUE(o.has_value());
    const Header* w = Find(*o, kWaveHeader);
    ASSERT_NE(w, nullptr);
    EXPECT_NE(w->value.find("size=2;"), std::string::npos) << w->value;
    EXPECT_FALSE(o->recorded.has_value());
  }
  auto stats = db->GetStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->messages, 1u);
}

TEST(Check, ClusterSurvivesRestart) {
  TempDir dir;
  auto analyzer = TestAnalyzer();
  ASSERT_NE(analyzer, nullptr);
  const std::string base = Fixture("fp-template-a.eml");
  std::optional<store::ClusterId> cluster;
  {
    auto db = OpenStore(dir.path());
    ASSERT_NE(db, nullptr);
    for (int i = 0; i < 2; ++i) {
      auto o = Check(*analyzer, db.get(), Variant(base, i), {},
                     {.now = kT0 + i * kMinute});
      ASSERT_TRUE(o.has_value());
      cluster = o->cluster;
    }
  }
  auto db = OpenStore(dir.path());
  ASSERT_NE(db, nullptr);
  auto o = Check(*analyzer, db.get(), Variant(base, 2), {},
                 {.now = kT0 + 2 * kMinute});
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->cluster, cluster);
  const Header* w = Find(*o, kWaveHeader);
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->value.find("size=3;"), std::string::npos) << w->value;
}

// Copies spread wider than the wave window never make a wave.
TEST(Check, WindowEdge) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  config::Settings s = TestSettings();
  s.wave.min_size = 3;
  s.wave.window = std::chrono::minutes(10);
  auto analyzer = TestAnalyzer(s);
  ASSERT_TRUE(db && analyzer);
  const std::string base = Fixture("fp-faq-b.eml");
  // Members at 0, 6 and 12 minutes: at most two inside any 10 minutes.
  for (int i = 0; i < 3; ++i) {
    auto o = Check(*analyzer, db.get(), Variant(base, i), {},
                   {.now = kT0 + i * 6 * kMinute});
    ASSERT_TRUE(o.has_value());
    if (i > 0) {
      ASSERT_NE(Find(*o, kWaveHeader), nullptr);
      EXPECT_NE(Find(*o, kWaveHeader)->value.find("wave=no"),
                std::string::npos);
    }
  }
  // A fourth at 16 minutes: 6, 12 and 16 are exactly inside the window
  // (16 - 10 = 6: the member at the window's edge counts).
  auto o = Check(*analyzer, db.get(), Variant(base, 3), {},
                 {.now = kT0 + 16 * kMinute});
  ASSERT_TRUE(o.has_value());
  ASSERT_NE(Find(*o, kWaveHeader), nullptr);
  EXPECT_NE(Find(*o, kWaveHeader)->value.find("wave=yes"), std::string::npos);
  EXPECT_TRUE(o->event.has_value());
}

// A store that fails every call: the edge is an interface (STYLE.md 8), and
// a real SQLite file cannot be made to fail on demand for root.
class FailingStore final : public store::Store {
 public:
  Result<store::Lookup> Find(const store::Message&) override {
    return Fail(Error::Unavailable("database is locked"));
  }
  Result<store::Recorded> Record(const store::Message&, const store::Join&,
                                 const store::WaveRule&) override {
    return Fail(Error::Unavailable("database is locked"));
  }
  Result<std::vector<store::Cluster>> Clusters(bool, const store::WaveRule&,
                                               store::UnixMillis,
                                               std::size_t) override {
    return Fail(Error::Unavailable("down"));
  }
  Result<store::Lookup> Fetch(std::span<const std::int64_t>) override {
    return Fail(Error::Unavailable("down"));
  }
  Result<std::uint64_t> ForEach(
      store::UnixMillis,
      const std::function<bool(std::int64_t, store::UnixMillis,
                               const fingerprint::Fingerprint&)>&) override {
    return Fail(Error::Unavailable("down"));
  }
  Result<std::int64_t> ForEachNewer(
      std::int64_t, std::size_t,
      const std::function<bool(std::int64_t, store::UnixMillis,
                               const fingerprint::Fingerprint&)>&) override {
    return Fail(Error::Unavailable("down"));
  }
  Result<std::optional<store::Cluster>> FindCluster(store::ClusterId) override {
    return Fail(Error::Unavailable("down"));
  }
  Result<store::Cluster> SetMark(store::ClusterId, store::Mark,
                                 store::UnixMillis) override {
    return Fail(Error::Unavailable("down"));
  }
  Result<std::vector<store::Member>> Members(store::ClusterId,
                                             std::size_t) override {
    return Fail(Error::Unavailable("down"));
  }
  Result<std::uint64_t> Prune(store::UnixMillis, std::size_t,
                              std::size_t) override {
    return Fail(Error::Unavailable("down"));
  }
  Result<store::Stats> GetStats() override {
    return Fail(Error::Unavailable("down"));
  }
  Result<std::string> Check() override {
    return Fail(Error::Unavailable("down"));
  }
};

TEST(Check, FailingStoreLeavesMessageUntagged) {
  FailingStore db;
  auto analyzer = TestAnalyzer();
  ASSERT_NE(analyzer, nullptr);
  auto o = Check(*analyzer, &db, Fixture("fp-faq-a.eml"), {}, {.now = kT0});
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(Find(*o, kWaveHeader), nullptr);
  EXPECT_NE(Find(*o, kLanguageHeader), nullptr);
  bool store_warning = false;
  for (const Warning& w : o->analysis.warnings)
    store_warning |= w.kind == WarningKind::kStore;
  EXPECT_TRUE(store_warning);
}

TEST(Check, DegradedAnalysisIsNotStored) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  config::Settings s = TestSettings();
  s.pipeline.max_cpu = std::chrono::milliseconds(0);
  auto analyzer = TestAnalyzer(s);
  ASSERT_TRUE(db && analyzer);
  auto o =
      Check(*analyzer, db.get(), Fixture("fp-faq-a.eml"), {}, {.now = kT0});
  ASSERT_TRUE(o.has_value());
  EXPECT_FALSE(o->recorded.has_value());
  EXPECT_NE(Find(*o, kLanguageHeader), nullptr);
  auto stats = db->GetStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->messages, 0u);
}

TEST(Check, AppendLineWritesWholeLines) {
  TempDir dir;
  const std::string path = dir.path() + "/events.jsonl";
  ASSERT_TRUE(AppendLine(path, "{\"a\":1}").has_value());
  ASSERT_TRUE(AppendLine(path, "{\"b\":2}").has_value());
  EXPECT_EQ(testing::ReadFile(path), "{\"a\":1}\n{\"b\":2}\n");
  EXPECT_FALSE(AppendLine(dir.path() + "/no/such/dir/x", "x").has_value());
}

}  // namespace
}  // namespace mw::pipeline
