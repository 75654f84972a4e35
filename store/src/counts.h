// What both backends share about the counts they keep: how a stored count
// reads, and where Record's list of earlier copies stops.
#ifndef MW_STORE_SRC_COUNTS_H_
#define MW_STORE_SRC_COUNTS_H_

#include <algorithm>
#include <cstdint>

namespace mw::store {

// Record's `earlier` list stops here: a wave event names its first members,
// not all of a wave of a million.
inline constexpr std::int64_t kMaxEarlier = 1000;

// A stored count; a negative value (a damaged row or hash field) reads as 0.
inline std::uint64_t CountOf(std::int64_t v) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(0, v));
}

}  // namespace mw::store

#endif  // MW_STORE_SRC_COUNTS_H_
