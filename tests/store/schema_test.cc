#include "schema.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "db.h"
#include "store/sqlite.h"
#include "tests/store/test_util.h"

namespace mw::store {
namespace {

using testing::OpenDb;
using testing::TempDir;

TEST(Schema, NewFileMigratesToCurrentVersion) {
  TempDir dir;
  Db db = OpenDb(dir.File("s.db"));
  ASSERT_EQ(*Inspect(db), FileKind::kEmpty);
  ASSERT_TRUE(Migrate(db, Migrations()).has_value());
  EXPECT_EQ(*db.QueryInt("PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(*Inspect(db), FileKind::kOurs);
  EXPECT_EQ(*QuickCheck(db), "ok");
  // Migrating again is a no-op.
  ASSERT_TRUE(Migrate(db, Migrations()).has_value());
  EXPECT_EQ(*db.QueryInt("PRAGMA user_version"), kSchemaVersion);
}

TEST(Schema, ForeignFileIsNotOurs) {
  TempDir dir;
  Db db = OpenDb(dir.File("s.db"));
  ASSERT_TRUE(db.Exec("CREATE TABLE t(x)").has_value());
  EXPECT_EQ(*Inspect(db), FileKind::kForeign);
  ASSERT_TRUE(db.Exec("DROP TABLE t; PRAGMA application_id = 7").has_value());
  EXPECT_EQ(*Inspect(db), FileKind::kForeign);
}

TEST(Schema, NewerVersionIsRefused) {
  TempDir dir;
  Db db = OpenDb(dir.File("s.db"));
  ASSERT_TRUE(Migrate(db, Migrations()).has_value());
  ASSERT_TRUE(db.Exec("PRAGMA user_version = 99").has_value());
  auto migrated = Migrate(db, Migrations());
  ASSERT_FALSE(migrated.has_value());
  EXPECT_NE(migrated.error().message().find("newer mailwave"),
            std::string::npos);
  EXPECT_EQ(*db.QueryInt("PRAGMA user_version"), 99);
}

TEST(Schema, StepsApplyTogetherOrNotAtAll) {
  TempDir dir;
  Db db = OpenDb(dir.File("s.db"));
  // Two made-up versions on top of the real steps: from the current version
  // both apply in one transaction.
  const std::int64_t v = kSchemaVersion;
  std::vector<Migration> steps(Migrations().begin(), Migrations().end());
  steps.push_back({v, "ALTER TABLE clusters ADD COLUMN note TEXT"});
  steps.push_back({v + 1, "CREATE TABLE extra(x INTEGER)"});
  ASSERT_TRUE(Migrate(db, Migrations()).has_value());
  ASSERT_TRUE(Migrate(db, steps).has_value());
  EXPECT_EQ(*db.QueryInt("PRAGMA user_version"), v + 2);
  EXPECT_EQ(*db.QueryInt("SELECT count(*) FROM sqlite_schema WHERE name = "
                         "'extra'"),
            1);

  // A failing last step leaves the file as it was.
  Db other = OpenDb(dir.File("t.db"));
  ASSERT_TRUE(Migrate(other, Migrations()).has_value());
  std::vector<Migration> bad(Migrations().begin(), Migrations().end());
  bad.push_back({v, "CREATE TABLE fine(x)"});
  bad.push_back({v + 1, "THIS IS NOT SQL"});
  ASSERT_FALSE(Migrate(other, bad).has_value());
  EXPECT_EQ(*other.QueryInt("PRAGMA user_version"), v);
  EXPECT_EQ(*other.QueryInt("SELECT count(*) FROM sqlite_schema WHERE name = "
                            "'fine'"),
            0);
}

// A file made with the version-1 SQL alone, holding a cluster of two,
// migrates in place: its rows stay and read with the new columns' defaults
// (each message one recipient, the cluster's recipients its size, nothing
// authenticated, no network, no mark).
TEST(Schema, Version1RowsMigrateInPlace) {
  TempDir dir;
  Db db = OpenDb(dir.File("s.db"));
  ASSERT_TRUE(Migrate(db, Migrations().first(1)).has_value());
  ASSERT_EQ(*db.QueryInt("PRAGMA user_version"), 1);
  ASSERT_TRUE(db.Exec("INSERT INTO messages(arrival, cluster, body_sha1, "
                      "message_id_hash, sender_hash, size, language, "
                      "queue_id, fingerprint) VALUES "
                      "(1000, 7, 1, 2, 3, 100, 'en', 'Q1', x'00'), "
                      "(2000, 7, 1, 4, 5, 100, 'en', 'Q2', x'00');"
                      "INSERT INTO clusters(id, canonical, first_seen, "
                      "last_seen, size, senders, language) "
                      "VALUES(7, 1, 1000, 2000, 2, 2, 'en');"
                      "INSERT INTO cluster_senders VALUES(7, 3), (7, 5);")
                  .has_value());
  ASSERT_TRUE(Migrate(db, Migrations()).has_value());
  EXPECT_EQ(*db.QueryInt("PRAGMA user_version"), kSchemaVersion);
  EXPECT_EQ(*Inspect(db), FileKind::kOurs);
  EXPECT_EQ(*QuickCheck(db), "ok");
  EXPECT_EQ(*db.QueryInt("SELECT count(*) FROM messages"), 2);
  EXPECT_EQ(*db.QueryInt("SELECT sum(recipients) FROM messages"), 2);
  EXPECT_EQ(*db.QueryInt("SELECT size FROM clusters"), 2);
  EXPECT_EQ(*db.QueryInt("SELECT senders FROM clusters"), 2);
  EXPECT_EQ(*db.QueryInt("SELECT recipients FROM clusters"), 2);
  EXPECT_EQ(*db.QueryInt("SELECT authenticated FROM clusters"), 0);
  EXPECT_EQ(*db.QueryInt("SELECT networks FROM clusters"), 0);
  EXPECT_EQ(*db.QueryInt("SELECT mark FROM clusters"), 0);
  EXPECT_EQ(*db.QueryInt("SELECT marked_at FROM clusters"), 0);
  EXPECT_EQ(*db.QueryInt("SELECT count(*) FROM cluster_senders "
                         "WHERE authenticated = 0"),
            2);
  EXPECT_EQ(*db.QueryInt("SELECT count(*) FROM cluster_networks"), 0);
}

// tests/fixtures/store/v1.db: a version-1 store of the messages below, made
// by this file's FixtureMessages with
//   MW_WRITE_STORE_FIXTURE=$PWD/tests/fixtures/store/v1.db
//     build/bin/store_schema_test --gtest_also_run_disabled_tests
//     --gtest_filter=Schema.DISABLED_WriteV1Fixture
// (then checkpointed and closed, so the file holds everything; no -wal).
// Its fingerprints are in the stored form of fingerprint/encoding.h version
// 1; a new encoding version must keep decoding them. The file is kept as
// written at schema 1 (the tool now writes the current schema):
// OpensVersion1Fixture checks that it migrates to version 2 keeping its data.
struct FixtureMessage {
  std::uint64_t seed;
  UnixMillis arrival;
  bool join_previous;
};
constexpr FixtureMessage kFixture[] = {
    {100, 1700000000000, false}, {100, 1700000001000, true},
    {100, 1700000002000, true},  {200, 1700000003000, false},
    {300, 1700000004000, false},
};

Message FixtureMessageOf(const FixtureMessage& f) {
  return testing::MessageOf(testing::Body(f.seed, 12), f.arrival,
                            "sender" + std::to_string(f.arrival) + "@x");
}

// Disabled: a tool, not a test (it would count as skipped in every run).
TEST(Schema, DISABLED_WriteV1Fixture) {
  const char* out = std::getenv("MW_WRITE_STORE_FIXTURE");
  if (out == nullptr) GTEST_SKIP() << "set MW_WRITE_STORE_FIXTURE to write";
  TempDir dir;
  SqliteOptions options;
  options.path = dir.File("v1.db");
  {
    auto store = OpenSqlite(options);
    ASSERT_TRUE(store.has_value());
    std::optional<ClusterId> last;
    for (const FixtureMessage& f : kFixture) {
      Join join;
      if (f.join_previous) join.cluster = last;
      auto r = (*store)->Record(FixtureMessageOf(f), join, WaveRule{});
      ASSERT_TRUE(r.has_value());
      last = r->cluster.id;
    }
  }
  std::filesystem::copy_file(options.path, out,
                             std::filesystem::copy_options::overwrite_existing);
}

TEST(Schema, OpensVersion1Fixture) {
  TempDir dir;
  SqliteOptions options;
  options.path = dir.File("v1.db");
  std::filesystem::copy_file(
      std::string(MW_SOURCE_DIR) + "/tests/fixtures/store/v1.db", options.path);
  auto store = OpenSqlite(options);
  ASSERT_TRUE(store.has_value()) << store.error().ToString();
  auto stats = (*store)->GetStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->messages, std::size(kFixture));
  EXPECT_EQ(stats->clusters, 1u);  // the three of seed 100
  for (const FixtureMessage& f : kFixture) {
    auto found = (*store)->Find(FixtureMessageOf(f));
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(found->skipped_rows, 0u)
        << "fingerprints in the fixture do not decode: regenerate it (see "
           "above)";
    ASSERT_FALSE(found->candidates.empty());
    EXPECT_TRUE(found->candidates.front().exact);
    EXPECT_EQ(found->candidates.front().fingerprint.body_sha1,
              FixtureMessageOf(f).fingerprint.body_sha1);
  }
  auto clusters = (*store)->Clusters(false, WaveRule{}, 0, 10);
  ASSERT_TRUE(clusters.has_value());
  ASSERT_EQ(clusters->size(), 1u);
  EXPECT_EQ((*clusters)[0].size, 3u);
  EXPECT_EQ((*clusters)[0].senders, 3u);
  auto members = (*store)->Members((*clusters)[0].id, 10);
  ASSERT_TRUE(members.has_value());
  ASSERT_EQ(members->size(), 3u);
  EXPECT_EQ((*members)[0].arrival, kFixture[0].arrival);
  EXPECT_EQ((*members)[0].queue_id, "Q" + std::to_string(kFixture[0].arrival));

  // Version 2: what version 1 kept counts as it did (one recipient each),
  // what it did not keep starts at zero, and the new fields work on it.
  const Cluster& old = (*clusters)[0];
  EXPECT_EQ(old.recipients, 3u);
  EXPECT_EQ(old.authenticated, 0u);
  EXPECT_EQ(old.networks, 0u);
  EXPECT_EQ(old.mark, Mark::kNone);
  EXPECT_EQ(old.marked_at, 0);
  auto marked = (*store)->SetMark(old.id, Mark::kSpam, 1700000010000);
  ASSERT_TRUE(marked.has_value()) << marked.error().ToString();
  EXPECT_EQ(marked->mark, Mark::kSpam);
  Message joiner = FixtureMessageOf({100, 1700000011000, true});
  joiner.identity = "a:example.com";
  joiner.authenticated = true;
  joiner.network = "192.0.2.0/24";
  joiner.recipients = 4;
  auto joined =
      (*store)->Record(joiner, Join{.cluster = old.id, .seen = {}}, WaveRule{});
  ASSERT_TRUE(joined.has_value()) << joined.error().ToString();
  EXPECT_EQ(joined->cluster.size, 4u);
  EXPECT_EQ(joined->cluster.senders, 4u);
  EXPECT_EQ(joined->cluster.authenticated, 1u);
  EXPECT_EQ(joined->cluster.networks, 1u);
  EXPECT_EQ(joined->cluster.recipients, 7u);
  EXPECT_EQ(joined->cluster.mark, Mark::kSpam);
  // A pruned version-1 member takes its one recipient with it.
  ASSERT_EQ(*(*store)->Prune(kFixture[0].arrival + 1, 100, 1), 1u);
  auto after = (*store)->FindCluster(old.id);
  ASSERT_TRUE(after.has_value() && after->has_value());
  EXPECT_EQ((*after)->size, 3u);
  EXPECT_EQ((*after)->recipients, 6u);
  store->reset();
  Db db = OpenDb(options.path);
  EXPECT_EQ(*db.QueryInt("PRAGMA user_version"), kSchemaVersion);
}

}  // namespace
}  // namespace mw::store
