// The per-site secret that keys the store's hashes of Message-IDs and senders,
// so that a copy of the store does not tell who mailed whom: without the
// secret, a guessed address cannot be checked against it.
//
// Thread-safety: LoadOrCreateSecret touches the file system (safe against a
// second process creating the same file at once); Secret is immutable.
#ifndef MW_STORE_SECRET_H_
#define MW_STORE_SECRET_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "mw/result.h"

namespace mw::store {

inline constexpr std::size_t kSecretBytes = 32;

class Secret {
 public:
  explicit Secret(const std::array<std::uint8_t, kSecretBytes>& key)
      : key_(key) {}

  // HMAC-SHA-256 of `tag` and `value` under the secret, its first 8 bytes
  // read big-endian as a signed integer (the form the store keeps). The tag
  // keeps a Message-ID and a sender with the same text apart.
  std::int64_t Hash(std::string_view tag, std::string_view value) const;

 private:
  std::array<std::uint8_t, kSecretBytes> key_;
};

// Reads the secret at `path`, or creates it (kSecretBytes random bytes, mode
// 0600) when the file does not exist. Fails with kIo when it can be neither
// read nor created, and kCorrupt when the file does not hold exactly
// kSecretBytes bytes.
Result<Secret> LoadOrCreateSecret(const std::string& path);

// 16 lower-case hex digits of a Hash value.
std::string HashHex(std::int64_t hash);

}  // namespace mw::store

#endif  // MW_STORE_SECRET_H_
