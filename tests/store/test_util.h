// Helpers shared by the store tests: a temporary directory and synthetic mail
// bodies whose fingerprints are real (fingerprint::Compute).
#ifndef MW_TESTS_STORE_TEST_UTIL_H_
#define MW_TESTS_STORE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "db.h"
#include "fingerprint/fingerprint.h"
#include "store/store.h"

namespace mw::store::testing {

// A directory under /tmp, removed with everything in it when it goes.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/mw-store-test-XXXXXX";
    const char* made = ::mkdtemp(name);
    EXPECT_NE(made, nullptr);
    path_ = made != nullptr ? made : "/tmp";
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// A SQLite connection to `path`, created if missing (store/src/db.h).
inline Db OpenDb(const std::string& path) {
  auto db = Db::Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                     std::chrono::milliseconds(200));
  EXPECT_TRUE(db.has_value());
  return std::move(*db);
}

// Sentences of words drawn from a fixed vocabulary by a seeded generator: the
// same seed, the same text.
inline std::string Sentence(std::mt19937_64& rng) {
  static const char* const kWords[] = {
      "offer",   "price",    "account",    "money",   "today",      "limited",
      "free",    "winner",   "claim",      "bank",    "transfer",   "urgent",
      "reply",   "details",  "secure",     "private", "business",   "partner",
      "million", "dollars",  "investment", "profit",  "guaranteed", "click",
      "link",    "below",    "order",      "now",     "save",       "discount",
      "product", "quality",  "customer",   "service", "support",    "team",
      "update",  "password", "verify",     "login",   "please",     "kindly",
      "contact", "office",   "meeting",    "report",  "project",    "deadline",
      "weekend", "family",   "holiday",    "travel",  "ticket",     "hotel",
      "market",  "shares",   "stock",      "growth",  "returns",    "capital"};
  constexpr std::size_t kCount = sizeof(kWords) / sizeof(kWords[0]);
  const std::size_t n = 8 + rng() % 10;
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) s += ' ';
    s += kWords[rng() % kCount];
  }
  s += ".";
  return s;
}

// A body of `sentences` sentences, five to a paragraph.
inline std::string Body(std::uint64_t seed, int sentences) {
  std::mt19937_64 rng(seed);
  std::string text;
  for (int i = 0; i < sentences; ++i) {
    text += Sentence(rng);
    text += (i % 5 == 4) ? "\n\n" : " ";
  }
  return text;
}

// `body` with its `which`-th sentence (counting from 0) replaced.
inline std::string EditSentence(const std::string& body, int which,
                                std::uint64_t seed) {
  std::size_t start = 0;
  for (int i = 0; i < which; ++i) start = body.find('.', start) + 1;
  while (start < body.size() && (body[start] == ' ' || body[start] == '\n')) {
    ++start;
  }
  const std::size_t end = body.find('.', start);
  std::mt19937_64 rng(seed);
  return body.substr(0, start) + Sentence(rng) + body.substr(end + 1);
}

inline Message MessageOf(const std::string& body, UnixMillis arrival,
                         const std::string& sender = "a@example.com") {
  Message m;
  m.fingerprint = fingerprint::Compute(body, fingerprint::Options{});
  m.arrival = arrival;
  m.queue_id = "Q" + std::to_string(arrival);
  m.message_id = "<" + std::to_string(arrival) + "@example.com>";
  m.sender = sender;
  m.language = "en";
  m.size = body.size() + 500;
  return m;
}

// The wave decision of a test: join the best candidate's cluster when it
// shares the body or at least `min_shared` keys, else start a cluster.
inline std::optional<ClusterId> Decide(const Lookup& lookup,
                                       std::uint32_t min_shared) {
  if (lookup.candidates.empty()) return std::nullopt;
  const Candidate& best = lookup.candidates.front();
  if (best.exact || best.shared_keys >= min_shared) return best.cluster;
  return std::nullopt;
}

// Find, Decide and Record as pipeline::Check runs them: a new cluster is
// started with Join::seen, and a kConflict sends the message back to Find
// (at most `max_races` times, then recorded without the check). `conflicts`
// counts the repeats.
inline Result<Recorded> FindDecideRecord(Store& store, const Message& m,
                                         const WaveRule& rule,
                                         std::uint32_t min_shared,
                                         int max_races, int* conflicts) {
  for (int attempt = 0;; ++attempt) {
    auto lookup = store.Find(m);
    if (!lookup) return Fail(lookup.error());
    Join join;
    join.cluster = Decide(*lookup, min_shared);
    if (!join.cluster && attempt < max_races) join.seen = lookup->seen;
    auto r = store.Record(m, join, rule);
    if (!r && r.error().code() == Error::Code::kConflict) {
      ++*conflicts;
      continue;
    }
    return r;
  }
}

// Join::seen on an empty `store`: a new cluster is refused (kConflict,
// nothing stored) when a message recorded after the lookup shares a key, and
// allowed when none does or when the caller asks for no check.
inline void ExpectNewClusterChecksNewerMessages(Store& store) {
  const std::string body = Body(7, 25);
  const Message a = MessageOf(EditSentence(body, 3, 1), 1000, "a@x");
  const Message b = MessageOf(EditSentence(body, 9, 2), 1001, "b@x");
  const Message other = MessageOf(Body(8, 25), 1002, "c@x");
  auto la = store.Find(a);
  auto lb = store.Find(b);
  auto lo = store.Find(other);
  ASSERT_TRUE(la && lb && lo);
  EXPECT_EQ(lb->seen, 0);
  auto ra = store.Record(a, Join{.cluster = std::nullopt, .seen = la->seen},
                         WaveRule{});
  ASSERT_TRUE(ra.has_value()) << ra.error().ToString();
  // b was decided on a lookup that did not see a, which shares its keys.
  auto rb = store.Record(b, Join{.cluster = std::nullopt, .seen = lb->seen},
                         WaveRule{});
  ASSERT_FALSE(rb.has_value());
  EXPECT_EQ(rb.error().code(), Error::Code::kConflict);
  auto stats = store.GetStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->messages, 1u);  // nothing of b was stored
  // Looked up again, b sees a and its cluster.
  auto again = store.Find(b);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->seen, ra->id);
  EXPECT_EQ(Decide(*again, 2), ra->cluster.id);
  // `other` shares no key with a (its lookup now finds nothing), so its
  // stale lookup still starts a cluster.
  auto now_other = store.Find(other);
  ASSERT_TRUE(now_other.has_value());
  ASSERT_TRUE(now_other->candidates.empty());
  auto ro = store.Record(other, Join{.cluster = std::nullopt, .seen = lo->seen},
                         WaveRule{});
  ASSERT_TRUE(ro.has_value()) << ro.error().ToString();
  EXPECT_NE(ro->cluster.id, ra->cluster.id);
  // Without a lookup to check against, b starts its own cluster as asked.
  auto rb2 = store.Record(b, Join{}, WaveRule{});
  ASSERT_TRUE(rb2.has_value()) << rb2.error().ToString();
  EXPECT_NE(rb2->cluster.id, ra->cluster.id);
}

// What RaceFirstCopies saw.
struct RaceResult {
  std::set<ClusterId> clusters;  // every cluster a copy was recorded in
  int recorded = 0;
  int conflicts = 0;
  int failures = 0;
};

// `writers` writers (threads, or processes when `processes`), each with its
// own store from `open`, start at one moment and record `each` variants of
// one new wave through FindDecideRecord: the first copies race, as on MX
// hosts that see a wave start at the same moment.
inline RaceResult RaceFirstCopies(
    const std::function<std::unique_ptr<Store>()>& open, int writers, int each,
    bool processes, int max_races) {
  const std::string body = Body(4242, 25);
  const WaveRule rule{5, std::chrono::hours(1)};
  auto run = [&](int w, Store& store, std::atomic<bool>& go,
                 std::vector<std::int64_t>& out) {
    while (!go.load()) {
    }
    for (int i = 0; i < each; ++i) {
      const Message m =
          MessageOf(EditSentence(body, (w * each + i) % 25,
                                 static_cast<std::uint64_t>(1000 * w + i)),
                    100000 + 100 * w + i, "w" + std::to_string(w) + "@x");
      int conflicts = 0;
      auto r = FindDecideRecord(store, m, rule, 2, max_races, &conflicts);
      out.push_back(r ? static_cast<std::int64_t>(r->cluster.id) : -1);
      out.push_back(conflicts);
    }
  };
  std::vector<std::vector<std::int64_t>> results(writers);
  if (!processes) {
    std::vector<std::unique_ptr<Store>> stores;
    for (int w = 0; w < writers; ++w) stores.push_back(open());
    std::atomic<bool> go{false};
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) {
      threads.emplace_back([&, w] { run(w, *stores[w], go, results[w]); });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    go = true;
    for (auto& t : threads) t.join();
  } else {
    // Each child opens its store, says it is ready on `ready`, waits for
    // `start` to close, records, and writes its int64 results to `back`.
    int ready[2], start[2];
    EXPECT_EQ(::pipe(ready), 0);
    EXPECT_EQ(::pipe(start), 0);
    std::vector<std::pair<pid_t, int>> children;
    for (int w = 0; w < writers; ++w) {
      int back[2];
      EXPECT_EQ(::pipe(back), 0);
      const pid_t pid = ::fork();
      if (pid == 0) {
        ::close(ready[0]);
        ::close(start[1]);
        ::close(back[0]);
        auto store = open();
        if (store == nullptr) ::_exit(2);
        char c = 'r';
        if (::write(ready[1], &c, 1) != 1) ::_exit(2);
        if (::read(start[0], &c, 1) != 0) ::_exit(2);
        std::atomic<bool> go{true};
        std::vector<std::int64_t> out;
        run(w, *store, go, out);
        const auto bytes = out.size() * sizeof(std::int64_t);
        if (::write(back[1], out.data(), bytes) !=
            static_cast<ssize_t>(bytes)) {
          ::_exit(2);
        }
        store.reset();
        ::_exit(0);
      }
      ::close(back[1]);
      children.emplace_back(pid, back[0]);
    }
    ::close(ready[1]);
    ::close(start[0]);
    for (int w = 0; w < writers; ++w) {
      char c = 0;
      EXPECT_EQ(::read(ready[0], &c, 1), 1);
    }
    ::close(start[1]);  // every child's read returns 0 at once
    ::close(ready[0]);
    for (int w = 0; w < writers; ++w) {
      std::vector<std::int64_t> out(2 * static_cast<std::size_t>(each));
      const auto bytes = out.size() * sizeof(std::int64_t);
      std::size_t got = 0;
      while (got < bytes) {
        const ssize_t n =
            ::read(children[w].second,
                   reinterpret_cast<char*>(out.data()) + got, bytes - got);
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
      }
      ::close(children[w].second);
      int status = 0;
      ::waitpid(children[w].first, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
      if (got == bytes) results[w] = out;
    }
  }
  RaceResult r;
  for (const auto& out : results) {
    if (out.size() != 2 * static_cast<std::size_t>(each)) {
      r.failures += each;
      continue;
    }
    for (std::size_t i = 0; i < out.size(); i += 2) {
      if (out[i] < 0) {
        ++r.failures;
        continue;
      }
      ++r.recorded;
      r.clusters.insert(static_cast<ClusterId>(out[i]));
      r.conflicts += static_cast<int>(out[i + 1]);
    }
  }
  return r;
}

}  // namespace mw::store::testing

#endif  // MW_TESTS_STORE_TEST_UTIL_H_
