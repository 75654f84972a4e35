// Redis Cluster key slots: which of the 16,384 slots a key belongs to, as
// every Cluster node computes it (cluster.c keyHashSlot). Pure.
#ifndef MW_STORE_REDIS_SLOT_H_
#define MW_STORE_REDIS_SLOT_H_

#include <cstdint>
#include <string_view>

namespace mw::store {

inline constexpr int kClusterSlots = 16384;

// CRC16/XMODEM (polynomial 0x1021, initial value 0), Redis's key hash.
std::uint16_t Crc16(std::string_view bytes);

// The slot of `key`: CRC16 of its hash tag (the bytes between its first '{'
// and the first '}' after it, when there are any) or else of the whole key,
// modulo 16,384. Keys with one hash tag share a slot, so that one script or
// MULTI may touch them together.
int KeySlot(std::string_view key);

}  // namespace mw::store

#endif  // MW_STORE_REDIS_SLOT_H_
