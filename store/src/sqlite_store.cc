// The SQLite store: one file in WAL mode, a pool of read connections for
// lookups and one write connection behind a mutex for Record and Prune, which
// also serves a lookup whenever it is free (its page cache survives its own
// commits, where a reader's is emptied by every commit).
//
// Why this shape: WAL lets readers go on while the writer commits, so lookups
// (every message) never wait for records; a single writer is all SQLite
// allows anyway, and taking the mutex before BEGIN IMMEDIATE keeps our own
// threads from spinning in SQLite's busy handler against each other. Other
// processes (the CLI) may still hold the lock; they cost a busy_timeout and
// then kUnavailable, never a wait without bound.
//
// Group commit (SqliteOptions::commit_delay): Records share one write
// transaction for up to commit_delay, or kMaxBatch of them, and commit
// together. A commit writes every page it dirtied to the WAL and empties each
// reader connection's page cache (SQLite drops a connection's cache whenever
// the file changed under it), so one commit per ~100 index rows was most of
// what a message cost the store; a batch shares both. Readers see a batched
// Record at the commit, commit_delay later at most (a Find on the free
// writer sees it at once). No duplicate slips
// through meanwhile: a new cluster's Record checks, on the writer's
// connection that sees the batch, for a newer message sharing a key
// (Join::seen), and a conflict commits the batch before it returns, so the
// caller's next Find sees what it raced with.
#include "sqlite_store.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "counts.h"
#include "db.h"
#include "fingerprint/encoding.h"
#include "keys.h"
#include "mark.h"
#include "rank.h"
#include "schema.h"
#include "secret.h"
#include "store/sqlite.h"

namespace mw::store {
namespace {

// Records in one group commit at most: bounds the WAL a commit writes and
// what a failed commit loses.
constexpr std::size_t kMaxBatch = 64;

// A key's rows beyond its newest max_per_key (kTrimIdx) are deleted by about
// one Record in kTrimEvery that adds a row to it, kTrimBatch at most each
// time: deleting them at every Record cost it ~45 % more (20 more statements;
// store_bench, docs/store.md), this an eighth of that, for a key kept at
// about max_per_key + kTrimEvery rows. kTrimBatch also drains a store
// written before the trim (or with a larger max_per_key) a little at a time,
// so that no Record deletes a whole wave's rows at once.
constexpr std::uint64_t kTrimEvery = 8;
constexpr std::int64_t kTrimBatch = 64;

// Whether the Record of message `id` trims `key`: a mix of both, so that the
// trims fall evenly on a wave's copies and on a message's keys.
bool TrimsKey(std::int64_t id, std::uint32_t key) {
  return Mix2(static_cast<std::uint64_t>(id), key) % kTrimEvery == 0;
}

// Every statement the store runs; each is prepared once per connection.
constexpr char kIdxScan[] =
    "SELECT k FROM idx WHERE k BETWEEN ?1 AND ?2 ORDER BY k DESC LIMIT ?3";
constexpr char kMaxId[] = "SELECT max(id) FROM messages";
constexpr char kMessageRow[] =
    "SELECT arrival, cluster, body_sha1, fingerprint FROM messages "
    "WHERE id = ?1";
constexpr char kSince[] =
    "SELECT id, arrival, fingerprint FROM messages WHERE arrival >= ?1 "
    "ORDER BY arrival, id";
constexpr char kNewer[] =
    "SELECT id, arrival, fingerprint FROM messages WHERE id > ?1 "
    "ORDER BY id LIMIT ?2";
constexpr char kFingerprintOf[] =
    "SELECT fingerprint FROM messages WHERE id = ?1";
// ReadCluster's columns, in its order.
constexpr char kClusterRow[] =
    "SELECT id, canonical, first_seen, last_seen, size, senders, language, "
    "wave, wave_since, authenticated, networks, recipients, mark, marked_at "
    "FROM clusters WHERE id = ?1";
constexpr char kClusterList[] =
    "SELECT id, canonical, first_seen, last_seen, size, senders, language, "
    "wave, wave_since, authenticated, networks, recipients, mark, marked_at "
    "FROM clusters WHERE size >= 2 ORDER BY last_seen DESC, id";
constexpr char kClusterExists[] = "SELECT 1 FROM clusters WHERE id = ?1";
constexpr char kInsertMessage[] =
    "INSERT INTO messages(arrival, cluster, body_sha1, message_id_hash, "
    "sender_hash, size, language, queue_id, fingerprint, recipients) "
    "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
constexpr char kInsertIdx[] = "INSERT OR IGNORE INTO idx(k) VALUES(?1)";
// A key's rows past its newest max_per_key (?3), at most ?4 of them: Find
// never reads them (kIdxScan), so in a wave each shared key would otherwise
// keep a row per copy until retention took it.
constexpr char kTrimIdx[] =
    "DELETE FROM idx WHERE k IN (SELECT k FROM idx WHERE k BETWEEN ?1 AND ?2 "
    "ORDER BY k DESC LIMIT ?4 OFFSET ?3)";
constexpr char kInsertCluster[] =
    "INSERT INTO clusters(id, canonical, first_seen, last_seen, size, "
    "senders, language) VALUES(?1, ?2, ?3, ?3, 0, 0, ?4)";
constexpr char kInsertSender[] =
    "INSERT OR IGNORE INTO cluster_senders(cluster, sender_hash) "
    "VALUES(?1, ?2)";
// Changes 1 when the identity had no authenticated message in the cluster.
constexpr char kAuthenticateSender[] =
    "UPDATE cluster_senders SET authenticated = 1 "
    "WHERE cluster = ?1 AND sender_hash = ?2 AND authenticated = 0";
constexpr char kInsertNetwork[] =
    "INSERT OR IGNORE INTO cluster_networks(cluster, network_hash) "
    "VALUES(?1, ?2)";
constexpr char kJoinCluster[] =
    "UPDATE clusters SET size = size + 1, senders = senders + ?2, "
    "authenticated = authenticated + ?4, networks = networks + ?5, "
    "recipients = recipients + ?6, "
    "first_seen = min(first_seen, ?3), last_seen = max(last_seen, ?3) "
    "WHERE id = ?1";
// A cluster's members inside the wave window, counted up to ?3 (the rule's
// min_size, all that any caller compares the count with): uncapped, the
// count reads every member in the window, so each copy of a wave of a
// million would read a million index entries.
constexpr char kWindowCount[] =
    "SELECT count(*) FROM (SELECT 1 FROM messages WHERE cluster = ?1 AND "
    "arrival >= ?2 LIMIT ?3)";
constexpr char kSetWave[] =
    "UPDATE clusters SET wave = 1, wave_since = ?2 WHERE id = ?1";
constexpr char kEarlier[] =
    "SELECT id, arrival, queue_id, message_id_hash FROM messages "
    "WHERE cluster = ?1 AND id < ?2 ORDER BY arrival, id LIMIT ?3";
constexpr char kMembers[] =
    "SELECT id, arrival, queue_id, message_id_hash FROM messages "
    "WHERE cluster = ?1 ORDER BY arrival, id LIMIT ?2";
constexpr char kOldest[] =
    "SELECT id, cluster, fingerprint, recipients FROM messages "
    "WHERE arrival < ?1 ORDER BY arrival, id LIMIT ?2";
constexpr char kAnyOlder[] =
    "SELECT 1 FROM messages WHERE arrival < ?1 LIMIT 1";
constexpr char kDeleteMessage[] = "DELETE FROM messages WHERE id = ?1";
constexpr char kDeleteIdx[] = "DELETE FROM idx WHERE k = ?1";
constexpr char kShrinkCluster[] =
    "UPDATE clusters SET size = size - 1, recipients = recipients - ?2 "
    "WHERE id = ?1";
constexpr char kDeleteEmptyCluster[] =
    "DELETE FROM clusters WHERE id = ?1 AND size <= 0";
constexpr char kDeleteSenders[] =
    "DELETE FROM cluster_senders WHERE cluster = ?1";
constexpr char kDeleteNetworks[] =
    "DELETE FROM cluster_networks WHERE cluster = ?1";
constexpr char kSetMark[] =
    "UPDATE clusters SET mark = ?2, marked_at = ?3 WHERE id = ?1";
constexpr char kCountMessages[] = "SELECT count(*) FROM messages";
constexpr char kCountClusters[] =
    "SELECT count(*) FROM clusters WHERE size >= 2";
constexpr char kCountWaves[] = "SELECT count(*) FROM clusters WHERE wave = 1";
constexpr char kCountIdx[] = "SELECT count(*) FROM idx";
constexpr char kArrivalRange[] =
    "SELECT min(arrival), max(arrival) FROM messages";
constexpr char kIntegrityCheck[] = "PRAGMA integrity_check";

// Propagates a failed Result<...> from a helper as this function's failure.
#define MW_TRY(expr)                                          \
  do {                                                        \
    auto mw_try_result_ = (expr);                             \
    if (!mw_try_result_) return Fail(mw_try_result_.error()); \
  } while (false)

// Message::recipients as it counts: 0 (unknown) is one.
std::int64_t RecipientsOf(const Message& m) {
  return std::max<std::int64_t>(1, m.recipients);
}

Cluster ReadCluster(const Query& q) {
  Cluster c;
  c.id = static_cast<ClusterId>(q.Int(0));
  c.canonical = q.Int(1);
  c.first_seen = q.Int(2);
  c.last_seen = q.Int(3);
  c.size = CountOf(q.Int(4));
  c.senders = CountOf(q.Int(5));
  c.language = q.Text(6);
  c.wave = q.Int(7) != 0;
  c.wave_since = q.Int(8);
  c.authenticated = CountOf(q.Int(9));
  c.networks = CountOf(q.Int(10));
  c.recipients = CountOf(q.Int(11));
  c.mark = MarkOf(q.Int(12));
  c.marked_at = q.Int(13);
  return c;
}

Member ReadMember(const Query& q) {
  Member m;
  m.id = q.Int(0);
  m.arrival = q.Int(1);
  m.queue_id = q.Text(2);
  m.message_id_hash = HashHex(q.Int(3));
  return m;
}

std::uint64_t FileBytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size)
                                        : 0;
}

std::string DirOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Ends a transaction on scope exit unless it was committed: ROLLBACK, which
// for a read transaction is the same as COMMIT.
class TxnGuard {
 public:
  explicit TxnGuard(Db* db) : db_(db) {}
  TxnGuard(const TxnGuard&) = delete;
  TxnGuard& operator=(const TxnGuard&) = delete;
  ~TxnGuard() {
    // SQLite may have rolled back already (SQLITE_FULL, some IOERRs).
    if (db_ != nullptr && sqlite3_get_autocommit(db_->get()) == 0) {
      (void)db_->Run("ROLLBACK");
    }
  }
  Result<void> Commit() {
    Db* db = db_;
    db_ = nullptr;
    return db->Run("COMMIT");
  }

 private:
  Db* db_;
};

class SqliteStore final : public Store {
 public:
  SqliteStore(SqliteOptions options, Secret secret, std::optional<Db> writer,
              bool writable)
      : options_(std::move(options)),
        secret_(secret),
        writer_(std::move(writer)),
        rng_(std::random_device{}()),
        writable_(writable) {
    if (writer_) maintenance_ = std::thread([this] { Maintain(); });
    if (writer_ && options_.commit_delay.count() > 0) {
      flusher_ = std::thread([this] { Flush(); });
    }
  }
  ~SqliteStore() override {
    {
      std::lock_guard<std::mutex> lock(maintenance_mu_);
      stopping_ = true;
    }
    maintenance_cv_.notify_all();
    if (maintenance_.joinable()) maintenance_.join();
    {
      std::lock_guard<std::mutex> lock(write_mu_);
      flusher_stopping_ = true;
      // Whatever the last batch holds is committed before the store goes.
      if (writer_) (void)CommitBatchLocked();
    }
    batch_cv_.notify_all();
    if (flusher_.joinable()) flusher_.join();
  }
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  Result<Lookup> Find(const Message& message) override;
  Result<Lookup> Fetch(std::span<const std::int64_t> ids) override;
  Result<std::uint64_t> ForEach(
      UnixMillis since,
      const std::function<bool(std::int64_t, UnixMillis,
                               const fingerprint::Fingerprint&)>& fn) override;
  Result<std::int64_t> ForEachNewer(
      std::int64_t after, std::size_t limit,
      const std::function<bool(std::int64_t, UnixMillis,
                               const fingerprint::Fingerprint&)>& fn) override;
  Result<Recorded> Record(const Message& message, const Join& join,
                          const WaveRule& rule) override;
  Result<std::vector<Cluster>> Clusters(bool waves_only, const WaveRule& rule,
                                        UnixMillis now,
                                        std::size_t limit) override;
  Result<std::optional<Cluster>> FindCluster(ClusterId id) override;
  Result<Cluster> SetMark(ClusterId id, Mark mark, UnixMillis now) override;
  Result<std::vector<Member>> Members(ClusterId id, std::size_t limit) override;
  Result<std::uint64_t> Prune(UnixMillis before, std::size_t batch,
                              std::size_t max_batches) override;
  Result<Stats> GetStats() override;
  Result<std::string> Check() override;

  // Writes off for the store's life; logs `reason` once.
  void TurnWritesOff(const std::string& reason);

  Result<void> SetMaxPageCount(std::int64_t pages);
  std::uint64_t index_rows_read() const { return index_rows_read_.load(); }
  std::uint64_t group_commits() const { return commits_.load(); }
  std::uint64_t writer_finds() const { return writer_finds_.load(); }

 private:
  // A read connection borrowed from the pool, returned when it goes.
  class ReaderLease {
   public:
    ReaderLease(SqliteStore* store, std::unique_ptr<Db> db)
        : store_(store), db_(std::move(db)) {}
    ReaderLease(ReaderLease&&) = default;
    ~ReaderLease() {
      if (db_ != nullptr) store_->ReturnReader(std::move(db_));
    }
    Db& db() { return *db_; }

   private:
    SqliteStore* store_;
    std::unique_ptr<Db> db_;
  };

  Result<ReaderLease> AcquireReader();

  // Find's reads on `db` (a reader's, or the writer's with write_mu_ held).
  Result<Lookup> FindIn(Db& db, const Message& message,
                        const std::vector<std::uint32_t>& keys,
                        std::uint32_t exact_key);

  // The rows of `ranked` (best first), at most max_candidates of them, and
  // their clusters with each canonical's fingerprint, into `lookup`, inside
  // the caller's read transaction. `query` (may be null) sets Candidate::exact.
  struct RankedId {
    std::int64_t id;
    std::uint32_t shared;
  };
  Result<void> ReadLookup(Db& db, const std::vector<RankedId>& ranked,
                          const fingerprint::Fingerprint* query,
                          Lookup& lookup);
  void ReturnReader(std::unique_ptr<Db> db);

  // A write failed with `e`: kIo (full disk, read-only file, I/O error) turns
  // writes off for the store's life and says so once; every failure becomes
  // kUnavailable for the caller, except bugs, which stay what they are.
  Error WriteFailed(const Error& e);
  // The newest message id in `db`'s snapshot (0: none).
  static Result<std::int64_t> MaxId(Db& db);
  // Whether a message newer than `seen` is filed under one of `keys`.
  static Result<bool> NewerSharesKey(Db& db,
                                     const std::vector<std::uint32_t>& keys,
                                     std::int64_t seen);
  Result<void> RecordLocked(const Message& message, const Join& join,
                            const WaveRule& rule,
                            const std::vector<std::uint32_t>& keys,
                            const std::string& blob, Recorded* out);
  Result<ClusterId> NewClusterIdLocked();
  Result<Cluster> SetMarkLocked(ClusterId id, Mark mark, UnixMillis now);
  Result<std::uint64_t> PruneBatchLocked(UnixMillis before, std::size_t batch);
  // The maintenance thread's loop: checkpoints and background pruning, every
  // maintenance_interval until the store is destroyed.
  void Maintain();
  void Checkpoint(Db& db);

  const SqliteOptions options_;
  const Secret secret_;

  // The open batch (see the file comment): BEGIN IMMEDIATE was run on the
  // writer and `batched_` Records wait in it for the commit, the first since
  // `batch_opened_`.
  // REQUIRES: write_mu_ held.
  Result<void> CommitBatchLocked();
  void RollBackBatchLocked();
  // The flusher thread's loop: commits a batch commit_delay after it opened.
  void Flush();

  std::mutex write_mu_;
  std::condition_variable batch_cv_;  // a batch opened, or stopping
  std::optional<Db> writer_;  // guarded by write_mu_; none when read-only
  std::size_t batched_ = 0;   // guarded by write_mu_
  std::chrono::steady_clock::time_point batch_opened_;  // guarded by write_mu_
  bool flusher_stopping_ = false;                       // guarded by write_mu_
  std::mt19937_64 rng_;                                 // guarded by write_mu_
  std::atomic<bool> writable_;

  std::mutex readers_mu_;
  std::vector<std::unique_ptr<Db>> idle_readers_;  // guarded by readers_mu_

  std::atomic<std::uint64_t> index_rows_read_{0};
  std::atomic<std::uint64_t> commits_{0};       // batches committed
  std::atomic<std::uint64_t> writer_finds_{0};  // Finds on the writer's

  std::mutex maintenance_mu_;
  std::condition_variable maintenance_cv_;
  bool stopping_ = false;  // guarded by maintenance_mu_
  // Last: started in the constructor once every other member exists.
  std::thread maintenance_;
  std::thread flusher_;
};

Result<SqliteStore::ReaderLease> SqliteStore::AcquireReader() {
  {
    std::lock_guard<std::mutex> lock(readers_mu_);
    if (!idle_readers_.empty()) {
      std::unique_ptr<Db> db = std::move(idle_readers_.back());
      idle_readers_.pop_back();
      return ReaderLease(this, std::move(db));
    }
  }
  // A new connection per concurrent caller: opening one takes a few file
  // operations, far less than waiting for another caller's lookup.
  auto db =
      Db::Open(options_.path, SQLITE_OPEN_READONLY, options_.busy_timeout);
  if (!db) return Fail(db.error());
  return ReaderLease(this, std::make_unique<Db>(std::move(*db)));
}

void SqliteStore::ReturnReader(std::unique_ptr<Db> db) {
  std::lock_guard<std::mutex> lock(readers_mu_);
  idle_readers_.push_back(std::move(db));
}

void SqliteStore::TurnWritesOff(const std::string& reason) {
  if (writable_.exchange(false) && options_.log) {
    options_.log("store: writes turned off: " + reason + "; lookups go on");
  }
}

Error SqliteStore::WriteFailed(const Error& e) {
  switch (e.code()) {
    case Error::Code::kIo:
      TurnWritesOff(e.message());
      return Error::Unavailable("store: writes turned off: " + e.message());
    case Error::Code::kUnavailable:
      return e;
    case Error::Code::kCorrupt:
      return Error::Unavailable("store: " + e.message());
    default:
      return e;
  }
}

Result<Lookup> SqliteStore::Find(const Message& message) {
  const fingerprint::Options& fo = options_.fingerprint;
  const std::vector<std::uint32_t> keys = IndexKeys(message.fingerprint, fo);
  if (keys.empty()) return Lookup{};
  const std::uint32_t exact_key = KeyOf(
      KeyKind::kExact,
      static_cast<std::uint64_t>(Sha1Prefix(message.fingerprint.body_sha1)));

  // The writer's connection when it is free (SqliteOptions::find_on_writer):
  // its cache is warm, and it sees the open batch, as Record's conflict
  // check does. A busy writer is not waited for: a reader serves the call.
  std::unique_lock<std::mutex> writer_lock(write_mu_, std::defer_lock);
  if (options_.find_on_writer && writer_ && writer_lock.try_lock()) {
    if (writable_.load()) {
      writer_finds_.fetch_add(1, std::memory_order_relaxed);
      auto found = FindIn(*writer_, message, keys, exact_key);
      // A read that failed inside the open batch may have made SQLite roll
      // it back (an I/O error, no memory): the batch is gone, as after a
      // failed Record, and the next Record must open a new one.
      if (!found && sqlite3_get_autocommit(writer_->get()) != 0) batched_ = 0;
      return found;
    }
    writer_lock.unlock();
  }
  auto lease = AcquireReader();
  if (!lease) return Fail(lease.error());
  return FindIn(lease->db(), message, keys, exact_key);
}

Result<Lookup> SqliteStore::FindIn(Db& db, const Message& message,
                                   const std::vector<std::uint32_t>& keys,
                                   std::uint32_t exact_key) {
  Lookup lookup;
  // One read transaction: the index, the rows and the clusters are read from
  // one snapshot, so a message pruned meanwhile cannot leave a cluster
  // without its row half-way. On the writer's connection inside an open
  // batch, that batch's transaction is the snapshot (and stays open).
  std::optional<TxnGuard> txn;
  if (sqlite3_get_autocommit(db.get()) != 0) {
    MW_TRY(db.Run("BEGIN DEFERRED"));
    txn.emplace(&db);
  }

  struct Hit {
    std::uint32_t shared = 0;
    bool via_exact = false;
  };
  std::unordered_map<std::uint32_t, Hit> hits;
  std::uint64_t rows_read = 0;
  {
    auto scan = db.Prepare(kIdxScan);
    if (!scan) return Fail(scan.error());
    for (const std::uint32_t key : keys) {
      const RowRange range = KeyRows(key);
      MW_TRY(scan->Bind(1, range.lo));
      MW_TRY(scan->Bind(2, range.hi));
      MW_TRY(scan->Bind(3, static_cast<std::int64_t>(options_.max_per_key)));
      for (;;) {
        auto row = scan->Step();
        if (!row) return Fail(row.error());
        if (!*row) break;
        ++rows_read;
        Hit& hit = hits[IndexRowMessage(scan->Int(0))];
        ++hit.shared;
        hit.via_exact |= key == exact_key;
      }
      scan->Reset();
    }
  }
  index_rows_read_ += rows_read;
  auto max_id = MaxId(db);
  if (!max_id) return Fail(max_id.error());
  lookup.seen = *max_id;
  if (hits.empty()) return lookup;

  // Rank before reading rows, so that only about max_candidates rows are read
  // however many messages share a key: possibly exact first (the exact key
  // matched), then by shared keys, then newest (ids only grow).
  struct Ranked {
    std::int64_t id;
    Hit hit;
  };
  std::vector<Ranked> ranked;
  ranked.reserve(hits.size());
  for (const auto& [low, hit] : hits) {
    const std::int64_t id = ResolveMessageId(low, *max_id);
    if (id != 0) ranked.push_back({id, hit});
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    if (a.hit.via_exact != b.hit.via_exact) return a.hit.via_exact;
    if (a.hit.shared != b.hit.shared) return a.hit.shared > b.hit.shared;
    return a.id > b.id;
  });

  std::vector<RankedId> ids;
  ids.reserve(ranked.size());
  for (const Ranked& r : ranked) ids.push_back({r.id, r.hit.shared});
  MW_TRY(ReadLookup(db, ids, &message.fingerprint, lookup));
  return lookup;
}

Result<Lookup> SqliteStore::Fetch(std::span<const std::int64_t> ids) {
  Lookup lookup;
  if (ids.empty()) return lookup;
  auto lease = AcquireReader();
  if (!lease) return Fail(lease.error());
  Db& db = lease->db();
  MW_TRY(db.Run("BEGIN DEFERRED"));
  TxnGuard txn(&db);
  std::vector<RankedId> ranked;
  ranked.reserve(ids.size());
  for (const std::int64_t id : ids) ranked.push_back({id, 0});
  auto max_id = MaxId(db);
  if (!max_id) return Fail(max_id.error());
  lookup.seen = *max_id;
  MW_TRY(ReadLookup(db, ranked, nullptr, lookup));
  return lookup;
}

Result<std::uint64_t> SqliteStore::ForEach(
    UnixMillis since,
    const std::function<bool(std::int64_t, UnixMillis,
                             const fingerprint::Fingerprint&)>& fn) {
  auto lease = AcquireReader();
  if (!lease) return Fail(lease.error());
  Db& db = lease->db();
  MW_TRY(db.Run("BEGIN DEFERRED"));
  TxnGuard txn(&db);
  auto q = db.Prepare(kSince);
  if (!q) return Fail(q.error());
  MW_TRY(q->Bind(1, since));
  std::uint64_t seen = 0;
  for (;;) {
    auto row = q->Step();
    if (!row) return Fail(row.error());
    if (!*row) break;
    auto fp = fingerprint::Decode(q->Blob(2), options_.fingerprint);
    if (!fp) continue;  // corrupt or other options: never compared
    ++seen;
    if (!fn(q->Int(0), q->Int(1), *fp)) break;
  }
  return seen;
}

Result<std::int64_t> SqliteStore::ForEachNewer(
    std::int64_t after, std::size_t limit,
    const std::function<bool(std::int64_t, UnixMillis,
                             const fingerprint::Fingerprint&)>& fn) {
  auto lease = AcquireReader();
  if (!lease) return Fail(lease.error());
  Db& db = lease->db();
  auto q = db.Prepare(kNewer);
  if (!q) return Fail(q.error());
  MW_TRY(q->Bind(1, after));
  MW_TRY(q->Bind(
      2, static_cast<std::int64_t>(std::min<std::size_t>(limit, INT64_MAX))));
  std::int64_t last = after;
  for (;;) {
    auto row = q->Step();
    if (!row) return Fail(row.error());
    if (!*row) break;
    last = q->Int(0);
    auto fp = fingerprint::Decode(q->Blob(2), options_.fingerprint);
    if (!fp) continue;
    if (!fn(last, q->Int(1), *fp)) break;
  }
  return last;
}

Result<void> SqliteStore::ReadLookup(Db& db,
                                     const std::vector<RankedId>& ranked,
                                     const fingerprint::Fingerprint* query,
                                     Lookup& lookup) {
  const fingerprint::Options& fo = options_.fingerprint;
  const std::int64_t query_prefix =
      query != nullptr ? Sha1Prefix(query->body_sha1) : 0;
  for (const RankedId& r : ranked) {
    if (lookup.candidates.size() >= options_.max_candidates) break;
    auto q = db.Prepare(kMessageRow);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, r.id));
    auto row = q->Step();
    if (!row) return Fail(row.error());
    // No row: the index row is a pruned message's (its fingerprint could not
    // be decoded to find its keys) or a 32-bit key collision; skip it.
    if (!*row) continue;
    auto fp = fingerprint::Decode(q->Blob(3), fo);
    if (!fp) {
      ++lookup.skipped_rows;
      continue;
    }
    Candidate c;
    c.id = r.id;
    c.arrival = q->Int(0);
    c.cluster = static_cast<ClusterId>(q->Int(1));
    c.shared_keys = r.shared;
    c.exact = query != nullptr && q->Int(2) == query_prefix &&
              fp->body_bytes != 0 && fp->body_sha1 == query->body_sha1;
    c.fingerprint = std::move(*fp);
    lookup.candidates.push_back(std::move(c));
  }
  SortCandidates(lookup.candidates);

  for (const Candidate& c : lookup.candidates) {
    const bool seen = std::any_of(
        lookup.clusters.begin(), lookup.clusters.end(),
        [&c](const auto& entry) { return entry.first.id == c.cluster; });
    if (seen) continue;
    Cluster cluster;
    {
      auto q = db.Prepare(kClusterRow);
      if (!q) return Fail(q.error());
      MW_TRY(q->Bind(1, c.cluster));
      auto row = q->Step();
      if (!row) return Fail(row.error());
      if (!*row) continue;  // cannot happen in one snapshot; be lenient
      cluster = ReadCluster(*q);
    }
    std::optional<fingerprint::Fingerprint> canonical;
    const auto in_candidates = std::find_if(
        lookup.candidates.begin(), lookup.candidates.end(),
        [&](const Candidate& x) { return x.id == cluster.canonical; });
    if (in_candidates != lookup.candidates.end()) {
      canonical = in_candidates->fingerprint;
    } else {
      auto q = db.Prepare(kFingerprintOf);
      if (!q) return Fail(q.error());
      MW_TRY(q->Bind(1, cluster.canonical));
      auto row = q->Step();
      if (!row) return Fail(row.error());
      if (*row) {
        auto fp = fingerprint::Decode(q->Blob(0), fo);
        if (fp) {
          canonical = std::move(*fp);
        } else {
          ++lookup.skipped_rows;
        }
      }
    }
    lookup.clusters.emplace_back(std::move(cluster), std::move(canonical));
  }
  return {};
}

Result<ClusterId> SqliteStore::NewClusterIdLocked() {
  // 2^32 ids: collisions are rare until billions of clusters, and each retry
  // is one primary-key lookup; the bound only guards against a broken rng.
  for (int attempt = 0; attempt < 64; ++attempt) {
    const auto id = static_cast<ClusterId>(rng_());
    if (id == 0) continue;
    auto q = writer_->Prepare(kClusterExists);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, id));
    auto row = q->Step();
    if (!row) return Fail(row.error());
    if (!*row) return id;
  }
  return Fail(Error::Internal("store: no free cluster id after 64 tries"));
}

Result<std::int64_t> SqliteStore::MaxId(Db& db) {
  auto q = db.Prepare(kMaxId);
  if (!q) return Fail(q.error());
  auto row = q->Step();
  if (!row) return Fail(row.error());
  return *row ? q->Int(0) : 0;
}

Result<bool> SqliteStore::NewerSharesKey(Db& db,
                                         const std::vector<std::uint32_t>& keys,
                                         std::int64_t seen) {
  auto max_id = MaxId(db);
  if (!max_id) return Fail(max_id.error());
  if (*max_id <= seen) return false;
  auto scan = db.Prepare(kIdxScan);
  if (!scan) return Fail(scan.error());
  for (const std::uint32_t key : keys) {
    // A key's newest row has the highest low id bits (until the ids wrap
    // past 2^32, when this may miss one: the check is a best effort there).
    const RowRange range = KeyRows(key);
    MW_TRY(scan->Bind(1, range.lo));
    MW_TRY(scan->Bind(2, range.hi));
    MW_TRY(scan->Bind(3, std::int64_t{1}));
    auto row = scan->Step();
    if (!row) return Fail(row.error());
    const bool newer =
        *row && ResolveMessageId(IndexRowMessage(scan->Int(0)), *max_id) > seen;
    scan->Reset();
    if (newer) return true;
  }
  return false;
}

Result<void> SqliteStore::RecordLocked(const Message& message, const Join& join,
                                       const WaveRule& rule,
                                       const std::vector<std::uint32_t>& keys,
                                       const std::string& blob, Recorded* out) {
  Db& db = *writer_;
  std::optional<ClusterId> cluster;
  if (join.cluster) {
    auto q = db.Prepare(kClusterExists);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, *join.cluster));
    auto row = q->Step();
    if (!row) return Fail(row.error());
    if (*row) cluster = *join.cluster;
  }
  const bool is_new = !cluster;
  if (!join.cluster && join.seen) {
    auto newer = NewerSharesKey(db, keys, *join.seen);
    if (!newer) return Fail(newer.error());
    if (*newer) {
      return Fail(Error::Conflict(
          "store: a message recorded meanwhile shares an index key"));
    }
  }
  if (is_new) {
    auto id = NewClusterIdLocked();
    if (!id) return Fail(id.error());
    cluster = *id;
  }

  const std::int64_t sender_hash = secret_.Hash("sender", message.sender);
  // The cluster counts identities; a caller that knows none (the CLI on a
  // bare message, version-1 data) counts envelope senders, as before.
  const std::int64_t identity_hash =
      message.identity.empty() ? sender_hash
                               : secret_.Hash("identity", message.identity);
  const std::int64_t recipients = RecipientsOf(message);
  {
    auto q = db.Prepare(kInsertMessage);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, message.arrival));
    MW_TRY(q->Bind(2, *cluster));
    MW_TRY(q->Bind(3, Sha1Prefix(message.fingerprint.body_sha1)));
    MW_TRY(q->Bind(4, secret_.Hash("message-id", message.message_id)));
    MW_TRY(q->Bind(5, sender_hash));
    MW_TRY(q->Bind(6, static_cast<std::int64_t>(message.size)));
    MW_TRY(q->BindText(7, message.language));
    MW_TRY(q->BindText(8, message.queue_id));
    MW_TRY(q->BindBlob(9, blob));
    MW_TRY(q->Bind(10, recipients));
    MW_TRY(q->Run());
  }
  out->id = db.LastInsertRowid();
  {
    auto q = db.Prepare(kInsertIdx);
    if (!q) return Fail(q.error());
    auto trim = db.Prepare(kTrimIdx);
    if (!trim) return Fail(trim.error());
    for (const std::uint32_t key : keys) {
      MW_TRY(q->Bind(1, IndexRow(key, out->id)));
      MW_TRY(q->Run());
      q->Reset();
      if (!TrimsKey(out->id, key)) continue;
      const RowRange range = KeyRows(key);
      MW_TRY(trim->Bind(1, range.lo));
      MW_TRY(trim->Bind(2, range.hi));
      MW_TRY(trim->Bind(3, static_cast<std::int64_t>(options_.max_per_key)));
      MW_TRY(trim->Bind(4, kTrimBatch));
      MW_TRY(trim->Run());
      trim->Reset();
    }
  }
  if (is_new) {
    auto q = db.Prepare(kInsertCluster);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, *cluster));
    MW_TRY(q->Bind(2, out->id));
    MW_TRY(q->Bind(3, message.arrival));
    MW_TRY(q->BindText(4, message.language));
    MW_TRY(q->Run());
  }
  int new_senders = 0;
  {
    auto q = db.Prepare(kInsertSender);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, *cluster));
    MW_TRY(q->Bind(2, identity_hash));
    MW_TRY(q->Run());
    new_senders = db.Changes();
  }
  // An identity counts as authenticated once any of its messages in the
  // cluster was: the same key seen unauthenticated first is upgraded.
  int new_authenticated = 0;
  if (message.authenticated) {
    auto q = db.Prepare(kAuthenticateSender);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, *cluster));
    MW_TRY(q->Bind(2, identity_hash));
    MW_TRY(q->Run());
    new_authenticated = db.Changes();
  }
  int new_networks = 0;
  if (!message.network.empty()) {
    auto q = db.Prepare(kInsertNetwork);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, *cluster));
    MW_TRY(q->Bind(2, secret_.Hash("network", message.network)));
    MW_TRY(q->Run());
    new_networks = db.Changes();
  }
  {
    auto q = db.Prepare(kJoinCluster);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, *cluster));
    MW_TRY(q->Bind(2, new_senders));
    MW_TRY(q->Bind(3, message.arrival));
    MW_TRY(q->Bind(4, new_authenticated));
    MW_TRY(q->Bind(5, new_networks));
    MW_TRY(q->Bind(6, recipients));
    MW_TRY(q->Run());
  }
  {
    auto q = db.Prepare(kWindowCount);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, *cluster));
    MW_TRY(q->Bind(2, message.arrival - rule.window.count()));
    MW_TRY(q->Bind(3, static_cast<std::int64_t>(rule.min_size)));
    auto row = q->Step();
    if (!row) return Fail(row.error());
    out->window_size = *row ? static_cast<std::uint64_t>(q->Int(0)) : 0;
  }
  bool was_wave = false;
  {
    auto q = db.Prepare(kClusterRow);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, *cluster));
    auto row = q->Step();
    if (!row) return Fail(row.error());
    if (!*row) return Fail(Error::Internal("store: cluster row vanished"));
    out->cluster = ReadCluster(*q);
    was_wave = out->cluster.wave;
  }
  out->became_wave = !was_wave && out->window_size >= rule.min_size;
  if (out->became_wave) {
    auto q = db.Prepare(kSetWave);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, *cluster));
    MW_TRY(q->Bind(2, message.arrival));
    MW_TRY(q->Run());
    out->cluster.wave = true;
    out->cluster.wave_since = message.arrival;

    auto e = db.Prepare(kEarlier);
    if (!e) return Fail(e.error());
    MW_TRY(e->Bind(1, *cluster));
    MW_TRY(e->Bind(2, out->id));
    MW_TRY(e->Bind(3, kMaxEarlier));
    for (;;) {
      auto row = e->Step();
      if (!row) return Fail(row.error());
      if (!*row) break;
      out->earlier.push_back(ReadMember(*e));
    }
  }
  return {};
}

Result<Recorded> SqliteStore::Record(const Message& message, const Join& join,
                                     const WaveRule& rule) {
  if (!writable_.load()) {
    return Fail(Error::Unavailable("store: writes are turned off"));
  }
  // Everything that needs no lock first: the keys and the encoding.
  const std::vector<std::uint32_t> keys =
      IndexKeys(message.fingerprint, options_.fingerprint);
  const std::string blob =
      fingerprint::Encode(message.fingerprint, options_.fingerprint);

  std::unique_lock<std::mutex> lock(write_mu_);
  if (!writable_.load()) {
    return Fail(Error::Unavailable("store: writes are turned off"));
  }
  Db& db = *writer_;
  if (batched_ == 0) {
    auto begun = db.Run("BEGIN IMMEDIATE");
    if (!begun) return Fail(WriteFailed(begun.error()));
    batch_opened_ = std::chrono::steady_clock::now();
  }
  Recorded out;
  auto done = RecordLocked(message, join, rule, keys, blob, &out);
  if (!done) {
    if (done.error().code() == Error::Code::kConflict) {
      // Found before RecordLocked wrote anything, so the batch is whole. It
      // commits now: the caller's next Find must see the message this one
      // raced with.
      auto committed = CommitBatchLocked();
      if (!committed) return Fail(WriteFailed(committed.error()));
    } else {
      // No SAVEPOINT per Record to take back its rows alone: SQLite would
      // copy every page a Record touches into a statement journal (~100
      // pages, past its in-memory limit, so to a temporary file), which
      // cost more than group commit saves. A failure after the first write
      // is an I/O error, a full disk or a bug, and rolls the whole batch
      // back: its earlier Records cost duplicate detection some history,
      // never mail.
      RollBackBatchLocked();
    }
    return Fail(WriteFailed(done.error()));
  }
  ++batched_;
  if (options_.commit_delay.count() == 0 || batched_ >= kMaxBatch) {
    auto committed = CommitBatchLocked();
    if (!committed) return Fail(WriteFailed(committed.error()));
  } else if (batched_ == 1) {
    lock.unlock();
    batch_cv_.notify_one();
  }
  return out;
}

Result<void> SqliteStore::CommitBatchLocked() {
  Db& db = *writer_;
  batched_ = 0;
  if (sqlite3_get_autocommit(db.get()) != 0) return {};  // none open
  auto committed = db.Run("COMMIT");
  if (!committed) {
    RollBackBatchLocked();
    return Fail(committed.error());
  }
  commits_.fetch_add(1, std::memory_order_relaxed);
  return {};
}

void SqliteStore::RollBackBatchLocked() {
  batched_ = 0;
  // SQLite may have rolled back already (SQLITE_FULL, some IOERRs).
  if (sqlite3_get_autocommit(writer_->get()) == 0) {
    (void)writer_->Run("ROLLBACK");
  }
}

void SqliteStore::Flush() {
  std::unique_lock<std::mutex> lock(write_mu_);
  for (;;) {
    batch_cv_.wait(lock, [this] { return flusher_stopping_ || batched_ > 0; });
    if (flusher_stopping_) return;
    // Woken early only to stop; a batch committed meanwhile (full, a
    // conflict, a Prune) and a new one opened is waited for afresh, from
    // its own opening: `due` is read again after the wait.
    const auto due = [this] { return batch_opened_ + options_.commit_delay; };
    if (batch_cv_.wait_until(lock, due(), [this] { return flusher_stopping_; }))
      return;
    if (batched_ == 0 || std::chrono::steady_clock::now() < due()) continue;
    auto committed = CommitBatchLocked();
    if (!committed) (void)WriteFailed(committed.error());
  }
}

void SqliteStore::Checkpoint(Db& db) {
  const std::string wal = options_.path + "-wal";
  if (FileBytes(wal) < options_.wal_limit_bytes) return;
  // PASSIVE copies what no reader still needs and never waits; it runs beside
  // the writer, so commits never pay for it (wal_autocheckpoint is off). When
  // it has copied every frame, the next commit rewinds the WAL and SQLite cuts
  // the file to journal_size_limit. Under a writer that never pauses it never
  // catches up, so past four times the limit TRUNCATE follows with write_mu_
  // held: it copies what arrived since the PASSIVE pass (a pause for Record)
  // and resets the WAL to zero bytes. It waits busy_timeout at most for
  // readers of older snapshots; a failure is left for the next round.
  (void)db.Exec("PRAGMA wal_checkpoint(PASSIVE)");
  if (FileBytes(wal) <= 4 * options_.wal_limit_bytes) return;
  std::lock_guard<std::mutex> lock(write_mu_);
  (void)CommitBatchLocked();
  (void)db.Exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

void SqliteStore::Maintain() {
  // A connection of its own: a checkpoint on the writer's would hold
  // write_mu_ for its whole length.
  auto db =
      Db::Open(options_.path, SQLITE_OPEN_READWRITE, options_.busy_timeout);
  bool prune_failing = false;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(maintenance_mu_);
      maintenance_cv_.wait_for(lock, options_.maintenance_interval,
                               [this] { return stopping_; });
      if (stopping_) return;
    }
    if (db) Checkpoint(*db);
    if (options_.retention.count() > 0 && writable_.load()) {
      const UnixMillis now = NowMillis();
      // A read first: a round with nothing to prune then takes neither
      // write_mu_ nor the file's write lock, for which Record here and
      // other processes' writers would wait. A failed read prunes anyway.
      if (db) {
        auto q = db->Prepare(kAnyOlder);
        if (q && q->Bind(1, now - options_.retention.count())) {
          auto row = q->Step();
          if (row && !*row) continue;
        }
      }
      // A few batches a round: pruning keeps up with any plausible mail
      // flow (prune_batch messages a batch) without starving Record, which
      // waits for one batch at most.
      auto pruned =
          Prune(now - options_.retention.count(), options_.prune_batch, 8);
      // Once when pruning starts failing (another process holding the
      // write lock, a damaged page), once when it works again: a busy file
      // would otherwise log four lines a second.
      if (!pruned && !prune_failing && options_.log && writable_.load()) {
        options_.log("store: background prune: " + pruned.error().message() +
                     " (said once; retried every round)");
      } else if (pruned && prune_failing && options_.log) {
        options_.log("store: background prune: works again");
      }
      prune_failing = !pruned;
    }
  }
}

Result<std::uint64_t> SqliteStore::PruneBatchLocked(UnixMillis before,
                                                    std::size_t batch) {
  Db& db = *writer_;
  MW_TRY(db.Run("BEGIN IMMEDIATE"));
  TxnGuard txn(&db);
  struct Doomed {
    std::int64_t id;
    std::int64_t cluster;
    std::string blob;
    std::int64_t recipients;
  };
  std::vector<Doomed> doomed;
  {
    auto q = db.Prepare(kOldest);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, before));
    MW_TRY(q->Bind(2, static_cast<std::int64_t>(batch)));
    for (;;) {
      auto row = q->Step();
      if (!row) return Fail(row.error());
      if (!*row) break;
      doomed.push_back({q->Int(0), q->Int(1), q->Blob(2), q->Int(3)});
    }
  }
  for (const Doomed& d : doomed) {
    {
      auto q = db.Prepare(kDeleteMessage);
      if (!q) return Fail(q.error());
      MW_TRY(q->Bind(1, d.id));
      MW_TRY(q->Run());
    }
    // The message's index rows, from its keys (keys.h is their one source).
    // An undecodable blob leaves its rows behind; lookups skip them, since
    // they name a message that no longer exists.
    auto fp = fingerprint::Decode(d.blob, options_.fingerprint);
    if (fp) {
      for (const std::uint32_t key : IndexKeys(*fp, options_.fingerprint)) {
        auto q = db.Prepare(kDeleteIdx);
        if (!q) return Fail(q.error());
        MW_TRY(q->Bind(1, IndexRow(key, d.id)));
        MW_TRY(q->Run());
      }
    }
    // size and recipients count the members still stored; the distinct
    // identities and networks count what the cluster saw while it lived
    // (their rows go with the cluster, below).
    {
      auto q = db.Prepare(kShrinkCluster);
      if (!q) return Fail(q.error());
      MW_TRY(q->Bind(1, d.cluster));
      MW_TRY(q->Bind(2, d.recipients));
      MW_TRY(q->Run());
    }
    int gone = 0;
    {
      auto q = db.Prepare(kDeleteEmptyCluster);
      if (!q) return Fail(q.error());
      MW_TRY(q->Bind(1, d.cluster));
      MW_TRY(q->Run());
      gone = db.Changes();
    }
    if (gone > 0) {
      for (const char* sql : {kDeleteSenders, kDeleteNetworks}) {
        auto q = db.Prepare(sql);
        if (!q) return Fail(q.error());
        MW_TRY(q->Bind(1, d.cluster));
        MW_TRY(q->Run());
      }
    }
  }
  MW_TRY(txn.Commit());
  return doomed.size();
}

Result<std::uint64_t> SqliteStore::Prune(UnixMillis before, std::size_t batch,
                                         std::size_t max_batches) {
  if (batch == 0) return 0;
  std::uint64_t removed = 0;
  for (std::size_t i = 0; i < max_batches; ++i) {
    if (!writable_.load()) {
      return Fail(Error::Unavailable("store: writes are turned off"));
    }
    // The lock is taken per batch, so Record waits for one batch at most.
    std::lock_guard<std::mutex> lock(write_mu_);
    auto flushed = CommitBatchLocked();
    if (!flushed) return Fail(WriteFailed(flushed.error()));
    auto n = PruneBatchLocked(before, batch);
    if (!n) return Fail(WriteFailed(n.error()));
    removed += *n;
    if (*n < batch) break;
  }
  return removed;
}

Result<std::vector<Cluster>> SqliteStore::Clusters(bool waves_only,
                                                   const WaveRule& rule,
                                                   UnixMillis now,
                                                   std::size_t limit) {
  std::vector<Cluster> out;
  if (limit == 0) return out;
  auto lease = AcquireReader();
  if (!lease) return Fail(lease.error());
  Db& db = lease->db();
  MW_TRY(db.Run("BEGIN DEFERRED"));
  TxnGuard txn(&db);
  const UnixMillis since = now - rule.window.count();
  auto list = db.Prepare(kClusterList);
  if (!list) return Fail(list.error());
  while (out.size() < limit) {
    auto row = list->Step();
    if (!row) return Fail(row.error());
    if (!*row) break;
    Cluster c = ReadCluster(*list);
    if (waves_only) {
      // Newest activity first: once a cluster's last member is older than
      // the window, so are all the clusters after it.
      if (c.last_seen < since) break;
      auto q = db.Prepare(kWindowCount);
      if (!q) return Fail(q.error());
      MW_TRY(q->Bind(1, c.id));
      MW_TRY(q->Bind(2, since));
      MW_TRY(q->Bind(3, static_cast<std::int64_t>(rule.min_size)));
      auto count = q->Step();
      if (!count) return Fail(count.error());
      if (!*count || static_cast<std::uint64_t>(q->Int(0)) < rule.min_size) {
        continue;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::optional<Cluster>> SqliteStore::FindCluster(ClusterId id) {
  auto lease = AcquireReader();
  if (!lease) return Fail(lease.error());
  auto q = lease->db().Prepare(kClusterRow);
  if (!q) return Fail(q.error());
  MW_TRY(q->Bind(1, id));
  auto row = q->Step();
  if (!row) return Fail(row.error());
  if (!*row) return std::optional<Cluster>();
  return std::optional<Cluster>(ReadCluster(*q));
}

Result<Cluster> SqliteStore::SetMarkLocked(ClusterId id, Mark mark,
                                           UnixMillis now) {
  Db& db = *writer_;
  MW_TRY(db.Run("BEGIN IMMEDIATE"));
  TxnGuard txn(&db);
  {
    auto q = db.Prepare(kSetMark);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, id));
    MW_TRY(q->Bind(2, static_cast<std::int64_t>(mark)));
    // Cleared, a cluster reads as one never marked.
    MW_TRY(q->Bind(3, mark == Mark::kNone ? 0 : now));
    MW_TRY(q->Run());
    if (db.Changes() == 0) {
      return Fail(Error::NotFound("store: no cluster " + ClusterIdString(id)));
    }
  }
  Cluster cluster;
  {
    auto q = db.Prepare(kClusterRow);
    if (!q) return Fail(q.error());
    MW_TRY(q->Bind(1, id));
    auto row = q->Step();
    if (!row) return Fail(row.error());
    if (!*row) return Fail(Error::Internal("store: cluster row vanished"));
    cluster = ReadCluster(*q);
  }
  MW_TRY(txn.Commit());
  return cluster;
}

Result<Cluster> SqliteStore::SetMark(ClusterId id, Mark mark, UnixMillis now) {
  if (!writable_.load()) {
    return Fail(Error::Unavailable("store: writes are turned off"));
  }
  std::lock_guard<std::mutex> lock(write_mu_);
  if (!writable_.load()) {
    return Fail(Error::Unavailable("store: writes are turned off"));
  }
  auto flushed = CommitBatchLocked();
  if (!flushed) return Fail(WriteFailed(flushed.error()));
  auto cluster = SetMarkLocked(id, mark, now);
  if (!cluster) return Fail(WriteFailed(cluster.error()));
  return cluster;
}

Result<std::vector<Member>> SqliteStore::Members(ClusterId id,
                                                 std::size_t limit) {
  auto lease = AcquireReader();
  if (!lease) return Fail(lease.error());
  auto q = lease->db().Prepare(kMembers);
  if (!q) return Fail(q.error());
  MW_TRY(q->Bind(1, id));
  MW_TRY(q->Bind(
      2, static_cast<std::int64_t>(std::min<std::size_t>(limit, INT64_MAX))));
  std::vector<Member> out;
  for (;;) {
    auto row = q->Step();
    if (!row) return Fail(row.error());
    if (!*row) break;
    out.push_back(ReadMember(*q));
  }
  return out;
}

Result<Stats> SqliteStore::GetStats() {
  auto lease = AcquireReader();
  if (!lease) return Fail(lease.error());
  Db& db = lease->db();
  MW_TRY(db.Run("BEGIN DEFERRED"));
  TxnGuard txn(&db);
  Stats stats;
  auto count = [&db](const char* sql) -> Result<std::uint64_t> {
    auto q = db.Prepare(sql);
    if (!q) return Fail(q.error());
    auto row = q->Step();
    if (!row) return Fail(row.error());
    return *row ? static_cast<std::uint64_t>(q->Int(0)) : 0;
  };
  auto messages = count(kCountMessages);
  if (!messages) return Fail(messages.error());
  auto clusters = count(kCountClusters);
  if (!clusters) return Fail(clusters.error());
  auto waves = count(kCountWaves);
  if (!waves) return Fail(waves.error());
  auto index_rows = count(kCountIdx);
  if (!index_rows) return Fail(index_rows.error());
  stats.messages = *messages;
  stats.clusters = *clusters;
  stats.waves = *waves;
  stats.index_rows = *index_rows;
  {
    auto q = db.Prepare(kArrivalRange);
    if (!q) return Fail(q.error());
    auto row = q->Step();
    if (!row) return Fail(row.error());
    if (*row) {
      stats.oldest = q->Int(0);
      stats.newest = q->Int(1);
    }
  }
  stats.file_bytes = FileBytes(options_.path);
  stats.wal_bytes = FileBytes(options_.path + "-wal");
  stats.writable = writable_.load();
  stats.path = options_.path;
  return stats;
}

Result<std::string> SqliteStore::Check() {
  auto lease = AcquireReader();
  if (!lease) return Fail(lease.error());
  auto q = lease->db().Prepare(kIntegrityCheck);
  if (!q) return Fail(q.error());
  std::string out;
  for (;;) {
    auto row = q->Step();
    if (!row) return Fail(row.error());
    if (!*row) break;
    if (!out.empty()) out += '\n';
    out += q->Text(0);
  }
  return out;
}

Result<void> SqliteStore::SetMaxPageCount(std::int64_t pages) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (!writer_) return Fail(Error::Internal("store: no write connection"));
  MW_TRY(CommitBatchLocked());
  const std::string sql = "PRAGMA max_page_count = " + std::to_string(pages);
  auto got = writer_->QueryInt(sql.c_str());
  if (!got) return Fail(got.error());
  return {};
}

// Opens the write connection and brings the file to the current schema.
// kCorrupt: the file is damaged or not a mailwave store (the caller moves it
// aside). Sets *read_only_file when SQLite could open the file for reading
// alone; then the connection is returned unmigrated.
Result<Db> OpenWriter(const SqliteOptions& options, bool* read_only_file) {
  auto db = Db::Open(options.path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                     options.busy_timeout);
  if (!db) return Fail(db.error());
  auto kind = Inspect(*db);
  if (!kind) return Fail(kind.error());
  if (*kind == FileKind::kForeign) {
    return Fail(Error::Corrupt("not a mailwave store (application_id)"));
  }
  if (*kind == FileKind::kOurs) {
    auto check = QuickCheck(*db);
    if (!check) return Fail(check.error());
    if (*check != "ok") {
      return Fail(Error::Corrupt("quick_check: " + *check));
    }
  }
  *read_only_file = sqlite3_db_readonly(db->get(), "main") == 1;
  if (*read_only_file) return db;
  auto wal = db->QueryText("PRAGMA journal_mode = WAL");
  if (!wal) return Fail(wal.error());
  if (*wal != "wal") {
    return Fail(
        Error::Io("store: cannot use WAL mode (journal_mode " + *wal + ")"));
  }
  // NORMAL in WAL mode: a power cut may lose the last commits but never
  // corrupts the file; the store is a cache of recent mail, not a ledger.
  MW_TRY(db->Exec("PRAGMA synchronous = NORMAL"));
  // Commits never checkpoint; the maintenance thread does (Checkpoint).
  MW_TRY(db->QueryInt("PRAGMA wal_autocheckpoint = 0"));
  const std::string limit =
      "PRAGMA journal_size_limit = " + std::to_string(options.wal_limit_bytes);
  MW_TRY(db->QueryInt(limit.c_str()));
  MW_TRY(Migrate(*db, Migrations()));
  return db;
}

// Renames path (and its -wal and -shm) to "<path>.corrupt-<unix time>".
Result<std::string> MoveAside(const std::string& path) {
  const std::string aside =
      path + ".corrupt-" +
      std::to_string(static_cast<long long>(std::time(nullptr)));
  if (std::rename(path.c_str(), aside.c_str()) != 0) {
    return Fail(Error::Io("store: cannot move " + path +
                          " aside: " + std::strerror(errno)));
  }
  for (const char* suffix : {"-wal", "-shm"}) {
    // Absent files are fine; a stale -wal must not be replayed into the new
    // store, so a rename failure other than ENOENT is an error too.
    if (std::rename((path + suffix).c_str(), (aside + suffix).c_str()) != 0 &&
        errno != ENOENT) {
      return Fail(Error::Io("store: cannot move " + path + suffix +
                            " aside: " + std::strerror(errno)));
    }
  }
  return aside;
}

}  // namespace

Result<std::unique_ptr<Store>> OpenSqlite(const SqliteOptions& options) {
  // Said plainly, rather than as the first file that cannot be made in it.
  struct stat dir {};
  const std::string dir_path = DirOf(options.path);
  if (::stat(dir_path.c_str(), &dir) != 0 || !S_ISDIR(dir.st_mode)) {
    return Fail(Error::Io("store: directory " + dir_path +
                          " does not exist (make it, owned by the user "
                          "mailwave runs as, or set [store] path)"));
  }
  const std::string secret_path = options.secret_path.empty()
                                      ? DirOf(options.path) + "/secret"
                                      : options.secret_path;
  auto secret = LoadOrCreateSecret(secret_path);
  if (!secret) return Fail(secret.error());

  if (options.read_only) {
    auto db =
        Db::Open(options.path, SQLITE_OPEN_READONLY, options.busy_timeout);
    if (!db) return Fail(db.error());
    // Only judged, never moved aside: a read-only look (mailwave store stats)
    // must not change what the milter finds.
    auto kind = Inspect(*db);
    if (!kind) return Fail(kind.error());
    if (*kind != FileKind::kOurs) {
      return Fail(Error::Corrupt(options.path + ": not a mailwave store"));
    }
    auto version = db->QueryInt("PRAGMA user_version");
    if (!version) return Fail(version.error());
    if (*version != kSchemaVersion) {
      return Fail(Error::InvalidArgument(
          options.path + ": schema " + std::to_string(*version) +
          (*version > kSchemaVersion
               ? ": store written by a newer mailwave"
               : ": open it for writing once to migrate")));
    }
    return std::unique_ptr<Store>(
        new SqliteStore(options, *secret, std::nullopt, false));
  }

  // At most one move aside: a new file that fails again is an error, not a
  // loop of renames.
  for (int attempt = 0;; ++attempt) {
    bool read_only_file = false;
    auto writer = OpenWriter(options, &read_only_file);
    if (writer) {
      if (read_only_file) {
        auto store = std::unique_ptr<SqliteStore>(
            new SqliteStore(options, *secret, std::nullopt, true));
        store->TurnWritesOff(options.path + " cannot be written");
        return std::unique_ptr<Store>(std::move(store));
      }
      return std::unique_ptr<Store>(
          new SqliteStore(options, *secret, std::move(*writer), true));
    }
    if (writer.error().code() != Error::Code::kCorrupt || attempt > 0) {
      return Fail(writer.error());
    }
    auto aside = MoveAside(options.path);
    if (!aside) return Fail(aside.error());
    if (options.log) {
      options.log("store: " + options.path + " is damaged or not a mailwave " +
                  "store (" + writer.error().message() + "); moved it to " +
                  *aside + " and started a new store");
    }
  }
}

Result<void> TEST_SetMaxPageCount(Store* store, std::int64_t pages) {
  return static_cast<SqliteStore*>(store)->SetMaxPageCount(pages);
}

std::uint64_t TEST_IndexRowsRead(Store* store) {
  return static_cast<SqliteStore*>(store)->index_rows_read();
}

std::uint64_t TEST_GroupCommits(Store* store) {
  return static_cast<SqliteStore*>(store)->group_commits();
}

std::uint64_t TEST_WriterFinds(Store* store) {
  return static_cast<SqliteStore*>(store)->writer_finds();
}

}  // namespace mw::store
