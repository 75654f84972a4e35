// pipeline::OpenStore: the backend [store] names, and nothing else.
#include "pipeline/store_open.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "config/config.h"

namespace mw::pipeline {
namespace {

class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/mw-store-open-XXXXXX";
    const char* made = ::mkdtemp(name);
    path_ = made != nullptr ? made : "/tmp";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(StoreOpen, SqliteByDefaultAndItsPathOverride) {
  TempDir dir;
  config::Settings s;
  s.store.path = dir.path() + "/configured.db";
  StoreOpenOptions o;
  o.sqlite_path = dir.path() + "/other.db";
  auto store = OpenStore(s, o);
  ASSERT_TRUE(store.has_value()) << store.error().ToString();
  auto stats = (*store)->GetStats();
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->path, dir.path() + "/other.db");
  EXPECT_FALSE(std::filesystem::exists(s.store.path));
}

TEST(StoreOpen, UnknownBackendIsRefused) {
  config::Settings s;
  s.store.backend = "postgres";
  auto store = OpenStore(s, {});
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code(), Error::Code::kInvalidArgument);
  EXPECT_NE(store.error().message().find("postgres"), std::string::npos);
}

TEST(StoreOpen, RedisBackendIsOpenedFromTheRedisKeys) {
  TempDir dir;
  config::Settings s;
  s.store.backend = "redis";
  s.store.path = dir.path() + "/mailwave.db";
  // Nothing listens there: the Redis backend's own errors prove it was the
  // one opened, with [store] redis as its address. An unreachable server is
  // no reason to refuse a start: the store starts down and says so once.
  s.store.redis = "unix:" + dir.path() + "/absent.sock";
  s.store.redis_timeout = std::chrono::milliseconds(100);
  std::vector<std::string> log;
  StoreOpenOptions so;
  so.log = [&](std::string_view line) { log.emplace_back(line); };
  auto store = OpenStore(s, so);
  ASSERT_TRUE(store.has_value()) << store.error().ToString();
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("redis: down: "), std::string::npos) << log[0];
  EXPECT_NE(log[0].find("absent.sock"), std::string::npos) << log[0];
  auto stats = (*store)->GetStats();
  ASSERT_FALSE(stats.has_value());
  EXPECT_EQ(stats.error().code(), Error::Code::kUnavailable);
  // The secret was made beside [store] path, as for SQLite.
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/secret"));
  s.store.redis = "localhost:6379";
  store = OpenStore(s, {});
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().code(), Error::Code::kInvalidArgument);
}

}  // namespace
}  // namespace mw::pipeline
