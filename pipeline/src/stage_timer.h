// StageTimer: adds the calling thread's CPU time between its construction and
// its destruction to a Timings field. Private to mw::pipeline.
#ifndef MW_PIPELINE_STAGE_TIMER_H_
#define MW_PIPELINE_STAGE_TIMER_H_

#include <chrono>

#include "mw/budget.h"

namespace mw::pipeline {

class StageTimer {
 public:
  explicit StageTimer(std::chrono::nanoseconds* out)
      : out_(out), start_(Budget::ThreadCpuNow()) {}
  ~StageTimer() { *out_ += Budget::ThreadCpuNow() - start_; }
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

 private:
  std::chrono::nanoseconds* out_;
  std::chrono::nanoseconds start_;
};

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_STAGE_TIMER_H_
