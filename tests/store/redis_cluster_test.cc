// The slot-aware client against a real 3-master Redis Cluster on loopback
// (Debian's redis-server, joined by redis-cli --cluster create), one cluster
// per test. Skipped when redis-server or redis-cli is not installed.
#include "redis_cluster.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "redis_slot.h"
#include "tests/store/redis_cluster_util.h"

namespace mw::store {
namespace {

using testing::RedisCluster;

class RedisClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!RedisCluster::Available())
      GTEST_SKIP() << "redis-server or redis-cli is not installed";
    ASSERT_TRUE(cluster_.Start(3));
  }
  std::unique_ptr<ClusterClient> Client() {
    ConnectOptions o;
    o.command_timeout = std::chrono::seconds(2);
    auto c = ClusterClient::Open(cluster_.Seeds(), o);
    EXPECT_TRUE(c.has_value()) << c.error().ToString();
    return c ? std::move(*c) : nullptr;
  }
  // The node id of the master on `port`.
  static std::string NodeId(int port) {
    auto c = RedisCluster::Admin(port);
    auto id = c->Command({"CLUSTER", "MYID"});
    return id ? std::string(id->str()) : "";
  }
  std::size_t MasterIndex(const ClusterClient& client, int port) {
    const auto& m = client.map().masters;
    for (std::size_t i = 0; i < m.size(); ++i)
      if (m[i].port == port) return i;
    ADD_FAILURE() << "no master on port " << port;
    return 0;
  }

  RedisCluster cluster_;
};

TEST_F(RedisClusterTest, TheMapCoversEverySlotOnThreeMasters) {
  auto client = Client();
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(client->map().masters.size(), 3u);
  EXPECT_EQ(client->map().Covered(), kClusterSlots);
  EXPECT_EQ(client->map_reads(), 1);
}

TEST_F(RedisClusterTest, KeySlotIsTheClustersOwn) {
  auto client = Client();
  ASSERT_NE(client, nullptr);
  std::mt19937_64 rng(7);
  std::vector<std::string> keys = {"",      "{",         "}",        "{}",
                                   "{}x",   "x{}",       "a{b}c",    "{a}{b}",
                                   "{{a}}", "mw:k:12.3", "{mw:t1}:m"};
  for (int i = 0; i < 1500; ++i) {
    std::string k(rng() % 24, '\0');
    for (char& ch : k) ch = "ab{}:\x01\xff"[rng() % 7];
    keys.push_back(k);
  }
  for (const std::string& k : keys) {
    auto r = client->CommandOnMaster(0, {"CLUSTER", "KEYSLOT", k});
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    ASSERT_EQ(KeySlot(k), r->integer()) << "key of " << k.size() << " bytes";
  }
}

TEST_F(RedisClusterTest, KeysSpreadOverTheMastersAndReadBackInOnePipeline) {
  auto client = Client();
  ASSERT_NE(client, nullptr);
  constexpr int kKeys = 3000;
  std::vector<std::string> keys, values;
  std::vector<ClusterClient::SlotCommand> sets;
  for (int i = 0; i < kKeys; ++i) {
    keys.push_back("m:" + std::to_string(i));
    values.push_back("v" + std::to_string(i * 7));
  }
  for (int i = 0; i < kKeys; ++i)
    sets.push_back({KeySlot(keys[i]), {"SET", keys[i], values[i]}});
  for (const auto& r : client->Pipeline(sets)) {
    ASSERT_TRUE(r.has_value()) << r.error().ToString();
    ASSERT_EQ(r->str(), "OK");
  }
  // Each master holds its share: a third, give or take the hash's spread.
  for (const RedisCluster::Node& n : cluster_.nodes()) {
    auto size = RedisCluster::Admin(n.port)->Command({"DBSIZE"});
    ASSERT_TRUE(size.has_value());
    EXPECT_GT(size->integer(), kKeys * 28 / 100) << "node " << n.port;
    EXPECT_LT(size->integer(), kKeys * 39 / 100) << "node " << n.port;
  }
  // Replies come back in the order asked, across masters, mixed commands.
  std::vector<ClusterClient::SlotCommand> gets;
  for (int i = kKeys - 1; i >= 0; --i) {
    gets.push_back({KeySlot(keys[i]), {"GET", keys[i]}});
    if (i % 100 == 0) gets.push_back({KeySlot(keys[i]), {"STRLEN", keys[i]}});
  }
  const auto got = client->Pipeline(gets);
  ASSERT_EQ(got.size(), gets.size());
  std::size_t g = 0;
  for (int i = kKeys - 1; i >= 0; --i) {
    ASSERT_TRUE(got[g].has_value());
    EXPECT_EQ(got[g++]->str(), values[i]);
    if (i % 100 == 0) {
      EXPECT_EQ(got[g++]->integer(),
                static_cast<std::int64_t>(values[i].size()));
    }
  }
  // One command at a time gives the same.
  auto one = client->Command(KeySlot(keys[42]), {"GET", keys[42]});
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->str(), values[42]);
  EXPECT_EQ(client->map_reads(), 1);  // nothing was redirected
}

// A slot moved by hand as `redis-cli --cluster reshard` moves it: ASK while
// it migrates, MOVED once it has moved.
TEST_F(RedisClusterTest, AskAndMovedAreFollowed) {
  auto client = Client();
  auto stale = Client();
  ASSERT_NE(client, nullptr);
  ASSERT_NE(stale, nullptr);
  const std::string key = "{wave}:a", fresh = "{wave}:b";
  const int slot = KeySlot(key);
  const int from =
      client->map()
          .masters[static_cast<std::size_t>(client->map().Owner(slot))]
          .port;
  int to = 0;
  for (const RedisCluster::Node& n : cluster_.nodes())
    if (n.port != from) to = n.port;
  ASSERT_TRUE(client->Command(slot, {"SET", key, "old"}).has_value());

  auto src = RedisCluster::Admin(from);
  auto dst = RedisCluster::Admin(to);
  const std::string s = std::to_string(slot);
  ASSERT_EQ(
      dst->Command({"CLUSTER", "SETSLOT", s, "IMPORTING", NodeId(from)})->str(),
      "OK");
  ASSERT_EQ(
      src->Command({"CLUSTER", "SETSLOT", s, "MIGRATING", NodeId(to)})->str(),
      "OK");
  // A key the source does not have is asked of the target: it lands there.
  auto set = client->Command(slot, {"SET", fresh, "new"});
  ASSERT_TRUE(set.has_value()) << set.error().ToString();
  EXPECT_EQ(set->str(), "OK");
  EXPECT_EQ(src->Command({"EXISTS", fresh})->integer(), 0);
  // The key the source still has is served there.
  EXPECT_EQ(client->Command(slot, {"GET", key})->str(), "old");
  EXPECT_EQ(client->map_reads(), 1);  // ASK does not reread the map

  ASSERT_EQ(src->Command({"MIGRATE", "127.0.0.1", std::to_string(to), "", "0",
                          "5000", "KEYS", key})
                ->str(),
            "OK");
  for (const RedisCluster::Node& n : cluster_.nodes()) {
    auto r = RedisCluster::Admin(n.port)->Command(
        {"CLUSTER", "SETSLOT", s, "NODE", NodeId(to)});
    ASSERT_TRUE(r.has_value());
    ASSERT_EQ(r->str(), "OK") << n.port;
  }
  // The client's map still says `from`: MOVED, the map is read again.
  auto get = client->Command(slot, {"GET", key});
  ASSERT_TRUE(get.has_value()) << get.error().ToString();
  EXPECT_EQ(get->str(), "old");
  EXPECT_EQ(client->map_reads(), 2);
  EXPECT_EQ(client->map()
                .masters[static_cast<std::size_t>(client->map().Owner(slot))]
                .port,
            to);
  // A pipeline through a stale map (a client that has not sent to the slot
  // since it moved): the redirected commands are sent again alone and their
  // replies come back in place.
  std::vector<ClusterClient::SlotCommand> batch = {
      {KeySlot("other"), {"SET", "other", "1"}},
      {slot, {"GET", fresh}},
      {KeySlot("other"), {"GET", "other"}},
      {slot, {"GET", key}}};
  const auto replies = stale->Pipeline(batch);
  ASSERT_EQ(replies.size(), 4u);
  for (const auto& r : replies) ASSERT_TRUE(r.has_value());
  EXPECT_EQ(replies[0]->str(), "OK");
  EXPECT_EQ(replies[1]->str(), "new");
  EXPECT_EQ(replies[2]->str(), "1");
  EXPECT_EQ(replies[3]->str(), "old");
  EXPECT_EQ(stale->map_reads(), 2);
}

TEST_F(RedisClusterTest, ADeadMasterFailsOnlyItsOwnSlots) {
  auto client = Client();
  ASSERT_NE(client, nullptr);
  std::vector<ClusterClient::SlotCommand> sets;
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) keys.push_back("k" + std::to_string(i));
  for (const std::string& k : keys) sets.push_back({KeySlot(k), {"SET", k, k}});
  for (const auto& r : client->Pipeline(sets)) ASSERT_TRUE(r.has_value());

  const int dead = cluster_.nodes()[1].port;
  const int dead_index = static_cast<int>(MasterIndex(*client, dead));
  cluster_.Kill(1);
  std::vector<ClusterClient::SlotCommand> gets;
  for (const std::string& k : keys) gets.push_back({KeySlot(k), {"GET", k}});
  const auto start = std::chrono::steady_clock::now();
  const auto got = client->Pipeline(gets);
  const auto took = std::chrono::steady_clock::now() - start;
  int lost = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const bool on_dead = client->map().Owner(gets[i].slot) == dead_index;
    if (on_dead) {
      ++lost;
      ASSERT_FALSE(got[i].has_value()) << keys[i];
      EXPECT_EQ(got[i].error().code(), Error::Code::kUnavailable);
    } else {
      ASSERT_TRUE(got[i].has_value())
          << keys[i] << ": " << got[i].error().ToString();
      EXPECT_EQ(got[i]->str(), keys[i]);
    }
  }
  EXPECT_GT(lost, 50);
  EXPECT_LT(lost, 150);
  // A refused connection fails at once, not after the command timeout.
  EXPECT_LT(took, std::chrono::seconds(2));
  // Single commands: the same split.
  for (std::size_t i = 0; i < 20; ++i) {
    auto r = client->Command(gets[i].slot, gets[i].args);
    EXPECT_EQ(r.has_value(), client->map().Owner(gets[i].slot) != dead_index);
  }
}

// A master that refused a connection is not tried again for
// kRetryUnreachable: its commands fail at once with that reason (a dead host
// would make each wait for the connect timeout), and after it the client
// connects again.
TEST_F(RedisClusterTest, AnUnreachableMasterIsRetriedAfterAPause) {
  auto client = Client();
  ASSERT_NE(client, nullptr);
  const int port = cluster_.nodes()[2].port;
  const std::size_t index = MasterIndex(*client, port);
  ASSERT_TRUE(client->CommandOnMaster(index, {"PING"}).has_value());
  cluster_.Kill(2);
  // The connection held breaks on its first use; the next try is refused.
  EXPECT_FALSE(client->CommandOnMaster(index, {"PING"}).has_value());
  auto refused = client->CommandOnMaster(index, {"PING"});
  const auto failed_at = std::chrono::steady_clock::now();
  ASSERT_FALSE(refused.has_value());
  {
    // A peer on the port now that accepts and never answers: tried, it
    // would cost the connect timeout and fail for another reason.
    const testing::SilentPeer silent(port);
    ASSERT_TRUE(silent.ok());
    const auto start = std::chrono::steady_clock::now();
    auto early = client->CommandOnMaster(index, {"PING"});
    const auto took = std::chrono::steady_clock::now() - start;
    ASSERT_FALSE(early.has_value());
    EXPECT_EQ(early.error().message(), refused.error().message());
    EXPECT_LT(took, std::chrono::milliseconds(50));
    EXPECT_LT(start - failed_at, ClusterClient::kRetryUnreachable);
  }
  ASSERT_TRUE(cluster_.Restart(2));
  std::this_thread::sleep_until(failed_at + ClusterClient::kRetryUnreachable);
  auto later = client->CommandOnMaster(index, {"PING"});
  ASSERT_TRUE(later.has_value()) << later.error().ToString();
  EXPECT_EQ(later->str(), "PONG");
}

TEST(RedisClusterPlainTest, APlainRedisIsNoCluster) {
  if (!RedisCluster::Available())
    GTEST_SKIP() << "redis-server is not installed";
  testing::TempDir dir;
  const int port = testing::FreePorts(1).at(0);
  const std::string p = std::to_string(port);
  std::vector<std::string> args = {testing::FindProgram("redis-server"),
                                   "--port",
                                   p,
                                   "--bind",
                                   "127.0.0.1",
                                   "--save",
                                   "",
                                   "--dir",
                                   dir.path(),
                                   "--logfile",
                                   dir.File("redis.log")};
  pid_t pid = 0;
  ASSERT_TRUE(testing::SpawnProgram(args, &pid));
  Result<std::unique_ptr<ClusterClient>> c = Fail(Error::Internal("not tried"));
  for (int i = 0; i < 200; ++i) {
    c = ClusterClient::Open({RedisCluster::Address(port)}, ConnectOptions{});
    if (c || c.error().message().find("cluster support") != std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().code(), Error::Code::kUnavailable);
  EXPECT_NE(c.error().message().find("cluster support disabled"),
            std::string::npos)
      << c.error().message();

  ConnectOptions db1;
  db1.database = 1;
  auto bad = ClusterClient::Open({RedisCluster::Address(port)}, db1);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), Error::Code::kInvalidArgument);
}

}  // namespace
}  // namespace mw::store
