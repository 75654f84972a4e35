// The store's schema: its version (PRAGMA user_version), the application id
// that marks a file as a mailwave store (PRAGMA application_id), and the
// migrations that bring an older file up to date.
//
// Thread-safety: functions over one connection, which the caller owns.
#ifndef MW_STORE_SCHEMA_H_
#define MW_STORE_SCHEMA_H_

#include <cstdint>
#include <span>
#include <string>

#include "db.h"
#include "mw/result.h"

namespace mw::store {

// "MWav": PRAGMA application_id of every mailwave store.
inline constexpr std::int32_t kApplicationId = 0x4d576176;
// The schema version this code writes and reads.
inline constexpr std::int64_t kSchemaVersion = 2;

// One step from schema version `from` to from + 1: SQL statements, run inside
// the migration's transaction.
struct Migration {
  std::int64_t from;
  const char* sql;
};

// The steps from an empty file (version 0) to kSchemaVersion, in order.
std::span<const Migration> Migrations();

// What a file holds, judged before any migration.
enum class FileKind {
  kEmpty,    // no tables and no application id: a new store
  kOurs,     // application_id is kApplicationId
  kForeign,  // tables or an application id of something else
};
Result<FileKind> Inspect(Db& db) noexcept;

// Brings `db` to the last version `steps` reach (kSchemaVersion for
// Migrations()), applying every step from its current user_version in one
// BEGIN IMMEDIATE transaction together with the new user_version and the
// application id: either all steps apply or none. Fails with
// kInvalidArgument ("store written by a newer mailwave") when the file's
// version is beyond that, kInternal when the steps do not start at the file's
// version, and with the step's error (the file unchanged) when one fails.
// REQUIRES: steps[i].from == steps[0].from + i.
Result<void> Migrate(Db& db, std::span<const Migration> steps) noexcept;

// PRAGMA quick_check's verdict: "ok", or its first problem.
Result<std::string> QuickCheck(Db& db) noexcept;

}  // namespace mw::store

#endif  // MW_STORE_SCHEMA_H_
