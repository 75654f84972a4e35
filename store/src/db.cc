#include "db.h"

#include <algorithm>
#include <cstdint>
#include <thread>
#include <utility>

namespace mw::store {
namespace {

constexpr std::chrono::microseconds kBusyPoll{200};

}  // namespace

Error SqliteError(int code, sqlite3* db, std::string_view what) {
  std::string message(what);
  message += ": ";
  // sqlite3_errmsg describes the connection's last error, which is `code`
  // when the caller asks right away; without a connection, the code's text.
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  switch (code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Error::Unavailable(std::move(message));
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_PERM:
      return Error::Io(std::move(message));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Error::Corrupt(std::move(message));
    default:
      return Error::Internal(std::move(message));
  }
}

Query::Query(Query&& other) noexcept : stmt_(other.stmt_), db_(other.db_) {
  other.stmt_ = nullptr;
}

Query::~Query() {
  if (stmt_ != nullptr) Reset();
}

void Query::Reset() noexcept {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Result<void> Query::Bind(int index, std::int64_t value) noexcept {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) return Fail(SqliteError(rc, db_, "bind"));
  return {};
}

Result<void> Query::BindText(int index, std::string_view text) noexcept {
  const int rc = sqlite3_bind_text64(stmt_, index, text.data(), text.size(),
                                     SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) return Fail(SqliteError(rc, db_, "bind"));
  return {};
}

Result<void> Query::BindBlob(int index, std::string_view bytes) noexcept {
  // A zero-length blob still binds as a blob, not NULL.
  const int rc = bytes.empty()
                     ? sqlite3_bind_zeroblob(stmt_, index, 0)
                     : sqlite3_bind_blob64(stmt_, index, bytes.data(),
                                           bytes.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) return Fail(SqliteError(rc, db_, "bind"));
  return {};
}

Result<bool> Query::Step() noexcept {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Fail(SqliteError(rc, db_, "step"));
}

Result<void> Query::Run() noexcept {
  for (;;) {
    auto row = Step();
    if (!row) return Fail(row.error());
    if (!*row) return {};
  }
}

std::int64_t Query::Int(int column) const noexcept {
  return sqlite3_column_int64(stmt_, column);
}

bool Query::IsNull(int column) const noexcept {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::string Query::Text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  const int n = sqlite3_column_bytes(stmt_, column);
  return p == nullptr ? std::string()
                      : std::string(reinterpret_cast<const char*>(p), n);
}

std::string Query::Blob(int column) const {
  const void* p = sqlite3_column_blob(stmt_, column);
  const int n = sqlite3_column_bytes(stmt_, column);
  return p == nullptr ? std::string()
                      : std::string(static_cast<const char*>(p), n);
}

Result<Db> Db::Open(const std::string& path, int flags,
                    std::chrono::milliseconds busy_timeout) noexcept {
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  // Even a failed open may allocate a handle; it must be closed.
  Db db(raw);
  if (rc != SQLITE_OK) {
    return Fail(SqliteError(rc, raw, "open " + path));
  }
  sqlite3_extended_result_codes(raw, 1);
  // Polls every kBusyPoll rather than SQLite's back-off (1 ms growing to
  // 100 ms): a daemon under load holds the write lock for one group commit
  // after another (SqliteOptions::commit_delay) with gaps of microseconds
  // between them, which a poll every 100 ms would almost never hit, so an
  // admin's `mailwave store allow` would time out however long it waited.
  const std::intptr_t polls =
      std::max<std::intptr_t>(1, busy_timeout / kBusyPoll);
  sqlite3_busy_handler(
      raw,
      [](void* max_polls, int count) -> int {
        if (count >= reinterpret_cast<std::intptr_t>(max_polls)) return 0;
        std::this_thread::sleep_for(kBusyPoll);
        return 1;
      },
      reinterpret_cast<void*>(polls));
  return db;
}

Result<void> Db::Exec(const char* sql) noexcept {
  const int rc = sqlite3_exec(db_.get(), sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Fail(SqliteError(rc, db_.get(), sql));
  return {};
}

Result<std::int64_t> Db::QueryInt(const char* sql) noexcept {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db_.get(), sql, -1, &raw, nullptr);
  StmtHandle stmt(raw);
  if (rc != SQLITE_OK) return Fail(SqliteError(rc, db_.get(), sql));
  rc = sqlite3_step(raw);
  if (rc == SQLITE_DONE) return 0;
  if (rc != SQLITE_ROW) return Fail(SqliteError(rc, db_.get(), sql));
  return sqlite3_column_int64(raw, 0);
}

Result<std::string> Db::QueryText(const char* sql) noexcept {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db_.get(), sql, -1, &raw, nullptr);
  StmtHandle stmt(raw);
  if (rc != SQLITE_OK) return Fail(SqliteError(rc, db_.get(), sql));
  rc = sqlite3_step(raw);
  if (rc == SQLITE_DONE) return std::string();
  if (rc != SQLITE_ROW) return Fail(SqliteError(rc, db_.get(), sql));
  const auto* p = sqlite3_column_text(raw, 0);
  return p == nullptr ? std::string()
                      : std::string(reinterpret_cast<const char*>(p),
                                    sqlite3_column_bytes(raw, 0));
}

Result<Query> Db::Prepare(const char* sql) noexcept {
  auto it = cache_->find(sql);
  if (it == cache_->end()) {
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v3(db_.get(), sql, -1,
                                      SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
    StmtHandle stmt(raw);
    if (rc != SQLITE_OK) return Fail(SqliteError(rc, db_.get(), sql));
    it = cache_->emplace(sql, std::move(stmt)).first;
  }
  return Query(it->second.get(), db_.get());
}

Result<void> Db::Run(const char* sql) noexcept {
  auto query = Prepare(sql);
  if (!query) return Fail(query.error());
  // The error names the statement, as Exec's does ("COMMIT: database is
  // locked"), not "step".
  const int rc = sqlite3_step(query->stmt_);
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) return {};
  return Fail(SqliteError(rc, db_.get(), sql));
}

std::int64_t Db::LastInsertRowid() const noexcept {
  return sqlite3_last_insert_rowid(db_.get());
}

int Db::Changes() const noexcept { return sqlite3_changes(db_.get()); }

}  // namespace mw::store
