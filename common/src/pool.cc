#include "mw/pool.h"

#include <algorithm>
#include <thread>

namespace mw {

std::size_t DefaultPoolIdle() {
  const unsigned cores = std::thread::hardware_concurrency();
  return std::max<std::size_t>(4, 2 * static_cast<std::size_t>(cores));
}

}  // namespace mw
