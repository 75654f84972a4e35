// Test hooks into the SQLite store (OpenSqlite's result). Not part of the
// public interface: tests include this private header.
#ifndef MW_STORE_SQLITE_STORE_H_
#define MW_STORE_SQLITE_STORE_H_

#include <cstdint>

#include "mw/result.h"
#include "store/store.h"

namespace mw::store {

// Runs `PRAGMA max_page_count = pages` on the write connection, so that the
// next writes fail with SQLITE_FULL as on a full disk.
// REQUIRES: store came from OpenSqlite.
Result<void> TEST_SetMaxPageCount(Store* store, std::int64_t pages);

// Index rows read by Find since the store was opened.
// REQUIRES: store came from OpenSqlite.
std::uint64_t TEST_IndexRowsRead(Store* store);

// Record transactions committed since the store was opened (one per Record
// without group commit, one per batch with it).
// REQUIRES: store came from OpenSqlite.
std::uint64_t TEST_GroupCommits(Store* store);

// Finds served by the writer's connection since the store was opened
// (SqliteOptions::find_on_writer).
// REQUIRES: store came from OpenSqlite.
std::uint64_t TEST_WriterFinds(Store* store);

}  // namespace mw::store

#endif  // MW_STORE_SQLITE_STORE_H_
