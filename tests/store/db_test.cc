#include "db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "tests/store/test_util.h"

namespace mw::store {
namespace {

using testing::OpenDb;
using testing::TempDir;

constexpr const char* kBegin = "BEGIN IMMEDIATE";
constexpr const char* kCommit = "COMMIT";
constexpr const char* kRollback = "ROLLBACK";

// Run reuses one prepared statement per SQL text: a transaction opened and
// ended by it, again and again, behaves as with sqlite3_exec.
TEST(Db, RunOpensAndEndsTransactionsFromTheCache) {
  TempDir dir;
  Db db = OpenDb(dir.File("d.db"));
  ASSERT_TRUE(db.Exec("CREATE TABLE t(x INTEGER)").has_value());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(db.Run(kBegin).has_value());
    EXPECT_EQ(sqlite3_get_autocommit(db.get()), 0);
    auto insert = db.Prepare("INSERT INTO t VALUES (1)");
    ASSERT_TRUE(insert.has_value());
    ASSERT_TRUE(insert->Run().has_value());
    ASSERT_TRUE(db.Run(i == 1 ? kRollback : kCommit).has_value());
    EXPECT_NE(sqlite3_get_autocommit(db.get()), 0);
  }
  EXPECT_EQ(*db.QueryInt("SELECT count(*) FROM t"), 2);  // one rolled back
}

// A statement that fails (COMMIT with no transaction open) returns an error
// naming it and leaves the cached statement usable.
TEST(Db, RunFailsAsAValueAndStaysUsable) {
  TempDir dir;
  Db db = OpenDb(dir.File("d.db"));
  auto failed = db.Run(kCommit);
  ASSERT_FALSE(failed.has_value());
  EXPECT_NE(failed.error().ToString().find("COMMIT"), std::string::npos)
      << failed.error().ToString();
  ASSERT_TRUE(db.Run(kBegin).has_value());
  EXPECT_TRUE(db.Run(kCommit).has_value());
  EXPECT_FALSE(db.Run("NOT SQL").has_value());
}

}  // namespace
}  // namespace mw::store
