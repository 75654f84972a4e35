// pipeline::Window and Check with a window, against a real SQLite store in a
// temporary directory and the CPU engine: a spun copy that no index key links
// to its base is joined to it through the window; the window loads what the
// store holds, follows the retention and window_max, and a window that does
// not answer in time leaves the message to the index, flagged.
#include "pipeline/window.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "mime/message.h"
#include "pipeline/check.h"
#include "store/sqlite.h"
#include "testutil.h"
#include "variants/variants.h"

namespace mw::pipeline {
namespace {

using testing::Fixture;
using testing::OpenStore;
using testing::TempDir;
using testing::TestAnalyzer;
using testing::TestSettings;

constexpr store::UnixMillis kT0 = 1'790'000'000'000;
constexpr store::UnixMillis kMinute = 60'000;

config::Settings WindowSettings() {
  config::Settings s = TestSettings();
  s.gpu.backend = "cpu";
  s.gpu.batch_deadline = std::chrono::milliseconds(0);
  s.gpu.budget = std::chrono::milliseconds(5000);  // a loaded CI machine
  return s;
}

// The decoded text of a fixture message.
std::string Decoded(const std::string& name) {
  return variants::Extract(Fixture(name));
}

// Spun copies of the FAQ fixture: a quarter of its words in spintax slots,
// filled from the words of the other fixtures.
std::vector<std::string> SpunCopies(std::size_t n) {
  std::vector<variants::Doc> vocabulary;
  for (const char* f : {"fp-faq-b.eml", "fp-template-a.eml",
                        "fp-template-b.eml", "forwarded-rfc822.eml"}) {
    vocabulary.push_back({f, Decoded(f), "", true, ""});
  }
  std::mt19937_64 rng(20261124);
  std::vector<std::string> out;
  const std::string base = Decoded("fp-faq-a.eml");
  for (std::size_t i = 0; i < n; ++i) {
    variants::Headers h;
    h.message_id = "<spun" + std::to_string(i) + "@example.com>";
    out.push_back(
        variants::BuildMessage(variants::Spin(base, 0.25, vocabulary, rng), h));
  }
  return out;
}

class WindowTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { mime::Init(); }
};

TEST_F(WindowTest, JoinsSpunCopiesTheIndexMisses) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  ASSERT_NE(db, nullptr);
  const config::Settings settings = WindowSettings();
  auto analyzer = TestAnalyzer(settings);
  ASSERT_NE(analyzer, nullptr);
  auto base =
      Check(*analyzer, db.get(),
            variants::BuildMessage(Decoded("fp-faq-a.eml")), {}, {.now = kT0});
  ASSERT_TRUE(base.has_value());
  ASSERT_TRUE(base->cluster.has_value());
  // The copies whose base the index does not find (a copy that still shares
  // a block or a band with it is found without the window): through Check
  // without a window, dry run. Without such copies the test proves nothing.
  std::vector<std::string> spun;
  for (const std::string& copy : SpunCopies(16)) {
    auto o =
        Check(*analyzer, db.get(), copy, {}, {.dry_run = true, .now = kT0});
    ASSERT_TRUE(o.has_value());
    if (!o->match) spun.push_back(copy);
  }
  ASSERT_GE(spun.size(), 3u) << "the index alone found nearly every copy";

  auto window = Window::Open(*db, settings, kT0 + kMinute, {});
  ASSERT_TRUE(window.has_value()) << window.error().ToString();
  EXPECT_EQ((*window)->size(), 1u);  // the base, loaded from the store
  EXPECT_EQ((*window)->backend(), "cpu");
  for (std::size_t i = 0; i < spun.size(); ++i) {
    auto o =
        Check(*analyzer, db.get(), spun[i], {},
              {.now = kT0 + kMinute * static_cast<store::UnixMillis>(i + 1),
               .window = window->get()});
    ASSERT_TRUE(o.has_value());
    // The first copy can only be found through the window; the later ones
    // may also share keys with the copies recorded before them.
    if (i == 0) {
      EXPECT_TRUE(o->window_asked);
      EXPECT_GE(o->window_candidates, 1u);
    }
    ASSERT_TRUE(o->match.has_value()) << "copy " << i;
    EXPECT_EQ(o->cluster, base->cluster);
    EXPECT_EQ(o->match->comparison.method, fingerprint::Method::kWords);
    ASSERT_TRUE(o->wave.has_value());
    EXPECT_EQ(o->wave->size, i + 2);
    for (const Warning& w : o->analysis.warnings) {
      EXPECT_NE(w.kind, WarningKind::kWindow) << w.detail;
    }
  }
  EXPECT_EQ((*window)->size(), 1 + spun.size());  // each recorded one added

  // An unrelated message asks the window and matches nothing.
  auto other = Check(*analyzer, db.get(), Fixture("fp-template-a.eml"), {},
                     {.now = kT0 + 10 * kMinute, .window = window->get()});
  ASSERT_TRUE(other.has_value());
  EXPECT_TRUE(other->window_asked);
  EXPECT_FALSE(other->match.has_value());
}

// Two MX hosts on one shared store, each with its own window: a spun wave
// sent through both alternately is one cluster, because each window follows
// what the other host records (Window::Follow). Two handles on one SQLite
// file stand in for two hosts on one Redis ([store] backend = "redis" is
// what turns following on; tests/e2e/run_redis runs the real thing).
// Without Follow the copies through B, whose window never saw A's records,
// start clusters of their own (checked by hand: the first copy via B
// already finds nothing).
TEST_F(WindowTest, WindowsOfTwoHostsFollowTheSharedStore) {
  TempDir dir;
  auto host_a = OpenStore(dir.path());
  auto host_b = OpenStore(dir.path());
  ASSERT_TRUE(host_a && host_b);
  config::Settings settings = WindowSettings();
  settings.store.backend = "redis";
  auto analyzer = TestAnalyzer(settings);
  ASSERT_NE(analyzer, nullptr);
  auto window_a = Window::Open(*host_a, settings, kT0, {});
  auto window_b = Window::Open(*host_b, settings, kT0, {});
  ASSERT_TRUE(window_a.has_value() && window_b.has_value());
  auto base = Check(*analyzer, host_a.get(),
                    variants::BuildMessage(Decoded("fp-faq-a.eml")), {},
                    {.now = kT0, .window = window_a->get()});
  ASSERT_TRUE(base.has_value() && base->cluster.has_value());
  std::vector<std::string> spun;
  for (const std::string& copy : SpunCopies(24)) {
    auto o =
        Check(*analyzer, host_a.get(), copy, {}, {.dry_run = true, .now = kT0});
    ASSERT_TRUE(o.has_value());
    if (!o->match) spun.push_back(copy);
  }
  ASSERT_GE(spun.size(), 6u) << "the index alone found nearly every copy";
  spun.resize(8 <= spun.size() ? 8 : spun.size());
  int via_b = 0;
  for (std::size_t i = 0; i < spun.size(); ++i) {
    const bool b = i % 2 == 0;  // B first: its window must follow A's base
    via_b += b ? 1 : 0;
    // Follow reads at most every 250 ms: the copies come further apart.
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto o =
        Check(*analyzer, b ? host_b.get() : host_a.get(), spun[i], {},
              {.now = kT0 + kMinute * static_cast<store::UnixMillis>(i + 1),
               .window = b ? window_b->get() : window_a->get()});
    ASSERT_TRUE(o.has_value());
    ASSERT_TRUE(o->match.has_value())
        << "copy " << i << (b ? " via B" : " via A");
    EXPECT_EQ(o->cluster, base->cluster) << "copy " << i;
    ASSERT_TRUE(o->wave.has_value());
    EXPECT_EQ(o->wave->size, i + 2);
  }
  EXPECT_GE(via_b, 3);
  // Each window holds every message once, whoever recorded it.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  (*window_a)->Follow(*host_a);
  (*window_b)->Follow(*host_b);
  EXPECT_EQ((*window_a)->size(), 1 + spun.size());
  EXPECT_EQ((*window_b)->size(), 1 + spun.size());
}

TEST_F(WindowTest, FollowsRetentionAndMax) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  ASSERT_NE(db, nullptr);
  config::Settings settings = WindowSettings();
  settings.store.retention = std::chrono::hours(1);
  settings.gpu.window_max = 3;
  auto analyzer = TestAnalyzer(settings);
  ASSERT_NE(analyzer, nullptr);
  const std::vector<std::string> spun = SpunCopies(5);
  // Five stored messages, one per ten minutes, recorded without a window.
  for (std::size_t i = 0; i < spun.size(); ++i) {
    auto o =
        Check(*analyzer, db.get(), spun[i], {},
              {.now = kT0 + 10 * kMinute * static_cast<store::UnixMillis>(i)});
    ASSERT_TRUE(o.has_value());
  }
  // window_max keeps the newest three.
  auto window = Window::Open(*db, settings, kT0 + 50 * kMinute, {});
  ASSERT_TRUE(window.has_value());
  EXPECT_EQ((*window)->size(), 3u);
  // Loaded 65 minutes after the first: the first is past the retention.
  settings.gpu.window_max = 100;
  window = Window::Open(*db, settings, kT0 + 65 * kMinute, {});
  ASSERT_TRUE(window.has_value());
  EXPECT_EQ((*window)->size(), 4u);
  // An Add two hours later evicts every older one.
  fingerprint::Fingerprint fp = analyzer->Analyze(spun[0], {})->fingerprint;
  (*window)->Add(999, kT0 + 200 * kMinute, fp);
  EXPECT_EQ((*window)->size(), 1u);
}

TEST_F(WindowTest, NoAnswerInTimeIsFlaggedAndTheIndexDecides) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  ASSERT_NE(db, nullptr);
  config::Settings settings = WindowSettings();
  // A batch waits a second for company; the message waits 1 ms.
  settings.gpu.batch_deadline = std::chrono::milliseconds(1000);
  settings.gpu.budget = std::chrono::milliseconds(1);
  auto analyzer = TestAnalyzer(settings);
  ASSERT_NE(analyzer, nullptr);
  auto window = Window::Open(*db, settings, kT0, {});
  ASSERT_TRUE(window.has_value());
  const std::string bytes = Fixture("fp-faq-a.eml");
  auto first = Check(*analyzer, db.get(), bytes, {},
                     {.now = kT0, .window = window->get()});
  ASSERT_TRUE(first.has_value());
  bool flagged = false;
  for (const Warning& w : first->analysis.warnings) {
    flagged |= w.kind == WarningKind::kWindow;
  }
  EXPECT_TRUE(flagged);
  EXPECT_TRUE(first->recorded.has_value());  // still recorded
  // An exact copy is still found by the index.
  auto second = Check(*analyzer, db.get(), bytes, {},
                      {.now = kT0 + kMinute, .window = window->get()});
  ASSERT_TRUE(second.has_value());
  ASSERT_TRUE(second->match.has_value());
  EXPECT_EQ(second->match->comparison.method, fingerprint::Method::kExact);
  EXPECT_FALSE(second->window_asked);
}

TEST_F(WindowTest, CudaWithoutADeviceFailsAndBadBackendIsRefused) {
  TempDir dir;
  auto db = OpenStore(dir.path());
  ASSERT_NE(db, nullptr);
  config::Settings settings = WindowSettings();
  settings.gpu.backend = "opencl";
  auto bad = Window::Open(*db, settings, kT0, {});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), Error::Code::kInvalidArgument);
  settings.gpu.backend = "cuda";
  auto cuda = Window::Open(*db, settings, kT0, {});
  if (cuda.has_value()) {
    GTEST_SKIP() << "a CUDA device is present: the no-device path cannot run";
  }
  EXPECT_EQ(cuda.error().code(), Error::Code::kUnavailable);
}

}  // namespace
}  // namespace mw::pipeline
