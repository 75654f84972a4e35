// Fixed byte order for integers that are hashed or stored (private).
//
// A fingerprint must be the same on every host: a stored one is compared with
// one computed elsewhere, and a hash taken over an integer's memory would
// differ between little- and big-endian machines. Every such integer goes
// through these helpers, which are plain loads and stores on little-endian
// hosts (x86, ARM as run), so the hashes there are byte for byte those of the
// raw memory.
//
// Thread-safety: pure functions.
#ifndef MW_FINGERPRINT_SRC_BYTE_ORDER_H_
#define MW_FINGERPRINT_SRC_BYTE_ORDER_H_

#include <bit>
#include <cstdint>
#include <cstring>

namespace mw::fingerprint::internal {

static_assert(std::endian::native == std::endian::little ||
                  std::endian::native == std::endian::big,
              "mixed-endian hosts are not supported");

inline std::uint64_t ToLittleEndian64(std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::big) {
    return __builtin_bswap64(v);
  }
  return v;
}

inline std::uint64_t ToBigEndian64(std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) {
    return __builtin_bswap64(v);
  }
  return v;
}

// The 8 bytes at p as a little-endian integer.
inline std::uint64_t LoadLe64(const void* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return ToLittleEndian64(v);
}

// The 8 bytes at p as a big-endian integer.
inline std::uint64_t LoadBe64(const void* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return ToBigEndian64(v);
}

// Writes v at p, least significant byte first.
inline void StoreLe64(std::uint64_t v, void* p) {
  v = ToLittleEndian64(v);
  std::memcpy(p, &v, sizeof v);
}

// Writes v at p, most significant byte first.
inline void StoreBe64(std::uint64_t v, void* p) {
  v = ToBigEndian64(v);
  std::memcpy(p, &v, sizeof v);
}

}  // namespace mw::fingerprint::internal

#endif  // MW_FINGERPRINT_SRC_BYTE_ORDER_H_
