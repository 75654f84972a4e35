#include "sqlite_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "keys.h"
#include "schema.h"
#include "store/sqlite.h"
#include "tests/store/test_util.h"

namespace mw::store {
namespace {

using testing::Body;
using testing::EditSentence;
using testing::MessageOf;
using testing::TempDir;

class StoreTest : public ::testing::Test {
 protected:
  SqliteOptions Options() {
    SqliteOptions o;
    o.path = dir_.File("mailwave.db");
    o.log = [this](std::string_view line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_.emplace_back(line);
    };
    return o;
  }

  std::unique_ptr<Store> Open(const SqliteOptions& o) {
    auto store = OpenSqlite(o);
    EXPECT_TRUE(store.has_value()) << store.error().ToString();
    return store ? std::move(*store) : nullptr;
  }
  std::unique_ptr<Store> Open() { return Open(Options()); }

  Recorded Record(Store& store, const Message& m,
                  std::optional<ClusterId> cluster = std::nullopt,
                  const WaveRule& rule = WaveRule{}) {
    auto r = store.Record(m, Join{.cluster = cluster, .seen = {}}, rule);
    EXPECT_TRUE(r.has_value()) << r.error().ToString();
    return r ? *r : Recorded{};
  }

  std::vector<std::string> Log() {
    std::lock_guard<std::mutex> lock(log_mu_);
    return log_;
  }

  // A background prune every 200 ms of messages older than 10 minutes, and a
  // short busy timeout, for the tests of pruning under another writer.
  SqliteOptions PruneOften() {
    SqliteOptions o = Options();
    o.retention = std::chrono::minutes(10);
    o.maintenance_interval = std::chrono::milliseconds(200);
    o.busy_timeout = std::chrono::milliseconds(5);
    return o;
  }

  // Another connection to the store's file, in a write transaction (what
  // another process's writer holds), until ReleaseWriteLock.
  void HoldWriteLock() {
    ASSERT_EQ(sqlite3_open(dir_.File("mailwave.db").c_str(), &other_),
              SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(other_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr),
        SQLITE_OK);
  }
  void ReleaseWriteLock() {
    ASSERT_EQ(sqlite3_exec(other_, "ROLLBACK", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(other_);
    other_ = nullptr;
  }
  void TearDown() override {
    if (other_ != nullptr) sqlite3_close(other_);
  }

  TempDir dir_;
  sqlite3* other_ = nullptr;
  std::mutex log_mu_;
  std::vector<std::string> log_;
};

TEST_F(StoreTest, ExactAndNearDuplicatesAreFound) {
  auto store = Open();
  const std::string body = Body(1, 30);
  const Recorded a = Record(*store, MessageOf(body, 1000));
  const Recorded b = Record(*store, MessageOf(EditSentence(body, 4, 7), 2000));
  Record(*store, MessageOf(Body(2, 30), 3000));  // unrelated

  auto exact = store->Find(MessageOf(body, 4000));
  ASSERT_TRUE(exact.has_value());
  ASSERT_EQ(exact->candidates.size(), 2u);
  EXPECT_EQ(exact->candidates[0].id, a.id);
  EXPECT_TRUE(exact->candidates[0].exact);
  EXPECT_EQ(exact->candidates[1].id, b.id);
  EXPECT_FALSE(exact->candidates[1].exact);
  EXPECT_GT(exact->candidates[1].shared_keys, 3u);
  ASSERT_EQ(exact->clusters.size(), 2u);
  EXPECT_EQ(exact->clusters[0].first.id, a.cluster.id);
  ASSERT_TRUE(exact->clusters[0].second.has_value());
  EXPECT_EQ(exact->clusters[0].second->body_sha1,
            MessageOf(body, 0).fingerprint.body_sha1);
  // The decoded fingerprint compares as the original does.
  const fingerprint::Options fo;
  EXPECT_TRUE(fingerprint::Compare(exact->candidates[1].fingerprint,
                                   MessageOf(body, 0).fingerprint, fo)
                  .duplicate);

  // A variant with another sentence changed finds both, near ones first.
  auto near = store->Find(MessageOf(EditSentence(body, 20, 8), 5000));
  ASSERT_TRUE(near.has_value());
  ASSERT_EQ(near->candidates.size(), 2u);
  EXPECT_FALSE(near->candidates[0].exact);
  EXPECT_EQ(near->skipped_rows, 0u);

  // An empty body has no keys and finds nothing.
  auto empty = store->Find(MessageOf("", 6000));
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->candidates.empty());
}

// A message found only through one kind of key: a fingerprint by hand whose
// other keys match nothing stored.
TEST_F(StoreTest, EachKeyKindFindsAlone) {
  auto store = Open();
  const Message stored = MessageOf(Body(3, 40), 1000);
  const Recorded r = Record(*store, stored);
  const fingerprint::Fingerprint& fp = stored.fingerprint;
  auto alone = [&fp]() {
    fingerprint::Fingerprint q;
    q.body_bytes = fp.body_bytes;
    q.body_sha1 = fp.body_sha1;
    q.body_sha1[0] ^= 0x80;   // another body: no exact key in common
    q.simhash = ~fp.simhash;  // no SimHash band in common
    return q;
  };
  fingerprint::Fingerprint by_blocks = alone();
  by_blocks.blocks = fp.blocks;
  fingerprint::Fingerprint by_simhash = alone();
  by_simhash.simhash = fp.simhash ^ 0x5;
  fingerprint::Fingerprint by_ctph = alone();
  by_ctph.ctph = fp.ctph;
  ASSERT_GE(fp.ctph.sig.size(), kCtphGram);
  for (const auto* q : {&by_blocks, &by_simhash, &by_ctph}) {
    Message m;
    m.fingerprint = *q;
    auto found = store->Find(m);
    ASSERT_TRUE(found.has_value());
    ASSERT_EQ(found->candidates.size(), 1u);
    EXPECT_EQ(found->candidates[0].id, r.id);
    EXPECT_FALSE(found->candidates[0].exact);
  }
}

// 500 messages share one block key; each also has keys of its own.
fingerprint::Fingerprint SharingOneKey(int i) {
  fingerprint::Fingerprint fp;
  fp.body_bytes = 100;
  fp.body_sha1[0] = static_cast<std::uint8_t>(i);
  fp.body_sha1[1] = static_cast<std::uint8_t>(i >> 8);
  fp.body_sha1[2] = 0x5a;
  fp.blocks.keys = {{1, 0, 10},
                    {1000000 + static_cast<std::uint64_t>(i), 1, 10}};
  fp.simhash = 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(i + 1);
  return fp;
}

TEST_F(StoreTest, AKeySharedByManyCostsMaxPerKeyReads) {
  SqliteOptions o = Options();
  o.max_per_key = 64;
  o.max_candidates = 10;
  auto store = Open(o);
  std::vector<std::int64_t> ids;
  for (int i = 0; i < 500; ++i) {
    Message m;
    m.fingerprint = SharingOneKey(i);
    m.arrival = i;
    ids.push_back(Record(*store, m).id);
  }
  Message q;
  q.fingerprint = SharingOneKey(100000);  // shares block key 1 alone
  const std::uint64_t before = TEST_IndexRowsRead(store.get());
  auto found = store->Find(q);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(TEST_IndexRowsRead(store.get()) - before, 64u);
  ASSERT_EQ(found->candidates.size(), 10u);
  // Equal ranks: newest first.
  for (std::size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(found->candidates[i].id, ids[499 - i]);
    EXPECT_EQ(found->candidates[i].shared_keys, 1u);
  }
  // A message that shares two keys comes first though others are newer.
  // (Shared keys are counted among the max_per_key newest rows of each key:
  // an old message that shares a crowded key is counted only through its
  // other keys.)
  q.fingerprint.blocks.keys.push_back({1000000 + 450, 2, 10});
  std::sort(q.fingerprint.blocks.keys.begin(), q.fingerprint.blocks.keys.end());
  found = store->Find(q);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->candidates[0].id, ids[450]);
  EXPECT_EQ(found->candidates[0].shared_keys, 2u);
  EXPECT_EQ(found->candidates[1].id, ids[499]);
}

// The rows stored under the block key every SharingOneKey message has.
std::int64_t SharedKeyRows(const std::string& path) {
  const fingerprint::Options fo;
  std::vector<std::uint32_t> a = IndexKeys(SharingOneKey(1), fo);
  std::vector<std::uint32_t> b = IndexKeys(SharingOneKey(2), fo);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<std::uint32_t> shared;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                        std::back_inserter(shared));
  EXPECT_EQ(shared.size(), 1u);
  if (shared.size() != 1) return -1;
  const RowRange range = KeyRows(shared[0]);
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr),
            SQLITE_OK);
  sqlite3_stmt* q = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(
                db, "SELECT count(*) FROM idx WHERE k BETWEEN ?1 AND ?2", -1,
                &q, nullptr),
            SQLITE_OK);
  sqlite3_bind_int64(q, 1, range.lo);
  sqlite3_bind_int64(q, 2, range.hi);
  std::int64_t n = -1;
  if (sqlite3_step(q) == SQLITE_ROW) n = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(db);
  return n;
}

// Find reads a key's newest max_per_key rows and no others, so Record
// deletes the older ones (a few at a time): a wave's shared keys keep about
// max_per_key rows, not one per copy, and what Find answers is unchanged.
TEST_F(StoreTest, AKeySharedByManyKeepsAboutMaxPerKeyRows) {
  SqliteOptions o = Options();
  o.max_per_key = 16;
  o.max_candidates = 10;
  std::vector<std::int64_t> ids;
  {
    auto store = Open(o);
    for (int i = 0; i < 500; ++i) {
      Message m;
      m.fingerprint = SharingOneKey(i);
      m.arrival = i;
      ids.push_back(Record(*store, m).id);
    }
    const std::int64_t rows = SharedKeyRows(o.path);
    EXPECT_GE(rows, 16);
    EXPECT_LE(rows, 16 + 32);  // 500 without the trim

    Message q;
    q.fingerprint = SharingOneKey(100000);  // shares the block key alone
    const std::uint64_t before = TEST_IndexRowsRead(store.get());
    auto found = store->Find(q);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(TEST_IndexRowsRead(store.get()) - before, 16u);
    ASSERT_EQ(found->candidates.size(), 10u);
    for (std::size_t i = 0; i < 10; ++i)
      EXPECT_EQ(found->candidates[i].id, ids[499 - i]);
  }
  // A store kept with a larger max_per_key (or written before the trim)
  // loses its excess as its keys get new rows.
  o.max_per_key = 4;
  auto store = Open(o);
  for (int i = 500; i < 600; ++i) {
    Message m;
    m.fingerprint = SharingOneKey(i);
    m.arrival = i;
    Record(*store, m);
  }
  const std::int64_t rows = SharedKeyRows(o.path);
  EXPECT_GE(rows, 4);
  EXPECT_LE(rows, 4 + 32);
}

TEST_F(StoreTest, JoinNewAndVanishedClusters) {
  auto store = Open();
  const std::string body = Body(5, 20);
  const Recorded a = Record(*store, MessageOf(body, 1000, "x@a"));
  EXPECT_NE(a.cluster.id, 0u);
  EXPECT_EQ(a.cluster.canonical, a.id);
  EXPECT_EQ(a.cluster.size, 1u);
  EXPECT_EQ(a.cluster.first_seen, 1000);
  const Recorded b = Record(*store, MessageOf(body, 2000, "y@a"), a.cluster.id);
  EXPECT_EQ(b.cluster.id, a.cluster.id);
  EXPECT_EQ(b.cluster.size, 2u);
  EXPECT_EQ(b.cluster.canonical, a.id);
  EXPECT_EQ(b.cluster.last_seen, 2000);
  EXPECT_EQ(b.cluster.language, "en");
  // A cluster that no longer exists: a new one, this message its canonical.
  ClusterId gone = a.cluster.id + 1;
  while (gone == 0 || gone == a.cluster.id) ++gone;
  const Recorded c = Record(*store, MessageOf(body, 3000), gone);
  EXPECT_NE(c.cluster.id, a.cluster.id);
  EXPECT_EQ(c.cluster.canonical, c.id);
  EXPECT_EQ(c.cluster.size, 1u);

  auto found = store->FindCluster(a.cluster.id);
  ASSERT_TRUE(found.has_value());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->size, 2u);
  EXPECT_EQ((*found)->senders, 2u);
  auto none = store->FindCluster(gone == c.cluster.id ? gone + 1 : gone);
  ASSERT_TRUE(none.has_value());
  auto listed = store->Clusters(false, WaveRule{}, 0, 10);
  ASSERT_TRUE(listed.has_value());
  ASSERT_EQ(listed->size(), 1u);  // size >= 2 only
  EXPECT_EQ((*listed)[0].id, a.cluster.id);
  EXPECT_EQ(ClusterIdString(a.cluster.id).size(), 8u);
  EXPECT_EQ(ParseClusterId(ClusterIdString(a.cluster.id)), a.cluster.id);
  EXPECT_EQ(ParseClusterId("7f3a9c21"), 0x7f3a9c21u);
  EXPECT_EQ(ParseClusterId("ABC"), 0xabcu);
  EXPECT_FALSE(ParseClusterId("").has_value());
  EXPECT_FALSE(ParseClusterId("123456789").has_value());
  EXPECT_FALSE(ParseClusterId("-1").has_value());
  EXPECT_FALSE(ParseClusterId("00000000").has_value());
  EXPECT_FALSE(ParseClusterId("12g4").has_value());
}

TEST_F(StoreTest, NewClusterChecksMessagesRecordedSinceTheLookup) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  testing::ExpectNewClusterChecksNewerMessages(*store);
}

// Milter threads, or a milter and `mailwave check`, that see the first copies
// of a wave at the same moment end in one cluster (checked by hand with
// max_races 0, i.e. without Join::seen: 2 to 7 clusters in most of 10 runs of
// each test).
TEST_F(StoreTest, RacingFirstCopiesFromThreadsEndInOneCluster) {
  const SqliteOptions o = Options();
  auto first = Open(o);  // makes the file before the writers race to
  ASSERT_NE(first, nullptr);
  auto r = testing::RaceFirstCopies([&] { return Open(o); }, 6, 3,
                                    /*processes=*/false, 2);
  EXPECT_EQ(r.failures, 0);
  EXPECT_EQ(r.recorded, 18);
  EXPECT_EQ(r.clusters.size(), 1u) << r.conflicts << " conflicts";
}

TEST_F(StoreTest, RacingFirstCopiesFromProcessesEndInOneCluster) {
  SqliteOptions o = Options();
  o.log = nullptr;  // the children's copies of the fixture are not read
  { auto made = Open(o); }
  auto r = testing::RaceFirstCopies([&] { return Open(o); }, 4, 3,
                                    /*processes=*/true, 2);
  EXPECT_EQ(r.failures, 0);
  EXPECT_EQ(r.recorded, 12);
  EXPECT_EQ(r.clusters.size(), 1u) << r.conflicts << " conflicts";
}

// Group commit (SqliteOptions::commit_delay): three seconds are far longer
// than any of these tests takes between a Record and the check that follows
// it, even under ASan on a loaded host, so what a lookup sees before the
// commit is deterministic here.
// These tests look up on read connections, which see a batch at its commit
// only; a free writer's connection serves Find otherwise and sees the batch
// at once (GroupCommitFindOnTheFreeWriterSeesTheBatch).
constexpr std::chrono::milliseconds kLongDelay{3000};
SqliteOptions GroupCommit(SqliteOptions o) {
  o.commit_delay = kLongDelay;
  o.find_on_writer = false;
  return o;
}

// Find on the writer's connection when it is free: it sees the open batch
// (the writer's cache is warm, and the copies of a wave find each other
// before the commit), and the batch stays open.
TEST_F(StoreTest, GroupCommitFindOnTheFreeWriterSeesTheBatch) {
  SqliteOptions o = GroupCommit(Options());
  o.find_on_writer = true;
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  const std::string body = Body(36, 20);
  std::optional<ClusterId> cluster;
  for (int i = 0; i < 3; ++i) {
    cluster = Record(*store, MessageOf(body, 1000 + i), cluster).cluster.id;
  }
  auto found = store->Find(MessageOf(body, 2000));
  ASSERT_TRUE(found.has_value()) << found.error().ToString();
  EXPECT_EQ(found->candidates.size(), 3u);
  EXPECT_EQ(TEST_WriterFinds(store.get()), 1u);
  EXPECT_EQ(TEST_GroupCommits(store.get()), 0u) << "the batch stays open";
  const Recorded fourth = Record(*store, MessageOf(body, 3000), cluster);
  EXPECT_EQ(fourth.cluster.size, 4u);
  EXPECT_EQ(TEST_GroupCommits(store.get()), 0u);
  // Without a batch open (commit_delay 0) the writer serves it in a read
  // transaction of its own, which ends with the call.
  store.reset();
  auto again = Open(Options());
  ASSERT_NE(again, nullptr);
  auto all = again->Find(MessageOf(body, 4000));
  ASSERT_TRUE(all.has_value()) << all.error().ToString();
  EXPECT_EQ(all->candidates.size(), 4u);
  EXPECT_EQ(TEST_WriterFinds(again.get()), 1u);
  Record(*again, MessageOf(Body(37, 20), 5000));
  EXPECT_EQ(again->GetStats()->messages, 5u);
}

TEST_F(StoreTest, GroupCommitCommitsABatchOnceAfterTheDelay) {
  auto store = Open(GroupCommit(Options()));
  ASSERT_NE(store, nullptr);
  const std::string body = Body(30, 20);
  const auto start = std::chrono::steady_clock::now();
  std::optional<ClusterId> cluster;
  for (int i = 0; i < 10; ++i) {
    const Recorded r = Record(*store, MessageOf(body, 1000 + i), cluster);
    EXPECT_EQ(r.cluster.size, static_cast<std::uint64_t>(i + 1))
        << "the writer sees its own batch";
    cluster = r.cluster.id;
  }
  EXPECT_EQ(TEST_GroupCommits(store.get()), 0u);
  auto before = store->Find(MessageOf(body, 2000));
  ASSERT_TRUE(before.has_value());
  EXPECT_TRUE(before->candidates.empty()) << "lookups see the commit only";
  // The flusher commits the ten in one transaction, a delay after the first.
  while (TEST_GroupCommits(store.get()) == 0 &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, kLongDelay);
  EXPECT_EQ(TEST_GroupCommits(store.get()), 1u);
  auto after = store->Find(MessageOf(body, 2000));
  ASSERT_TRUE(after.has_value());
  EXPECT_EQ(after->candidates.size(), 10u);
}

TEST_F(StoreTest, GroupCommitCommitsAFullBatchAtOnce) {
  auto store = Open(GroupCommit(Options()));
  ASSERT_NE(store, nullptr);
  for (int i = 0; i < 64; ++i) {
    Record(*store, MessageOf(Body(1000 + i, 12), 1000 + i));
  }
  EXPECT_EQ(TEST_GroupCommits(store.get()), 1u);
  Record(*store, MessageOf(Body(2000, 12), 3000));
  EXPECT_EQ(TEST_GroupCommits(store.get()), 1u);
  EXPECT_EQ(store->GetStats()->messages, 64u);
}

TEST_F(StoreTest, GroupCommitIsCommittedWhenTheStoreCloses) {
  const std::string body = Body(31, 20);
  {
    auto store = Open(GroupCommit(Options()));
    ASSERT_NE(store, nullptr);
    Record(*store, MessageOf(body, 1000));
  }
  auto store = Open();
  auto found = store->Find(MessageOf(body, 2000));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->candidates.size(), 1u);
}

// The copy that raced with a batched first copy is told so (on the writer's
// connection, which sees the batch), and the conflict commits the batch, so
// that the copy's next lookup joins the first copy's cluster.
TEST_F(StoreTest, GroupCommitConflictCommitsSoTheNextLookupSeesTheRace) {
  auto store = Open(GroupCommit(Options()));
  ASSERT_NE(store, nullptr);
  const std::string body = Body(32, 20);
  const Message first = MessageOf(body, 1000, "a@x");
  const Message copy = MessageOf(body, 1001, "b@x");
  auto lf = store->Find(first);
  ASSERT_TRUE(lf.has_value());
  auto rf = store->Record(
      first, Join{.cluster = std::nullopt, .seen = lf->seen}, WaveRule{});
  ASSERT_TRUE(rf.has_value()) << rf.error().ToString();
  auto lc = store->Find(copy);
  ASSERT_TRUE(lc.has_value());
  EXPECT_TRUE(lc->candidates.empty());
  auto rc = store->Record(copy, Join{.cluster = std::nullopt, .seen = lc->seen},
                          WaveRule{});
  ASSERT_FALSE(rc.has_value());
  EXPECT_EQ(rc.error().code(), Error::Code::kConflict);
  EXPECT_EQ(TEST_GroupCommits(store.get()), 1u);
  auto again = store->Find(copy);
  ASSERT_TRUE(again.has_value());
  ASSERT_EQ(again->candidates.size(), 1u);
  EXPECT_EQ(again->candidates[0].id, rf->id);
}

// Each writer its own store, so each holds the file's write lock for a batch
// while the others wait: the configuration's default delay (20 ms) and busy
// timeout (200 ms).
TEST_F(StoreTest, GroupCommitRacingFirstCopiesFromThreadsEndInOneCluster) {
  SqliteOptions o = Options();
  o.commit_delay = std::chrono::milliseconds(20);
  ASSERT_EQ(o.busy_timeout, std::chrono::milliseconds(200));
  { auto first = Open(o); }
  auto r = testing::RaceFirstCopies([&] { return Open(o); }, 6, 3,
                                    /*processes=*/false, 2);
  EXPECT_EQ(r.failures, 0);
  EXPECT_EQ(r.recorded, 18);
  EXPECT_EQ(r.clusters.size(), 1u) << r.conflicts << " conflicts";
}

// SetMark and Prune write on the same connection: they end the batch first,
// and their own transaction shows it to every reader at once.
TEST_F(StoreTest, GroupCommitEndsBeforeMarksAndPrunes) {
  auto store = Open(GroupCommit(Options()));
  ASSERT_NE(store, nullptr);
  const Recorded a = Record(*store, MessageOf(Body(33, 20), 1000));
  auto marked = store->SetMark(a.cluster.id, Mark::kSpam, 5000);
  ASSERT_TRUE(marked.has_value()) << marked.error().ToString();
  EXPECT_EQ(TEST_GroupCommits(store.get()), 1u);
  auto seen = store->FindCluster(a.cluster.id);
  ASSERT_TRUE(seen.has_value() && seen->has_value());
  EXPECT_EQ((*seen)->mark, Mark::kSpam);

  Record(*store, MessageOf(Body(34, 20), 2000));
  auto pruned = store->Prune(1500, 10, 1);
  ASSERT_TRUE(pruned.has_value()) << pruned.error().ToString();
  EXPECT_EQ(*pruned, 1u);
  EXPECT_EQ(TEST_GroupCommits(store.get()), 2u);
  EXPECT_EQ(store->GetStats()->messages, 1u);
}

// Another process's writer (`mailwave store allow` beside the milter) gets
// the lock between two batches of a writer that never pauses: the busy
// handler polls often enough to hit gaps of microseconds.
TEST_F(StoreTest, GroupCommitLeavesRoomForAnotherWriter) {
  SqliteOptions o = GroupCommit(Options());
  o.commit_delay = std::chrono::milliseconds(20);
  auto busy = Open(o);
  ASSERT_NE(busy, nullptr);
  const Recorded a = Record(*busy, MessageOf(Body(35, 20), 1000));
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop.load(); ++i) {
      (void)busy->Record(MessageOf(Body(5000 + i % 500, 12), 2000 + i), Join{},
                         WaveRule{});
    }
  });
  SqliteOptions other_options = Options();
  other_options.busy_timeout = std::chrono::milliseconds(2000);
  auto other = Open(other_options);
  ASSERT_NE(other, nullptr);
  int marked = 0;
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    auto m = other->SetMark(a.cluster.id, i % 2 ? Mark::kHam : Mark::kSpam,
                            5000 + i);
    if (m)
      ++marked;
    else
      ADD_FAILURE() << m.error().ToString();
  }
  stop = true;
  writer.join();
  EXPECT_EQ(marked, 5);
  EXPECT_GT(TEST_GroupCommits(busy.get()), 0u);
}

TEST_F(StoreTest, WindowEdgeCountsExactlyTheWindow) {
  auto store = Open();
  const WaveRule rule{100, std::chrono::milliseconds(1000)};
  const std::string body = Body(6, 10);
  // A member exactly `window` before the new message counts ...
  const Recorded a = Record(*store, MessageOf(body, 10000), std::nullopt, rule);
  const Recorded b = Record(*store, MessageOf(body, 11000), a.cluster.id, rule);
  EXPECT_EQ(b.window_size, 2u);
  // ... one a millisecond further back does not.
  const Recorded c = Record(*store, MessageOf(body, 20000), std::nullopt, rule);
  const Recorded d = Record(*store, MessageOf(body, 21001), c.cluster.id, rule);
  EXPECT_EQ(d.window_size, 1u);
  EXPECT_EQ(d.cluster.size, 2u);
}

TEST_F(StoreTest, BecomesAWaveExactlyOnce) {
  auto store = Open();
  const WaveRule rule{3, std::chrono::milliseconds(60000)};
  const std::string body = Body(7, 10);
  std::optional<ClusterId> cluster;
  std::vector<Recorded> r;
  for (int i = 0; i < 6; ++i) {
    r.push_back(Record(
        *store,
        MessageOf(body, 1000 + i * 10, "s" + std::to_string(i % 2) + "@x"),
        cluster, rule));
    cluster = r.back().cluster.id;
  }
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r[i].became_wave, i == 2) << i;
  ASSERT_EQ(r[2].earlier.size(), 2u);
  EXPECT_EQ(r[2].earlier[0].id, r[0].id);
  EXPECT_EQ(r[2].earlier[1].id, r[1].id);
  EXPECT_EQ(r[2].earlier[0].queue_id, "Q1000");
  EXPECT_EQ(r[2].earlier[0].message_id_hash.size(), 16u);
  EXPECT_TRUE(r[2].cluster.wave);
  EXPECT_EQ(r[2].cluster.wave_since, 1020);
  EXPECT_TRUE(r[5].cluster.wave);
  EXPECT_EQ(r[5].cluster.wave_since, 1020);
  EXPECT_TRUE(r[5].earlier.empty());
  EXPECT_EQ(r[5].cluster.senders, 2u);  // s0 and s1, three times each
  // Six members in the window, counted up to min_size (store.h): what a
  // Record reads stays bounded however large the wave grows.
  EXPECT_EQ(r[1].window_size, 2u);
  EXPECT_EQ(r[2].window_size, 3u);
  EXPECT_EQ(r[5].window_size, 3u);
  EXPECT_EQ(r[5].cluster.size, 6u);

  auto waves = store->Clusters(true, rule, 1100, 10);
  ASSERT_TRUE(waves.has_value());
  EXPECT_EQ(waves->size(), 1u);
  // Long after, the cluster is no wave any more at `now`.
  waves = store->Clusters(true, rule, 1000000, 10);
  ASSERT_TRUE(waves.has_value());
  EXPECT_TRUE(waves->empty());
  auto members = store->Members(*cluster, 4);
  ASSERT_TRUE(members.has_value());
  ASSERT_EQ(members->size(), 4u);
  EXPECT_EQ((*members)[0].id, r[0].id);
  EXPECT_EQ((*members)[3].id, r[3].id);
}

TEST_F(StoreTest, PruneInBatches) {
  auto store = Open();
  const std::string old_body = Body(8, 15);
  const std::string new_body = Body(9, 15);
  std::optional<ClusterId> old_cluster;
  std::optional<ClusterId> mixed;
  std::uint64_t kept_keys = 0;
  const fingerprint::Options fo;
  for (int i = 0; i < 10; ++i) {
    // Messages 0-4: one cluster, wholly before the cut; 5-9: another whose
    // first two (5, 6) are also before it.
    const bool old = i < 5;
    const Message m = MessageOf(old ? old_body : new_body, 1000 + i * 100);
    const Recorded r = Record(*store, m, old ? old_cluster : mixed);
    (old ? old_cluster : mixed) = r.cluster.id;
    if (i >= 7) kept_keys += IndexKeys(m.fingerprint, fo).size();
  }
  const UnixMillis cut = 1000 + 7 * 100;  // messages 0-6 go
  auto first = store->Prune(cut, 2, 1);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(*first, 2u);
  auto rest = store->Prune(cut, 2, 100);
  ASSERT_TRUE(rest.has_value());
  EXPECT_EQ(*rest, 5u);
  auto again = store->Prune(cut, 2, 100);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, 0u);

  auto gone = store->FindCluster(*old_cluster);
  ASSERT_TRUE(gone.has_value());
  EXPECT_FALSE(gone->has_value());
  auto shrunk = store->FindCluster(*mixed);
  ASSERT_TRUE(shrunk.has_value() && shrunk->has_value());
  EXPECT_EQ((*shrunk)->size, 3u);

  auto stats = store->GetStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->messages, 3u);
  EXPECT_EQ(stats->index_rows, kept_keys);  // every pruned message's rows went
  EXPECT_EQ(stats->oldest, cut);
  EXPECT_EQ(stats->newest, 1900);

  // The pruned cluster's body is not found any more.
  auto found = store->Find(MessageOf(old_body, 5000));
  ASSERT_TRUE(found.has_value());
  for (const Candidate& c : found->candidates) {
    EXPECT_NE(c.cluster, *old_cluster);
  }
}

// Fetch reads the messages the comparison engine named, as Find reads its
// candidates; ForEach walks what the engine's window is loaded from.
TEST_F(StoreTest, FetchAndForEach) {
  auto store = Open();
  const Recorded a = Record(*store, MessageOf(Body(20, 20), 1000));
  const Recorded b =
      Record(*store, MessageOf(Body(21, 20), 2000), a.cluster.id);
  const Recorded c = Record(*store, MessageOf(Body(22, 20), 3000));
  const std::int64_t ids[] = {b.id, c.id, 999999};
  auto got = store->Fetch(ids);
  ASSERT_TRUE(got.has_value()) << got.error().ToString();
  ASSERT_EQ(got->candidates.size(), 2u);  // 999999 is not stored
  std::vector<std::int64_t> fetched;
  for (const Candidate& x : got->candidates) {
    fetched.push_back(x.id);
    EXPECT_FALSE(x.exact);
    EXPECT_EQ(x.shared_keys, 0u);
  }
  std::sort(fetched.begin(), fetched.end());
  EXPECT_EQ(fetched, (std::vector<std::int64_t>{b.id, c.id}));
  // b's cluster comes with its canonical, a, which was not asked for.
  ASSERT_EQ(got->clusters.size(), 2u);
  bool saw_a = false;
  for (const auto& [cluster, canonical] : got->clusters) {
    if (cluster.id != a.cluster.id) continue;
    saw_a = true;
    EXPECT_EQ(cluster.canonical, a.id);
    ASSERT_TRUE(canonical.has_value());
    EXPECT_EQ(canonical->body_sha1,
              MessageOf(Body(20, 20), 0).fingerprint.body_sha1);
  }
  EXPECT_TRUE(saw_a);
  EXPECT_TRUE(store->Fetch({})->candidates.empty());

  std::vector<std::pair<std::int64_t, UnixMillis>> walked;
  auto n = store->ForEach(1500, [&](std::int64_t id, UnixMillis arrival,
                                    const fingerprint::Fingerprint& fp) {
    EXPECT_GT(fp.body_bytes, 0u);
    walked.emplace_back(id, arrival);
    return true;
  });
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(*n, 2u);
  EXPECT_EQ(walked, (std::vector<std::pair<std::int64_t, UnixMillis>>{
                        {b.id, 2000}, {c.id, 3000}}));
  // fn returning false stops the walk.
  std::size_t calls = 0;
  ASSERT_TRUE(store
                  ->ForEach(0,
                            [&](std::int64_t, UnixMillis,
                                const fingerprint::Fingerprint&) {
                              ++calls;
                              return false;
                            })
                  .has_value());
  EXPECT_EQ(calls, 1u);
}

TEST_F(StoreTest, ClusterOutlivesItsCanonical) {
  auto store = Open();
  const std::string body = Body(10, 15);
  const Recorded a = Record(*store, MessageOf(body, 1000));
  Record(*store, MessageOf(body, 2000), a.cluster.id);
  ASSERT_EQ(*store->Prune(1500, 100, 10), 1u);
  auto found = store->Find(MessageOf(body, 3000));
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->candidates.size(), 1u);
  ASSERT_EQ(found->clusters.size(), 1u);
  EXPECT_EQ(found->clusters[0].first.id, a.cluster.id);
  EXPECT_EQ(found->clusters[0].first.canonical, a.id);
  EXPECT_FALSE(found->clusters[0].second.has_value());
  const Recorded c = Record(*store, MessageOf(body, 3000), a.cluster.id);
  EXPECT_EQ(c.cluster.id, a.cluster.id);
  EXPECT_EQ(c.cluster.size, 2u);
}

// A message as the pipeline records one: who sent it, whether that was
// authenticated, from which network, to how many.
Message From(const std::string& body, UnixMillis arrival,
             const std::string& identity, bool authenticated,
             const std::string& network, std::uint32_t recipients) {
  Message m =
      MessageOf(body, arrival,
                "bounce-" + std::to_string(arrival) + "@lists.example.net");
  m.identity = identity;
  m.authenticated = authenticated;
  m.network = network;
  m.recipients = recipients;
  return m;
}

void ExpectCounts(const Cluster& c, std::uint64_t size, std::uint64_t senders,
                  std::uint64_t authenticated, std::uint64_t networks,
                  std::uint64_t recipients) {
  EXPECT_EQ(c.size, size);
  EXPECT_EQ(c.senders, senders);
  EXPECT_EQ(c.authenticated, authenticated);
  EXPECT_EQ(c.networks, networks);
  EXPECT_EQ(c.recipients, recipients);
}

// Distinct identities (the envelope sender when there is none), distinct
// authenticated identities, distinct known networks and the recipients of a
// cluster's members, as Record, FindCluster, Clusters, Find and Fetch give
// them.
TEST_F(StoreTest, CountsIdentitiesNetworksAndRecipients) {
  auto store = Open();
  const std::string body = Body(30, 20);
  const Recorded a = Record(
      *store, From(body, 1000, "a:example.com", true, "192.0.2.0/24", 3));
  ExpectCounts(a.cluster, 1, 1, 1, 1, 3);
  const ClusterId id = a.cluster.id;
  // The same identity from another network; 0 recipients counts as one.
  Recorded r =
      Record(*store,
             From(body, 2000, "a:example.com", true, "198.51.100.0/24", 0), id);
  ExpectCounts(r.cluster, 2, 1, 1, 2, 4);
  // Another identity, unauthenticated, from the first network.
  r = Record(*store,
             From(body, 3000, "u:example.org", false, "192.0.2.0/24", 2), id);
  ExpectCounts(r.cluster, 3, 2, 1, 2, 6);
  // The same key authenticated later counts as authenticated, once.
  r = Record(*store, From(body, 4000, "u:example.org", true, "192.0.2.0/24", 1),
             id);
  ExpectCounts(r.cluster, 4, 2, 2, 2, 7);
  r = Record(*store, From(body, 4500, "u:example.org", true, "192.0.2.0/24", 1),
             id);
  ExpectCounts(r.cluster, 5, 2, 2, 2, 8);
  // No identity: the envelope sender counts, twice the same one once; an
  // unknown network is not counted.
  r = Record(*store, MessageOf(body, 5000, "x@example.com"), id);
  ExpectCounts(r.cluster, 6, 3, 2, 2, 9);
  r = Record(*store, MessageOf(body, 6000, "x@example.com"), id);
  ExpectCounts(r.cluster, 7, 3, 2, 2, 10);
  r = Record(*store, MessageOf(body, 7000, "y@example.com"), id);
  ExpectCounts(r.cluster, 8, 4, 2, 2, 11);

  auto found = store->FindCluster(id);
  ASSERT_TRUE(found.has_value() && found->has_value());
  ExpectCounts(**found, 8, 4, 2, 2, 11);
  auto list = store->Clusters(false, WaveRule{}, 7000, 10);
  ASSERT_TRUE(list.has_value());
  ASSERT_EQ(list->size(), 1u);
  ExpectCounts((*list)[0], 8, 4, 2, 2, 11);
  auto lookup = store->Find(MessageOf(body, 8000));
  ASSERT_TRUE(lookup.has_value());
  ASSERT_EQ(lookup->clusters.size(), 1u);
  ExpectCounts(lookup->clusters[0].first, 8, 4, 2, 2, 11);
  const std::int64_t ids[] = {a.id};
  auto fetched = store->Fetch(ids);
  ASSERT_TRUE(fetched.has_value());
  ASSERT_EQ(fetched->clusters.size(), 1u);
  ExpectCounts(fetched->clusters[0].first, 8, 4, 2, 2, 11);

  // A message of no identity, network nor recipients starts a cluster of
  // one sender and one recipient.
  const Recorded alone = Record(*store, MessageOf(Body(31, 20), 9000));
  ExpectCounts(alone.cluster, 1, 1, 0, 0, 1);
}

// Prune takes a member's recipients off with it, as it takes it off size;
// the distinct identities and networks are those the cluster saw while it
// lived, as `senders` always was, and their rows go with the cluster.
TEST_F(StoreTest, PruneKeepsCountsConsistent) {
  auto store = Open();
  const std::string body = Body(32, 20);
  const Recorded a =
      Record(*store, From(body, 1000, "a:one", true, "192.0.2.0/24", 2));
  Record(*store, From(body, 2000, "u:two", false, "198.51.100.0/24", 3),
         a.cluster.id);
  const Recorded c =
      Record(*store, From(body, 3000, "u:three", false, "203.0.113.0/24", 4),
             a.cluster.id);
  ExpectCounts(c.cluster, 3, 3, 1, 3, 9);
  ASSERT_EQ(*store->Prune(1500, 100, 10), 1u);
  auto left = store->FindCluster(a.cluster.id);
  ASSERT_TRUE(left.has_value() && left->has_value());
  ExpectCounts(**left, 2, 3, 1, 3, 7);
  // The identity seen before is not counted again.
  const Recorded d = Record(
      *store, From(body, 4000, "a:one", true, "192.0.2.0/24", 1), a.cluster.id);
  ExpectCounts(d.cluster, 3, 3, 1, 3, 8);
  ASSERT_EQ(*store->Prune(5000, 100, 10), 3u);
  auto gone = store->FindCluster(a.cluster.id);
  ASSERT_TRUE(gone.has_value());
  EXPECT_FALSE(gone->has_value());
  store.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir_.File("mailwave.db").c_str(), &db), SQLITE_OK);
  for (const char* table : {"cluster_senders", "cluster_networks"}) {
    const std::string sql = std::string("SELECT count(*) FROM ") + table;
    sqlite3_stmt* stmt = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int64(stmt, 0), 0) << table;
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
}

TEST_F(StoreTest, SetMarkSetsClearsAndSurvivesReopen) {
  const std::string body = Body(33, 20);
  Recorded a;
  Recorded single;
  {
    auto store = Open();
    a = Record(*store, MessageOf(body, 1000));
    Record(*store, MessageOf(body, 2000), a.cluster.id);
    single = Record(*store, MessageOf(Body(34, 20), 3000));
    EXPECT_EQ(a.cluster.mark, Mark::kNone);
    EXPECT_EQ(a.cluster.marked_at, 0);

    auto spam = store->SetMark(a.cluster.id, Mark::kSpam, 5000);
    ASSERT_TRUE(spam.has_value()) << spam.error().ToString();
    EXPECT_EQ(spam->id, a.cluster.id);
    EXPECT_EQ(spam->mark, Mark::kSpam);
    EXPECT_EQ(spam->marked_at, 5000);
    EXPECT_EQ(spam->size, 2u);
    // The latest word stands.
    auto ham = store->SetMark(a.cluster.id, Mark::kHam, 6000);
    ASSERT_TRUE(ham.has_value());
    EXPECT_EQ(ham->mark, Mark::kHam);
    EXPECT_EQ(ham->marked_at, 6000);
    // A cluster of one can be marked too.
    auto one = store->SetMark(single.cluster.id, Mark::kSpam, 6500);
    ASSERT_TRUE(one.has_value());
    EXPECT_EQ(one->mark, Mark::kSpam);
    EXPECT_EQ(one->size, 1u);

    // The mark comes with the cluster wherever it is read, and stays when it
    // grows.
    const Recorded c = Record(*store, MessageOf(body, 7000), a.cluster.id);
    EXPECT_EQ(c.cluster.mark, Mark::kHam);
    EXPECT_EQ(c.cluster.marked_at, 6000);
    auto lookup = store->Find(MessageOf(body, 8000));
    ASSERT_TRUE(lookup.has_value());
    ASSERT_FALSE(lookup->clusters.empty());
    EXPECT_EQ(lookup->clusters[0].first.mark, Mark::kHam);
    auto list = store->Clusters(false, WaveRule{}, 8000, 10);
    ASSERT_TRUE(list.has_value());
    ASSERT_EQ(list->size(), 1u);
    EXPECT_EQ((*list)[0].mark, Mark::kHam);

    ClusterId missing = a.cluster.id + 1;
    while (missing == 0 || missing == single.cluster.id) ++missing;
    auto none = store->SetMark(missing, Mark::kSpam, 9000);
    ASSERT_FALSE(none.has_value());
    EXPECT_EQ(none.error().code(), Error::Code::kNotFound);
  }
  {
    auto store = Open();
    auto kept = store->FindCluster(a.cluster.id);
    ASSERT_TRUE(kept.has_value() && kept->has_value());
    EXPECT_EQ((*kept)->mark, Mark::kHam);
    EXPECT_EQ((*kept)->marked_at, 6000);
    // Cleared, it reads as never marked.
    auto cleared = store->SetMark(a.cluster.id, Mark::kNone, 10000);
    ASSERT_TRUE(cleared.has_value());
    EXPECT_EQ(cleared->mark, Mark::kNone);
    EXPECT_EQ(cleared->marked_at, 0);
    // The mark lives as long as the cluster.
    ASSERT_EQ(*store->Prune(5000, 100, 10), 3u);
    auto gone = store->SetMark(single.cluster.id, Mark::kHam, 11000);
    ASSERT_FALSE(gone.has_value());
    EXPECT_EQ(gone.error().code(), Error::Code::kNotFound);
  }
  SqliteOptions ro = Options();
  ro.read_only = true;
  auto store = Open(ro);
  auto refused = store->SetMark(a.cluster.id, Mark::kSpam, 12000);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code(), Error::Code::kUnavailable);
  EXPECT_EQ((*store->FindCluster(a.cluster.id))->mark, Mark::kNone);
}

TEST(MarkName, NamesEachMark) {
  EXPECT_EQ(MarkName(Mark::kNone), "none");
  EXPECT_EQ(MarkName(Mark::kHam), "ham");
  EXPECT_EQ(MarkName(Mark::kSpam), "spam");
}

TEST_F(StoreTest, GarbageFileIsMovedAside) {
  const SqliteOptions o = Options();
  {
    std::ofstream out(o.path, std::ios::binary);
    out << std::string(8192, 'x');
  }
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  const auto log = Log();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find(o.path + ".corrupt-"), std::string::npos) << log[0];
  int aside = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path())) {
    if (e.path().string().find(".corrupt-") != std::string::npos) ++aside;
  }
  EXPECT_EQ(aside, 1);
  // The new store works.
  const Recorded r = Record(*store, MessageOf(Body(11, 5), 1));
  EXPECT_GT(r.id, 0);
}

TEST_F(StoreTest, ForeignDatabaseIsMovedAside) {
  const SqliteOptions o = Options();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(o.path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE people(name TEXT)", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  ASSERT_EQ(Log().size(), 1u);
  EXPECT_NE(Log()[0].find("not a mailwave store"), std::string::npos);
  auto stats = store->GetStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->messages, 0u);
}

TEST_F(StoreTest, NewerSchemaIsRefusedAndKept) {
  const SqliteOptions o = Options();
  Open(o).reset();
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(o.path.c_str(), &db), SQLITE_OK);
    const std::string newer =
        "PRAGMA user_version = " + std::to_string(kSchemaVersion + 1);
    ASSERT_EQ(sqlite3_exec(db, newer.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  auto store = OpenSqlite(o);
  ASSERT_FALSE(store.has_value());
  EXPECT_NE(store.error().message().find("newer mailwave"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(o.path));
  EXPECT_TRUE(Log().empty());
}

TEST_F(StoreTest, FullDiskTurnsWritesOffOnceAndLookupsGoOn) {
  auto store = Open();
  const std::string body = Body(12, 20);
  const Recorded first = Record(*store, MessageOf(body, 1));
  auto stats = store->GetStats();
  ASSERT_TRUE(stats.has_value());
  // No room past the pages in use (SQLite keeps at least those): the first
  // insert that needs another page fails.
  ASSERT_TRUE(TEST_SetMaxPageCount(store.get(), 1).has_value());
  // The first few may fit in the free space of the pages in use; from the
  // first that fails, every write fails.
  int first_failure = -1;
  for (int i = 0; i < 50; ++i) {
    auto r =
        store->Record(MessageOf(Body(100 + i, 40), 10 + i), Join{}, WaveRule{});
    if (!r) {
      EXPECT_EQ(r.error().code(), Error::Code::kUnavailable);
      if (first_failure < 0) first_failure = i;
    } else {
      EXPECT_LT(first_failure, 0) << "write " << i << " after writes stopped";
    }
  }
  EXPECT_GE(first_failure, 0);
  EXPECT_LE(first_failure, 20);
  ASSERT_EQ(Log().size(), 1u);
  EXPECT_NE(Log()[0].find("store: writes turned off:"), std::string::npos);
  EXPECT_NE(Log()[0].find("lookups go on"), std::string::npos);
  auto found = store->Find(MessageOf(body, 2));
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->candidates.size(), 1u);
  EXPECT_EQ(found->candidates[0].id, first.id);
  EXPECT_FALSE(store->GetStats()->writable);
  EXPECT_EQ(store->Prune(1000, 10, 1).error().code(),
            Error::Code::kUnavailable);
}

// A write failing inside a batch rolls the batch back, turns writes off once
// and leaves what was committed before for the lookups.
TEST_F(StoreTest, GroupCommitFullDiskLosesTheBatchAlone) {
  auto store = Open(GroupCommit(Options()));
  ASSERT_NE(store, nullptr);
  const std::string body = Body(36, 20);
  const Recorded first = Record(*store, MessageOf(body, 1));
  ASSERT_TRUE(store->SetMark(first.cluster.id, Mark::kHam, 2).has_value());
  ASSERT_TRUE(TEST_SetMaxPageCount(store.get(), 1).has_value());
  // The first few may fit in the free space of the pages in use; from the
  // first that fails, every write fails.
  int first_failure = -1;
  for (int i = 0; i < 50; ++i) {
    auto r =
        store->Record(MessageOf(Body(200 + i, 40), 10 + i), Join{}, WaveRule{});
    if (!r) {
      EXPECT_EQ(r.error().code(), Error::Code::kUnavailable);
      if (first_failure < 0) first_failure = i;
    } else {
      EXPECT_LT(first_failure, 0) << "write " << i << " after writes stopped";
    }
  }
  EXPECT_GE(first_failure, 0);
  EXPECT_LE(first_failure, 20);
  ASSERT_EQ(Log().size(), 1u);
  EXPECT_NE(Log()[0].find("store: writes turned off:"), std::string::npos);
  auto found = store->Find(MessageOf(body, 2));
  ASSERT_TRUE(found.has_value());
  ASSERT_EQ(found->candidates.size(), 1u);
  EXPECT_EQ(found->candidates[0].id, first.id);
  EXPECT_FALSE(store->GetStats()->writable);
  EXPECT_EQ(*store->Check(), "ok");
}

TEST_F(StoreTest, ReadOnlyOpenLooksUpButNeverWrites) {
  const std::string body = Body(13, 20);
  Record(*Open(), MessageOf(body, 1));
  SqliteOptions o = Options();
  o.read_only = true;
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  auto found = store->Find(MessageOf(body, 2));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->candidates.size(), 1u);
  auto r = store->Record(MessageOf(body, 3), Join{}, WaveRule{});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), Error::Code::kUnavailable);
  EXPECT_EQ(*store->Check(), "ok");
}

TEST_F(StoreTest, RestartKeepsClustersAndSecret) {
  const std::string body = Body(14, 20);
  Recorded a;
  std::vector<Member> before;
  {
    auto store = Open();
    a = Record(*store, MessageOf(body, 1000));
    Record(*store, MessageOf(body, 2000), a.cluster.id);
    before = *store->Members(a.cluster.id, 10);
  }
  auto store = Open();
  auto cluster = store->FindCluster(a.cluster.id);
  ASSERT_TRUE(cluster.has_value() && cluster->has_value());
  EXPECT_EQ((*cluster)->size, 2u);
  const std::vector<Member> after = *store->Members(a.cluster.id, 10);
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0].message_id_hash, before[0].message_id_hash);
  // The same Message-ID hashes alike after a restart: the secret was reused.
  const Recorded c = Record(*store, MessageOf(body, 1000), a.cluster.id);
  const std::vector<Member> all = *store->Members(a.cluster.id, 10);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].message_id_hash, all[1].message_id_hash);  // both "1000"
  EXPECT_GT(c.id, a.id);
  EXPECT_EQ(*store->Check(), "ok");
}

TEST_F(StoreTest, ReadersRunWhileOneThreadRecords) {
  auto store = Open();
  constexpr int kMessages = 2000;
  std::vector<Message> messages;
  messages.reserve(kMessages);
  for (int i = 0; i < kMessages; ++i) {
    // 200 templates, ten variants each.
    const std::string body = Body(1000 + i % 200, 8);
    messages.push_back(
        MessageOf(i < 200 ? body : EditSentence(body, i % 8, i), 10000 + i));
  }
  std::atomic<bool> done{false};
  std::atomic<int> errors{0};
  std::atomic<int> finds{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 8; ++t) {
    readers.emplace_back([&, t] {
      for (int i = t; !done.load(); i = (i + 37) % kMessages) {
        auto found = store->Find(messages[i]);
        if (!found) ++errors;
        ++finds;
      }
    });
  }
  std::vector<std::int64_t> ids;
  for (const Message& m : messages) {
    auto r = store->Record(m, Join{}, WaveRule{});
    if (!r) {
      ++errors;
      continue;
    }
    ids.push_back(r->id);
  }
  done = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(errors.load(), 0);
  EXPECT_GT(finds.load(), 0);
  ASSERT_EQ(ids.size(), static_cast<std::size_t>(kMessages));
  EXPECT_EQ(store->GetStats()->messages, static_cast<std::uint64_t>(kMessages));
  // Every record is visible: each exact copy finds its own message first.
  for (int i = 0; i < kMessages; i += 97) {
    auto found = store->Find(messages[i]);
    ASSERT_TRUE(found.has_value());
    ASSERT_FALSE(found->candidates.empty());
    EXPECT_TRUE(found->candidates[0].exact);
  }
}

// A row whose fingerprint no longer decodes (a damaged page, a row written
// under other fingerprint options) is skipped and counted, never compared and
// never a crash; the rest of the lookup goes on.
TEST_F(StoreTest, CorruptFingerprintRowIsSkipped) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const Message m = MessageOf(Body(42, 10), 1000);
  const Recorded first = Record(*store, m);
  const Recorded second =
      Record(*store, MessageOf(Body(42, 10), 2000), first.cluster.id);
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(dir_.File("mailwave.db").c_str(), &db), SQLITE_OK);
    const std::string sql =
        "UPDATE messages SET fingerprint = x'4d0100ff' WHERE id = " +
        std::to_string(first.id);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  auto found = store->Find(m);
  ASSERT_TRUE(found.has_value()) << found.error().ToString();
  EXPECT_GE(found->skipped_rows, 1u);
  ASSERT_FALSE(found->candidates.empty());
  EXPECT_EQ(found->candidates[0].id, second.id);
  for (const Candidate& c : found->candidates) EXPECT_NE(c.id, first.id);
  // The cluster's canonical (the damaged row) comes without a fingerprint.
  ASSERT_EQ(found->clusters.size(), 1u);
  EXPECT_EQ(found->clusters[0].first.canonical, first.id);
  EXPECT_FALSE(found->clusters[0].second.has_value());
}

// The maintenance thread folds the WAL back and, past wal_limit_bytes,
// truncates it even while readers never stop looking up.
TEST_F(StoreTest, WalStaysBoundedUnderConstantReaders) {
  SqliteOptions o = Options();
  o.wal_limit_bytes = 1 << 20;
  o.maintenance_interval = std::chrono::milliseconds(10);
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  const Message probe = MessageOf(Body(7, 8), 1);
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      while (!done.load()) (void)store->Find(probe);
    });
  }
  std::uint64_t max_wal = 0;
  for (int i = 0; i < 3000; ++i) {
    (void)store->Record(MessageOf(Body(5000 + i, 6), 10000 + i), Join{},
                        WaveRule{});
    if (i % 100 == 0) max_wal = std::max(max_wal, store->GetStats()->wal_bytes);
  }
  done = true;
  for (std::thread& t : readers) t.join();
  // Without the TRUNCATE pass this firehose (thousands of commits a second,
  // ~100 KB of WAL each) leaves hundreds of MB of WAL; with it, the WAL stays
  // within what a few maintenance rounds add above the limit.
  EXPECT_LT(max_wal, 64u << 20) << "WAL grew to " << max_wal << " bytes";
  // Once writes stop, a PASSIVE round copies every frame and the next commit
  // rewinds the WAL to journal_size_limit (the limit). A round takes a few
  // maintenance intervals on an idle machine; a loaded one (the suite runs
  // tests in parallel) may need more, so wait for it up to 10 s.
  std::uint64_t wal = 0;
  for (int k = 0; k < 100; ++k) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    (void)store->Record(MessageOf(Body(4999 - k, 6), 9999 - k), Join{},
                        WaveRule{});
    wal = store->GetStats()->wal_bytes;
    if (wal <= o.wal_limit_bytes) break;
  }
  EXPECT_LE(wal, o.wal_limit_bytes);
}

// With `retention` set, the maintenance thread prunes without being asked.
TEST_F(StoreTest, BackgroundPruningFollowsRetention) {
  SqliteOptions o = Options();
  o.retention = std::chrono::minutes(10);
  o.maintenance_interval = std::chrono::milliseconds(10);
  o.prune_batch = 7;
  auto store = Open(o);
  ASSERT_NE(store, nullptr);
  const UnixMillis now = NowMillis();
  for (int i = 0; i < 50; ++i) {
    Record(*store, MessageOf(Body(300 + i, 6), now - 3600'000 + i));  // old
  }
  const Recorded fresh = Record(*store, MessageOf(Body(999, 6), now));
  for (int tries = 0; tries < 300 && store->GetStats()->messages > 1; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(store->GetStats()->messages, 1u);
  auto found = store->Find(MessageOf(Body(999, 6), now));
  ASSERT_TRUE(found.has_value());
  ASSERT_FALSE(found->candidates.empty());
  EXPECT_EQ(found->candidates[0].id, fresh.id);
}

// Another process holding the write lock (here a plain connection in a
// write transaction) makes every background prune fail; the log says so
// once, and once more when pruning works again, not four lines a second.
TEST_F(StoreTest, BackgroundPruneFailureIsLoggedOnce) {
  const UnixMillis now = NowMillis();
  {
    auto filler = Open();  // no retention: nothing is pruned yet
    ASSERT_NE(filler, nullptr);
    for (int i = 0; i < 5; ++i) {
      Record(*filler, MessageOf(Body(400 + i, 6), now - 3600'000 + i));
    }
  }
  // The store is opened first (opening writes), then the lock taken well
  // within its first round (maintenance_interval after the open).
  auto store = Open(PruneOften());
  ASSERT_NE(store, nullptr);
  ASSERT_NO_FATAL_FAILURE(HoldWriteLock());
  ASSERT_EQ(store->GetStats()->messages, 5u);  // the lock came first
  auto count = [&](std::string_view what) {
    int n = 0;
    for (const std::string& line : Log()) {
      n += line.find(what) != std::string::npos ? 1 : 0;
    }
    return n;
  };
  for (int tries = 0; tries < 300 && count("background prune: ") == 0; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // 6 rounds
  EXPECT_EQ(count("background prune: "), 1);
  ReleaseWriteLock();
  for (int tries = 0; tries < 300 && store->GetStats()->messages > 0; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(store->GetStats()->messages, 0u);
  for (int tries = 0; tries < 300 && count("works again") == 0; ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(count("background prune: works again"), 1);
  EXPECT_EQ(count("background prune: "), 2);
}

// A round with nothing old enough to prune only reads: another process holding
// the write lock does not make it fail (it took the write lock every round,
// and logged "database is locked", before).
TEST_F(StoreTest, BackgroundPruneWithNothingToPruneDoesNotWrite) {
  const UnixMillis now = NowMillis();
  auto store = Open(PruneOften());
  ASSERT_NE(store, nullptr);
  Record(*store, MessageOf(Body(500, 6), now));  // recent: nothing to prune
  ASSERT_NO_FATAL_FAILURE(HoldWriteLock());
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));  // 6 rounds
  for (const std::string& line : Log()) {
    EXPECT_EQ(line.find("background prune"), std::string::npos) << line;
  }
  ReleaseWriteLock();
  EXPECT_EQ(store->GetStats()->messages, 1u);
}

// What a stored message costs, by table. MW_STORE_SIZE_MESSAGES sets how many
// (docs/store.md used 20000); 2000 by default to keep the suite fast.
TEST_F(StoreTest, BytesPerMessage) {
  const char* env = std::getenv("MW_STORE_SIZE_MESSAGES");
  const int n = env != nullptr ? std::atoi(env) : 2000;
  const SqliteOptions o = Options();
  {
    auto store = Open(o);
    std::optional<ClusterId> cluster;
    for (int i = 0; i < n; ++i) {
      // Bodies of 4 to 60 sentences (about 0.4 to 6 KB); every tenth joins
      // the previous message's cluster.
      const Message m = MessageOf(Body(50000 + i, 4 + i % 57), i,
                                  "s" + std::to_string(i % 300) + "@x");
      const Recorded r =
          Record(*store, m, i % 10 == 0 ? cluster : std::nullopt);
      cluster = r.cluster.id;
    }
    auto stats = store->GetStats();
    ASSERT_TRUE(stats.has_value());
    std::printf("%.1f index rows per message\n",
                static_cast<double>(stats->index_rows) / n);
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(o.path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(
      db,
      "SELECT name, SUM(pgsize), SUM(payload), SUM(ncell) FROM dbstat "
      "GROUP BY name ORDER BY 2 DESC",
      -1, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close(db);
    GTEST_SKIP() << "no dbstat in this SQLite";
  }
  std::printf("%d messages, %lld bytes on disk (%.1f per message)\n", n,
              static_cast<long long>(std::filesystem::file_size(o.path)),
              static_cast<double>(std::filesystem::file_size(o.path)) / n);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    std::printf("  %-28s %10lld bytes  %7.1f per message  (payload %.1f)\n",
                reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)),
                sqlite3_column_int64(stmt, 1),
                static_cast<double>(sqlite3_column_int64(stmt, 1)) / n,
                static_cast<double>(sqlite3_column_int64(stmt, 2)) / n);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
}

}  // namespace
}  // namespace mw::store
