#include "redis_slot.h"

#include <array>

namespace mw::store {
namespace {

constexpr std::array<std::uint16_t, 256> MakeTable() {
  std::array<std::uint16_t, 256> t{};
  for (int i = 0; i < 256; ++i) {
    auto crc = static_cast<std::uint16_t>(i << 8);
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 0x8000) != 0
                ? static_cast<std::uint16_t>((crc << 1) ^ 0x1021)
                : static_cast<std::uint16_t>(crc << 1);
    }
    t[static_cast<std::size_t>(i)] = crc;
  }
  return t;
}

constexpr std::array<std::uint16_t, 256> kTable = MakeTable();

}  // namespace

std::uint16_t Crc16(std::string_view bytes) {
  std::uint16_t crc = 0;
  for (const char ch : bytes) {
    const auto b = static_cast<std::uint8_t>(ch);
    crc = static_cast<std::uint16_t>((crc << 8) ^ kTable[(crc >> 8) ^ b]);
  }
  return crc;
}

int KeySlot(std::string_view key) {
  const std::size_t open = key.find('{');
  if (open != std::string_view::npos) {
    const std::size_t close = key.find('}', open + 1);
    // "{}" or a '{' with no '}' after it: the whole key is hashed.
    if (close != std::string_view::npos && close > open + 1)
      key = key.substr(open + 1, close - open - 1);
  }
  return Crc16(key) & (kClusterSlots - 1);
}

}  // namespace mw::store
