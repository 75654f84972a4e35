// Packed messages and the cluster-id permutation, read on the client. The
// scripts that write them are the oracle in redis_store_test (every Find
// there reads what Record packed, and compares with the SQLite store); here
// the layout on hand-packed strings and the permutation's algebra.
#include "redis_message.h"

#include <gtest/gtest.h>

#include <string>

namespace mw::store {
namespace {

std::string Be(std::uint64_t v, int n) {
  std::string out(static_cast<std::size_t>(n), '\0');
  for (int i = n - 1; i >= 0; --i, v >>= 8) {
    out[static_cast<std::size_t>(i)] = static_cast<char>(v & 0xff);
  }
  return out;
}

// As the scripts' putmsg packs it.
std::string Pack(std::uint64_t arrival, std::uint32_t cid, std::string tail) {
  const std::string id = "-12345", queue = "4XyZ", lang = "de", keys,
                    fp = "FINGERPRINT";
  return Be(arrival, 6) + Be(cid, 4) + Be(5000, 4) + Be(id.size(), 1) +
         Be(queue.size(), 1) + Be(lang.size(), 1) + Be(keys.size(), 2) +
         Be(fp.size(), 4) + "HASHHASH" + id + queue + lang + keys + fp + tail;
}

TEST(RedisMessageTest, ReadsTheFieldsPutmsgPacks) {
  const std::string p = Pack(1764000000123, 0xdeadbeef, "");
  const auto m = ParseRedisMessage(p);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->arrival, 1764000000123);
  EXPECT_EQ(m->cluster, 0xdeadbeefu);
  EXPECT_EQ(m->size, 5000u);
  EXPECT_EQ(m->message_id_hash, "HASHHASH");
  EXPECT_EQ(m->identity, "-12345");
  EXPECT_EQ(m->queue_id, "4XyZ");
  EXPECT_EQ(m->language, "de");
  EXPECT_EQ(m->keys, "");
  EXPECT_EQ(m->fingerprint, "FINGERPRINT");
  // No tail: the defaults.
  EXPECT_FALSE(m->authenticated);
  EXPECT_EQ(m->recipients, 1u);
  EXPECT_EQ(m->network, "");
}

TEST(RedisMessageTest, ReadsTheOptionalTail) {
  // The views point into the packed string, which must outlive them.
  const std::string p = Pack(1, 2, Be(1, 1) + Be(7, 4) + "NETWORK8");
  const auto m = ParseRedisMessage(p);
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->authenticated);
  EXPECT_EQ(m->recipients, 7u);
  EXPECT_EQ(m->network, "NETWORK8");
  EXPECT_EQ(m->fingerprint, "FINGERPRINT");
}

TEST(RedisMessageTest, ATornStringIsNoMessage) {
  const std::string p = Pack(1, 2, "");
  EXPECT_TRUE(ParseRedisMessage(p));
  for (std::size_t cut = 0; cut < p.size(); ++cut) {
    EXPECT_FALSE(ParseRedisMessage(p.substr(0, cut))) << cut;
  }
}

TEST(RedisMessageTest, ThePermutationInvertsAndDependsOnTheKey) {
  const ClusterPermutation a("0123456789abcdef");
  const ClusterPermutation b("0123456789abcdeg");
  int same = 0;
  for (std::uint32_t x : {0u, 1u, 2u, 77u, 0x7fffffffu, 0xffffffffu}) {
    EXPECT_EQ(a.Inverse(a.Forward(x)), x);
    EXPECT_EQ(a.Forward(a.Inverse(x)), x);
    same += a.Forward(x) == b.Forward(x);
  }
  EXPECT_EQ(same, 0);
  // Consecutive ids get unrelated cluster ids.
  EXPECT_NE(a.Forward(1) + 1, a.Forward(2));
}

}  // namespace
}  // namespace mw::store
