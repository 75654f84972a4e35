// mw::Budget: the work a message's analysis may spend, in this thread's CPU
// time and in wall-clock time.
//
// The pipeline starts one per message and hands it to every stage; stages ask
// Exceeded() between units of work (a MIME part, an HTML parse attempt) and,
// past the budget, stop with what they have and say so. Thread CPU time is the
// measure because it is not stretched by a loaded host; the wall-clock
// deadline bounds what the MTA waits whatever the cause.
//
// Thread-safety: a value. Exceeded() and CpuLeft() measure the CPU time of the
// thread that calls them, so a budget is meant for the thread that started it
// (a milter callback runs the whole analysis on one thread).
#ifndef MW_BUDGET_H_
#define MW_BUDGET_H_

#include <chrono>

namespace mw {

class Budget {
 public:
  using Clock = std::chrono::steady_clock;

  // No limit: Exceeded() is always false.
  Budget() = default;

  // A budget of `cpu` CPU time of the calling thread from now, ending no later
  // than `wall` from now.
  static Budget Start(std::chrono::nanoseconds cpu,
                      std::chrono::nanoseconds wall);
  // As Start, from `cpu_now`, a ThreadCpuNow() reading the caller just took.
  static Budget StartAt(std::chrono::nanoseconds cpu_now,
                        std::chrono::nanoseconds cpu,
                        std::chrono::nanoseconds wall);

  bool limited() const { return limited_; }
  // Whether the CPU or the wall-clock allowance is spent.
  bool Exceeded() const;
  // CPU time left to the calling thread (its CPU clock against the start);
  // a large value when unlimited, zero when spent. Also bounded by the wall
  // clock: never more than the wall-clock time left.
  std::chrono::nanoseconds CpuLeft() const;
  // As Exceeded() and CpuLeft(), against `cpu_now`, a ThreadCpuNow() reading
  // of this thread the caller just took: reading the thread's CPU clock is a
  // system call (no vDSO path; ~1.3 us on a virtual machine), so code that
  // reads it at a stage boundary anyway passes the reading on.
  bool ExceededAt(std::chrono::nanoseconds cpu_now) const;
  std::chrono::nanoseconds CpuLeftAt(std::chrono::nanoseconds cpu_now) const;

  // CPU time of the calling thread since it started (CLOCK_THREAD_CPUTIME_ID).
  static std::chrono::nanoseconds ThreadCpuNow();

 private:
  bool limited_ = false;
  std::chrono::nanoseconds cpu_deadline_{0};  // on ThreadCpuNow()'s clock
  Clock::time_point wall_deadline_{};
};

}  // namespace mw

#endif  // MW_BUDGET_H_
