// The memory Collect keeps between texts (private to mw::langid; tests read
// it). Collect borrows a per-text scratch (the "memo": the tables of the
// text's distinct words and trigrams and their decoded evidence) from a
// bounded pool and trims it before giving it back, so that however large a
// text was, what stays in memory between texts is at most
// ScratchIdleBound() memos of at most ScratchKeptBound() bytes of heap each.
// See docs/langid.md, "Memory".
#ifndef MW_LANGID_SRC_SCRATCH_H_
#define MW_LANGID_SRC_SCRATCH_H_

#include <cstddef>

namespace mw::langid::internal {

// The most heap memory one idle memo holds, in bytes (about 8.8 MiB: a text
// of up to about 100 KB leaves it as it is, a longer one gives back what
// grew beyond it).
std::size_t ScratchKeptBound();

// The most idle memos the pool keeps (mw::DefaultPoolIdle(): twice the
// cores, at least 4); a memo beyond that is freed when its text is done.
std::size_t ScratchIdleBound();

struct ScratchUsage {
  std::size_t idle = 0;              // idle memos in the pool
  std::size_t max_held_bytes = 0;    // heap held by the largest
  std::size_t total_held_bytes = 0;  // by all of them
};

// What the idle memos hold now. REQUIRES: no Collect runs meanwhile.
ScratchUsage TEST_ScratchUsage();

}  // namespace mw::langid::internal

#endif  // MW_LANGID_SRC_SCRATCH_H_
