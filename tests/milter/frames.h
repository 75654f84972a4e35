// Milter packets for the milter tests, built with the codec's own framing
// (AppendPacket): what an MTA writes, byte for byte.
#ifndef MW_TESTS_MILTER_FRAMES_H_
#define MW_TESTS_MILTER_FRAMES_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "milter/codec.h"

namespace mw::milter::testing {

// One frame: length, command byte, data.
inline std::string Frame(char command, std::string_view data = {}) {
  std::string out;
  EXPECT_TRUE(AppendPacket(out, command, data));
  return out;
}

// A 32-bit big-endian integer, as the protocol writes them.
inline std::string U32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
          static_cast<char>(v >> 8), static_cast<char>(v)};
}

// A NUL-terminated string field.
inline std::string Str(std::string_view s) { return std::string(s) + '\0'; }

// The MTA's OPTNEG, version 6.
inline std::string OptNegPacket(std::uint32_t actions, std::uint32_t protocol) {
  return Frame(smfic::kOptNeg, U32(6) + U32(actions) + U32(protocol));
}

}  // namespace mw::milter::testing

#endif  // MW_TESTS_MILTER_FRAMES_H_
