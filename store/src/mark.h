// A Mark as both backends store it: the enum's integer.
#ifndef MW_STORE_SRC_MARK_H_
#define MW_STORE_SRC_MARK_H_

#include <cstdint>

#include "store/store.h"

namespace mw::store {

// A stored mark; a value no Mark names (a damaged row or hash field) reads
// as none, so that the counts decide.
inline Mark MarkOf(std::int64_t v) {
  switch (v) {
    case static_cast<std::int64_t>(Mark::kHam):
      return Mark::kHam;
    case static_cast<std::int64_t>(Mark::kSpam):
      return Mark::kSpam;
    default:
      return Mark::kNone;
  }
}

}  // namespace mw::store

#endif  // MW_STORE_SRC_MARK_H_
