// Key slots. The real cluster's CLUSTER KEYSLOT is the oracle in
// redis_cluster_test (random keys); here the fixed points of the algorithm.
#include "redis_slot.h"

#include <gtest/gtest.h>

#include <string>

namespace mw::store {
namespace {

TEST(RedisSlotTest, Crc16IsXmodem) {
  // The check value of CRC-16/XMODEM (and of Redis's crc16.c self-test).
  EXPECT_EQ(Crc16("123456789"), 0x31C3);
  EXPECT_EQ(Crc16(""), 0);
}

TEST(RedisSlotTest, SlotsAreInRange) {
  for (int i = 0; i < 5000; ++i) {
    const int s = KeySlot("key:" + std::to_string(i));
    EXPECT_GE(s, 0);
    EXPECT_LT(s, kClusterSlots);
  }
}

TEST(RedisSlotTest, AHashTagPicksTheHashedBytes) {
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("user1000"));
  EXPECT_EQ(KeySlot("{user1000}.followers"), KeySlot("{user1000}.following"));
  EXPECT_EQ(KeySlot("x{tag}y"), KeySlot("tag"));
  // Only the first '{' and the first '}' after it count.
  EXPECT_EQ(KeySlot("foo{{bar}}zap"), KeySlot("{bar"));
  EXPECT_EQ(KeySlot("foo{bar}{zap}"), KeySlot("bar"));
  // An empty tag, or none closed, hashes the whole key.
  EXPECT_EQ(KeySlot("foo{}{bar}"), Crc16("foo{}{bar}") % kClusterSlots);
  EXPECT_EQ(KeySlot("foo{bar"), Crc16("foo{bar") % kClusterSlots);
  EXPECT_EQ(KeySlot("}foo{"), Crc16("}foo{") % kClusterSlots);
}

TEST(RedisSlotTest, KeysSpreadOverTheSlots) {
  // 160,000 keys over 16,384 slots: about 9.8 each; none should be far off a
  // uniform spread (a hash that ignored bytes would pile them up).
  std::vector<int> per_slot(kClusterSlots, 0);
  for (int i = 0; i < 160000; ++i)
    ++per_slot[KeySlot("m:" + std::to_string(i))];
  int empty = 0, most = 0;
  for (int n : per_slot) {
    empty += n == 0;
    most = std::max(most, n);
  }
  EXPECT_LT(empty, 50);  // e^-9.8 * 16,384 = 0.9 expected
  EXPECT_LT(most, 40);
}

}  // namespace
}  // namespace mw::store
