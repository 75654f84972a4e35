// RAII wrappers for SQLite handles: a connection (sqlite3_close_v2) with a
// cache of prepared statements (sqlite3_finalize), and Query, a borrowed
// statement with bind/step/column helpers that resets itself when it goes.
//
// Every call is noexcept and reports failures as Result, with SQLite's codes
// mapped onto mw::Error's: BUSY/LOCKED -> kUnavailable; FULL, READONLY,
// CANTOPEN, IOERR, PERM -> kIo (the file cannot be written or read);
// CORRUPT, NOTADB -> kCorrupt; anything else -> kInternal.
//
// Thread-safety: a Db and its queries belong to one thread at a time (the
// store hands connections out under its own locks; connections are opened
// with SQLITE_OPEN_NOMUTEX).
#ifndef MW_STORE_DB_H_
#define MW_STORE_DB_H_

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "mw/result.h"

namespace mw::store {

// The mw::Error for SQLite result code `code` (primary or extended) on `db`
// (may be null), prefixed with `what`.
Error SqliteError(int code, sqlite3* db, std::string_view what);

class Db;

// One use of a cached prepared statement: bind, step, read columns. Resets
// the statement and clears its bindings when destroyed, so that no statement
// is left mid-way holding a read snapshot. Move-only; must not outlive its Db.
class Query {
 public:
  Query(Query&& other) noexcept;
  Query& operator=(Query&&) = delete;
  Query(const Query&) = delete;
  ~Query();

  // Parameters are 1-based, as in sqlite3_bind_*.
  Result<void> Bind(int index, std::int64_t value) noexcept;
  Result<void> BindText(int index, std::string_view text) noexcept;
  Result<void> BindBlob(int index, std::string_view bytes) noexcept;

  // True: a row is ready; false: done.
  Result<bool> Step() noexcept;
  // Rewinds the statement for another use and clears its bindings.
  void Reset() noexcept;
  // Steps to the end, for statements that return no rows.
  Result<void> Run() noexcept;

  // Columns are 0-based. Text and blobs are copied out: the pointers SQLite
  // hands out die at the next step.
  std::int64_t Int(int column) const noexcept;
  bool IsNull(int column) const noexcept;
  std::string Text(int column) const;
  std::string Blob(int column) const;

 private:
  friend class Db;
  Query(sqlite3_stmt* stmt, sqlite3* db) : stmt_(stmt), db_(db) {}
  sqlite3_stmt* stmt_;
  sqlite3* db_;
};

class Db {
 public:
  // Opens `path` with sqlite3_open_v2 `flags` (SQLITE_OPEN_NOMUTEX is added),
  // extended result codes on, and a busy handler that retries a lock every
  // 200 µs for `busy_timeout`.
  static Result<Db> Open(const std::string& path, int flags,
                         std::chrono::milliseconds busy_timeout) noexcept;

  Db(Db&&) noexcept = default;
  Db& operator=(Db&&) noexcept = default;

  // Runs `sql` (one or more statements without parameters, not cached).
  Result<void> Exec(const char* sql) noexcept;
  // A single-row, single-integer query ("PRAGMA user_version"): its value, or
  // 0 when it returns no row.
  Result<std::int64_t> QueryInt(const char* sql) noexcept;
  // A single-row, single-text query ("PRAGMA quick_check"'s first row).
  Result<std::string> QueryText(const char* sql) noexcept;

  // Runs `sql`, one statement without parameters whose rows are not read
  // ("BEGIN IMMEDIATE", "COMMIT"), from the statement cache as Prepare does
  // (so `sql` must outlive the Db): sqlite3_exec would parse it every call,
  // which for a transaction's BEGIN and COMMIT around one message's few
  // cached statements is a measurable part of the whole.
  Result<void> Run(const char* sql) noexcept;

  // The statement for `sql`, prepared once per connection and cached by the
  // pointer `sql`, which must therefore be a string literal (or otherwise
  // outlive the Db).
  Result<Query> Prepare(const char* sql) noexcept;

  std::int64_t LastInsertRowid() const noexcept;
  int Changes() const noexcept;
  sqlite3* get() const noexcept { return db_.get(); }

 private:
  struct CloseDb {
    void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
  };
  struct FinalizeStmt {
    void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
  };
  using StmtHandle = std::unique_ptr<sqlite3_stmt, FinalizeStmt>;

  explicit Db(sqlite3* db) : db_(db) {}

  std::unique_ptr<sqlite3, CloseDb> db_;
  // Declared after db_, so destroyed (its statements finalized) first;
  // sqlite3_close_v2 would otherwise defer the close until they are. Behind
  // a pointer so that a moved Db keeps the statements its Query objects use.
  std::unique_ptr<std::unordered_map<const char*, StmtHandle>> cache_ =
      std::make_unique<std::unordered_map<const char*, StmtHandle>>();
};

}  // namespace mw::store

#endif  // MW_STORE_DB_H_
