// A message as the Redis store keeps it (redis_scripts.h, P.."m:"<id>),
// read on the client: Find's script returns the packed strings as they are,
// so the server spends no Lua on unpacking them. Pure: no I/O.
#ifndef MW_STORE_REDIS_MESSAGE_H_
#define MW_STORE_REDIS_MESSAGE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace mw::store {

// Views into the packed string; valid while it is.
struct RedisMessage {
  std::int64_t arrival = 0;
  std::uint32_t cluster = 0;
  std::uint32_t size = 0;
  std::string_view message_id_hash;  // 8 raw bytes
  std::string_view identity;         // decimal
  std::string_view queue_id;
  std::string_view language;
  std::string_view keys;         // 4 bytes a key (messages of old stores)
  std::string_view fingerprint;  // fingerprint::Encode
  bool authenticated = false;
  std::uint32_t recipients = 1;
  std::string_view network;  // 8 raw bytes, or empty: unknown
};

// The fields of a packed message; nullopt when the string is shorter than
// its lengths say (a torn or foreign value: the caller skips it, as the
// scripts would fail on it).
std::optional<RedisMessage> ParseRedisMessage(std::string_view packed);

// The keyed permutation of 32-bit values that names a single message's
// cluster (redis_scripts.cc, perm and unperm): `key` is the 16 bytes every
// script gets first (four big-endian 32-bit words).
class ClusterPermutation {
 public:
  explicit ClusterPermutation(std::string_view key16);
  std::uint32_t Forward(std::uint32_t x) const;
  std::uint32_t Inverse(std::uint32_t x) const;

 private:
  std::uint32_t k_[4] = {};
};

}  // namespace mw::store

#endif  // MW_STORE_REDIS_MESSAGE_H_
