#include "redis_message.h"

#include <cstddef>

namespace mw::store {
namespace {

std::uint64_t BigEndian(std::string_view s, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  }
  return v;
}

// struct.pack('>I6I4I4I1I1I1I2I4'): arrival, cluster, size, then the lengths
// of identity, queue id, language, keys and fingerprint.
constexpr std::size_t kHeader = 6 + 4 + 4 + 1 + 1 + 1 + 2 + 4;
constexpr std::size_t kHashBytes = 8;
// After the fingerprint, when present: flags (1), recipients (4), network.
constexpr std::size_t kTailFixed = 5;

// Multiplication by an odd constant modulo 2^32 and its inverse.
constexpr std::uint32_t kMul = 2654435761u;
constexpr std::uint32_t kMulInverse = 244002641u;
static_assert(kMul * kMulInverse == 1u);

}  // namespace

std::optional<RedisMessage> ParseRedisMessage(std::string_view p) {
  if (p.size() < kHeader + kHashBytes) return std::nullopt;
  RedisMessage m;
  m.arrival = static_cast<std::int64_t>(BigEndian(p, 0, 6));
  m.cluster = static_cast<std::uint32_t>(BigEndian(p, 6, 4));
  m.size = static_cast<std::uint32_t>(BigEndian(p, 10, 4));
  const std::size_t lengths[5] = {
      BigEndian(p, 14, 1), BigEndian(p, 15, 1), BigEndian(p, 16, 1),
      BigEndian(p, 17, 2), static_cast<std::size_t>(BigEndian(p, 19, 4))};
  std::size_t at = kHeader;
  m.message_id_hash = p.substr(at, kHashBytes);
  at += kHashBytes;
  std::string_view* fields[5] = {&m.identity, &m.queue_id, &m.language, &m.keys,
                                 &m.fingerprint};
  for (int i = 0; i < 5; ++i) {
    if (p.size() - at < lengths[i]) return std::nullopt;
    *fields[i] = p.substr(at, lengths[i]);
    at += lengths[i];
  }
  if (p.size() - at >= kTailFixed) {
    m.authenticated = (static_cast<unsigned char>(p[at]) & 1) != 0;
    m.recipients = static_cast<std::uint32_t>(BigEndian(p, at + 1, 4));
    m.network = p.substr(at + kTailFixed);
  }
  return m;
}

ClusterPermutation::ClusterPermutation(std::string_view key16) {
  for (std::size_t r = 0; r < 4 && 4 * r + 4 <= key16.size(); ++r) {
    k_[r] = static_cast<std::uint32_t>(BigEndian(key16, 4 * r, 4));
  }
}

std::uint32_t ClusterPermutation::Forward(std::uint32_t x) const {
  for (const std::uint32_t k : k_) {
    x = (x ^ k) * kMul;
    x ^= x >> 16;
  }
  return x;
}

std::uint32_t ClusterPermutation::Inverse(std::uint32_t x) const {
  for (int r = 3; r >= 0; --r) {
    x ^= x >> 16;
    x = (x * kMulInverse) ^ k_[r];
  }
  return x;
}

}  // namespace mw::store
