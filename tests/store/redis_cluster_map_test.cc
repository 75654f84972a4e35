// The slot map and redirections, read from RESP bytes as a Cluster node
// sends them (hiredis's own reader parses them, as on a live connection).
#include "redis_cluster_map.h"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <string>
#include <vector>

namespace mw::store {
namespace {

Reply Parse(const std::string& resp) {
  redisReader* reader = redisReaderCreate();
  EXPECT_EQ(redisReaderFeed(reader, resp.data(), resp.size()), REDIS_OK);
  void* r = nullptr;
  EXPECT_EQ(redisReaderGetReply(reader, &r), REDIS_OK);
  redisReaderFree(reader);
  EXPECT_NE(r, nullptr);
  return Reply(static_cast<redisReply*>(r));
}

std::string Bulk(const std::string& s) {
  return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n";
}

// [first, last, [host, port, id], replicas...]
std::string Range(int first, int last, const std::string& host, int port,
                  int replicas = 0) {
  std::string node = "*3\r\n" + Bulk(host) + ":" + std::to_string(port) +
                     "\r\n" + Bulk("0123456789abcdef0123456789abcdef01234567");
  std::string r = "*" + std::to_string(3 + replicas) +
                  "\r\n:" + std::to_string(first) +
                  "\r\n:" + std::to_string(last) + "\r\n" + node;
  for (int i = 0; i < replicas; ++i)
    r += "*3\r\n" + Bulk("10.0.0.9") + ":7000\r\n" + Bulk("replica");
  return r;
}

TEST(RedisClusterMapTest, ThreeMastersCoverEverySlot) {
  const Reply reply = Parse("*4\r\n" + Range(0, 5460, "127.0.0.1", 7001, 1) +
                            Range(10923, 16383, "127.0.0.1", 7003) +
                            Range(5461, 10921, "127.0.0.1", 7002) +
                            Range(10922, 10922, "127.0.0.1", 7001));
  auto map = ParseClusterSlots(reply, "seed");
  ASSERT_TRUE(map.has_value()) << map.error().ToString();
  ASSERT_EQ(map->masters.size(), 3u);
  EXPECT_EQ(map->Covered(), 16384);
  // Sorted by port: 7001, 7002, 7003; replicas are not masters.
  EXPECT_EQ(map->masters[0].port, 7001);
  EXPECT_EQ(map->masters[2].port, 7003);
  EXPECT_EQ(map->Owner(0), 0);
  EXPECT_EQ(map->Owner(5461), 1);
  EXPECT_EQ(map->Owner(10922), 0);
  EXPECT_EQ(map->Owner(16383), 2);
}

TEST(RedisClusterMapTest, AnEmptyHostIsTheAskedNode) {
  auto map =
      ParseClusterSlots(Parse("*1\r\n" + Range(0, 99, "", 7005)), "10.1.2.3");
  ASSERT_TRUE(map.has_value());
  EXPECT_EQ(NodeName(map->masters[0]), "10.1.2.3:7005");
  EXPECT_EQ(map->Covered(), 100);
  EXPECT_EQ(map->Owner(100), -1);
}

TEST(RedisClusterMapTest, OtherShapesAreCorrupt) {
  for (const std::string& bad : std::vector<std::string>{
           "+OK\r\n", "*1\r\n:5\r\n",
           "*1\r\n" + Range(5, 4, "h", 1),       // first > last
           "*1\r\n" + Range(0, 16384, "h", 1),   // past the last slot
           "*1\r\n" + Range(0, 1, "h", 0),       // no port
           "*1\r\n*3\r\n:0\r\n:1\r\n:7\r\n"}) {  // node is not an array
    auto map = ParseClusterSlots(Parse(bad), "seed");
    ASSERT_FALSE(map.has_value()) << bad;
    EXPECT_EQ(map.error().code(), Error::Code::kCorrupt);
  }
}

TEST(RedisClusterMapTest, RedirectionsAreRead) {
  auto moved = ParseRedirect("MOVED 3999 127.0.0.1:6381", "seed");
  ASSERT_TRUE(moved.has_value());
  EXPECT_FALSE(moved->ask);
  EXPECT_EQ(moved->slot, 3999);
  EXPECT_EQ(NodeName(moved->to), "127.0.0.1:6381");

  auto ask = ParseRedirect("ASK 0 ::1:7000", "seed");
  ASSERT_TRUE(ask.has_value());
  EXPECT_TRUE(ask->ask);
  EXPECT_EQ(ask->to.host, "::1");
  EXPECT_EQ(ask->to.port, 7000);

  auto here = ParseRedirect("MOVED 16383 :7002", "10.0.0.1");
  ASSERT_TRUE(here.has_value());
  EXPECT_EQ(NodeName(here->to), "10.0.0.1:7002");

  for (const char* other :
       {"ERR unknown command", "MOVED", "MOVED 16384 h:1", "MOVED 1 h",
        "ASK x h:1", "MOVED 1 h:0", "MOVED 1 h:65536", "TRYAGAIN Multiple keys",
        "CLUSTERDOWN The cluster is down"}) {
    EXPECT_FALSE(ParseRedirect(other, "seed").has_value()) << other;
  }
}

}  // namespace
}  // namespace mw::store
