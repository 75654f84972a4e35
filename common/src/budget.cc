#include "mw/budget.h"

#include <time.h>

#include <algorithm>

namespace mw {

Budget Budget::Start(std::chrono::nanoseconds cpu,
                     std::chrono::nanoseconds wall) {
  return StartAt(ThreadCpuNow(), cpu, wall);
}

Budget Budget::StartAt(std::chrono::nanoseconds cpu_now,
                       std::chrono::nanoseconds cpu,
                       std::chrono::nanoseconds wall) {
  Budget b;
  b.limited_ = true;
  b.cpu_deadline_ = cpu_now + cpu;
  b.wall_deadline_ =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(wall);
  return b;
}

std::chrono::nanoseconds Budget::ThreadCpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

bool Budget::Exceeded() const { return limited_ && ExceededAt(ThreadCpuNow()); }

bool Budget::ExceededAt(std::chrono::nanoseconds cpu_now) const {
  return limited_ && CpuLeftAt(cpu_now) <= std::chrono::nanoseconds::zero();
}

std::chrono::nanoseconds Budget::CpuLeft() const {
  if (!limited_) return std::chrono::hours(24);
  return CpuLeftAt(ThreadCpuNow());
}

std::chrono::nanoseconds Budget::CpuLeftAt(
    std::chrono::nanoseconds cpu_now) const {
  if (!limited_) return std::chrono::hours(24);
  const auto cpu = cpu_deadline_ - cpu_now;
  const auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
      wall_deadline_ - Clock::now());
  return std::max(std::chrono::nanoseconds::zero(), std::min(cpu, wall));
}

}  // namespace mw
