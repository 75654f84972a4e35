// The SQLite backend of store::Store: one file, WAL, hashes only.
//
// Layout and costs: docs/store.md. Startup: the file is opened (created with
// its directory's secret when new), `PRAGMA quick_check` runs, and a file that
// fails it or is not a mailwave store is renamed "<path>.corrupt-<unix time>"
// with one log line and a new store is started in its place, so a damaged file
// never causes a crash loop. A file that cannot be written (read-only, full
// disk) is opened for lookups alone.
//
// Thread-safety: OpenSqlite's result may be used from any number of threads;
// lookups run on a pool of read connections, writes on one write connection.
#ifndef MW_STORE_SQLITE_H_
#define MW_STORE_SQLITE_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "fingerprint/fingerprint.h"
#include "mw/result.h"
#include "store/store.h"

namespace mw::store {

struct SqliteOptions {
  std::string path = "/var/lib/mailwave/mailwave.db";
  // Fingerprints are compared under these; the store refuses (skips) rows
  // written under other options.
  fingerprint::Options fingerprint;
  // How long a statement waits for another connection's lock.
  std::chrono::milliseconds busy_timeout{200};
  // Candidates returned by Find, and stored messages read per index key
  // (newest first): a key shared by a whole wave costs this much, not the
  // wave's size. Record deletes a key's older rows as it adds new ones
  // (about max_per_key + 8 stay).
  std::size_t max_candidates = 16;
  std::size_t max_per_key = 32;
  // The secret file for the keyed hashes; empty: "<path's dir>/secret". Made
  // (0600, 32 random bytes) when absent.
  std::string secret_path;
  // WAL size past which the maintenance thread folds it back (a PASSIVE
  // checkpoint beside the writer, after which the next commit rewinds it),
  // and, at four times this, rewinds it with writes paused (TRUNCATE), so the
  // WAL cannot grow without bound under constant readers and a writer that
  // never pauses. Also SQLite's journal_size_limit.
  std::uint64_t wal_limit_bytes = 4ull << 20;
  // The store's maintenance thread (writable stores only) wakes this often:
  // it folds the WAL back into the database (PASSIVE checkpoints on a
  // connection of its own, so no commit ever pays for one) and, when
  // `retention` is set, prunes messages older than that in batches of
  // prune_batch, each its own short transaction.
  std::chrono::milliseconds maintenance_interval{250};
  // Group commit: Records share a write transaction for this long (or 64 of
  // them) and commit together; a Find served by a read connection sees a
  // Record at that commit, one served by the writer's (below) at once. 0:
  // each Record commits before it returns. Destroying the store commits.
  std::chrono::milliseconds commit_delay{0};
  // Find runs on the writer's connection when no Record or Prune holds it:
  // that connection's page cache survives its own commits, while SQLite
  // empties a read connection's whole cache whenever the file changed, so
  // a Find on a reader reads its ~20 index and row pages from the kernel
  // again after every commit. Not a setting: tests turn it off to reach
  // the readers' path deterministically.
  bool find_on_writer = true;
  std::chrono::milliseconds retention{0};  // 0: no background pruning
  std::size_t prune_batch = 500;
  bool read_only = false;  // open for lookups alone (mailwave store stats)
  LogFn log;               // empty: no log
};

// Opens or creates the store. Fails with kIo when the directory cannot be
// used at all, kCorrupt never (a corrupt file is moved aside; see above).
Result<std::unique_ptr<Store>> OpenSqlite(const SqliteOptions& options);

}  // namespace mw::store

#endif  // MW_STORE_SQLITE_H_
