#include "schema.h"

#include <string>

namespace mw::store {
namespace {

// Version 1. Costs per table are measured in docs/store.md.
//  messages: one row per stored message, hashes only. AUTOINCREMENT so that
//    ids never repeat, even after every message was pruned: index rows carry
//    only an id's low 32 bits and clusters name their canonical by id.
//  messages_cluster: window counts and member lists per cluster.
//  messages_arrival: retention (oldest first) and Stats' oldest/newest.
//  clusters: one row per cluster; id is the random 32-bit public id.
//  cluster_senders: the distinct sender hashes of a cluster.
//  idx: the whole index, one integer per (key, message); see keys.h.
constexpr char kV1[] = R"sql(
CREATE TABLE messages(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  arrival INTEGER NOT NULL,
  cluster INTEGER NOT NULL,
  body_sha1 INTEGER NOT NULL,
  message_id_hash INTEGER NOT NULL,
  sender_hash INTEGER NOT NULL,
  size INTEGER NOT NULL,
  language TEXT NOT NULL,
  queue_id TEXT NOT NULL,
  fingerprint BLOB NOT NULL);
CREATE INDEX messages_cluster ON messages(cluster, arrival);
CREATE INDEX messages_arrival ON messages(arrival);
CREATE TABLE clusters(
  id INTEGER PRIMARY KEY,
  canonical INTEGER NOT NULL,
  first_seen INTEGER NOT NULL,
  last_seen INTEGER NOT NULL,
  size INTEGER NOT NULL,
  senders INTEGER NOT NULL,
  wave INTEGER NOT NULL DEFAULT 0,
  wave_since INTEGER NOT NULL DEFAULT 0,
  language TEXT NOT NULL);
CREATE TABLE cluster_senders(
  cluster INTEGER NOT NULL,
  sender_hash INTEGER NOT NULL,
  PRIMARY KEY(cluster, sender_hash)) WITHOUT ROWID;
CREATE TABLE idx(k INTEGER PRIMARY KEY);
)sql";

// Version 2 (issue 22: wanted bulk vs spread waves). Every step is an ALTER
// TABLE ... ADD COLUMN with a constant default or a new table, so a version-1
// file migrates in place without rewriting a row: SQLite reads the default
// for a column a row was written without. A new file runs both steps.
//  messages.recipients: max(1, Message::recipients), so that Prune can take
//    a pruned member's recipients off its cluster. 1 costs no payload byte
//    (a constant in the record header), and every version-1 message counted 1.
//  clusters: the counts and the site's mark. recipients sums the members
//    still stored, as size counts them: a version-1 cluster's is its size.
//    authenticated and networks count what was recorded since (version 1 kept
//    neither); mark 0 is Mark::kNone, marked_at 0 never.
//  cluster_senders: now the distinct identities (Message::identity's keyed
//    hash, the envelope sender's when it is empty, as version 1 kept it), and
//    whether one of its messages was authenticated: a flag on the row rather
//    than a second table, since 0 and 1 cost no payload byte.
//  cluster_networks: the distinct client networks of a cluster.
constexpr char kV2[] = R"sql(
ALTER TABLE messages ADD COLUMN recipients INTEGER NOT NULL DEFAULT 1;
ALTER TABLE clusters ADD COLUMN authenticated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clusters ADD COLUMN networks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clusters ADD COLUMN recipients INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clusters ADD COLUMN mark INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clusters ADD COLUMN marked_at INTEGER NOT NULL DEFAULT 0;
UPDATE clusters SET recipients = size;
ALTER TABLE cluster_senders ADD COLUMN authenticated INTEGER NOT NULL
  DEFAULT 0;
CREATE TABLE cluster_networks(
  cluster INTEGER NOT NULL,
  network_hash INTEGER NOT NULL,
  PRIMARY KEY(cluster, network_hash)) WITHOUT ROWID;
)sql";

constexpr Migration kMigrations[] = {
    {0, kV1},
    {1, kV2},
};

}  // namespace

std::span<const Migration> Migrations() { return kMigrations; }

Result<FileKind> Inspect(Db& db) noexcept {
  auto app = db.QueryInt("PRAGMA application_id");
  if (!app) return Fail(app.error());
  if (*app == kApplicationId) return FileKind::kOurs;
  if (*app != 0) return FileKind::kForeign;
  auto tables = db.QueryInt("SELECT count(*) FROM sqlite_schema");
  if (!tables) return Fail(tables.error());
  return *tables == 0 ? FileKind::kEmpty : FileKind::kForeign;
}

Result<void> Migrate(Db& db, std::span<const Migration> steps) noexcept {
  const std::int64_t target =
      steps.empty() ? 0 : steps.front().from + std::int64_t(steps.size());
  auto begin = db.Exec("BEGIN IMMEDIATE");
  if (!begin) return Fail(begin.error());
  // Read the version inside the write transaction: another process may have
  // migrated the file between our open and our lock.
  auto version = db.QueryInt("PRAGMA user_version");
  auto fail = [&db](Error e) {
    (void)db.Exec("ROLLBACK");
    return Fail(std::move(e));
  };
  if (!version) return fail(version.error());
  if (*version > target) {
    return fail(
        Error::InvalidArgument("store written by a newer mailwave (schema " +
                               std::to_string(*version) + ", this one knows " +
                               std::to_string(target) + ")"));
  }
  if (*version == target) {
    (void)db.Exec("ROLLBACK");
    return {};
  }
  if (*version < steps.front().from) {
    return fail(Error::Internal("store: no migration from schema " +
                                std::to_string(*version)));
  }
  for (const Migration& step : steps) {
    if (step.from < *version) continue;
    auto applied = db.Exec(step.sql);
    if (!applied) return fail(applied.error());
  }
  // PRAGMAs take no parameters; both values are integers we format.
  const std::string stamp =
      "PRAGMA user_version = " + std::to_string(target) +
      "; PRAGMA application_id = " + std::to_string(kApplicationId);
  auto stamped = db.Exec(stamp.c_str());
  if (!stamped) return fail(stamped.error());
  auto commit = db.Exec("COMMIT");
  if (!commit) return fail(commit.error());
  return {};
}

Result<std::string> QuickCheck(Db& db) noexcept {
  return db.QueryText("PRAGMA quick_check");
}

}  // namespace mw::store
