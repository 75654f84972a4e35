// StageClock: times a message's consecutive stages on the calling thread's
// CPU clock with one reading per boundary. Private to mw::pipeline.
//
// Reading the thread's CPU clock is a system call (no vDSO path: ~1.3 us on a
// virtual machine, against ~25 ns for the monotonic clock); a timer per stage
// read it twice per stage, and the budget checks between stages read it
// again. A boundary's one reading ends a stage, starts the next and answers
// the budget (Budget::ExceededAt(last())).
#ifndef MW_PIPELINE_STAGE_CLOCK_H_
#define MW_PIPELINE_STAGE_CLOCK_H_

#include <chrono>

#include "mw/budget.h"

namespace mw::pipeline {

class StageClock {
 public:
  StageClock() : last_(Budget::ThreadCpuNow()) {}
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;

  // Ends the stage that began at the previous boundary: adds its CPU time
  // to `*stage` (nullptr: the time is no stage's) and starts the next one.
  void Lap(std::chrono::nanoseconds* stage) {
    const std::chrono::nanoseconds now = Budget::ThreadCpuNow();
    if (stage != nullptr) *stage += now - last_;
    last_ = now;
  }

  // The reading of the last boundary (or of construction).
  std::chrono::nanoseconds last() const { return last_; }

 private:
  std::chrono::nanoseconds last_;
};

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_STAGE_CLOCK_H_
