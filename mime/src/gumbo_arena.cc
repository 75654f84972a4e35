// Gumbo memory (see gumbo_arena.h).
#include "gumbo_arena.h"

#include <gumbo.h>
#include <time.h>

#include <csetjmp>
#include <cstddef>
#include <cstdlib>
#include <string_view>

namespace mw::mime::internal {
namespace {

// CPU time of the calling thread: unlike wall time, not stretched by load.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

Arena::Arena(std::size_t budget, double cpu_seconds)
    : budget_(budget), cpu_seconds_(cpu_seconds) {
  head_.prev = head_.next = &head_;
}

void Arena::FreeAll() {
  Header* h = head_.next;
  while (h != &head_) {
    Header* next = h->next;
    std::free(h);
    h = next;
  }
  head_.prev = head_.next = &head_;
  used_ = 0;
}

GumboOutput* Arena::Parse(std::string_view html) {
  deadline_ = ThreadCpuSeconds() + cpu_seconds_;
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &Arena::Allocate;
  options.deallocator = &Arena::Deallocate;
  options.userdata = this;
  options.max_errors = 0;  // the error list is never read; do not build it
  return ParseOrEscape(&options, html);
}

// setjmp/longjmp across gumbo: only C frames and Allocate lie between them,
// and nothing with a destructor lives in this frame, so the jump skips no
// cleanup ([csetjmp.syn]).
GumboOutput* Arena::ParseOrEscape(const GumboOptions* options,
                                  std::string_view html) {
  escape_ = &env_;
  if (setjmp(env_) != 0) {
    escape_ = nullptr;
    FreeAll();
    return nullptr;
  }
  GumboOutput* output =
      gumbo_parse_with_options(options, html.data(), html.size());
  escape_ = nullptr;
  return output;
}

void* Arena::Allocate(void* userdata, std::size_t size) {
  auto* arena = static_cast<Arena*>(userdata);
  if (arena->used_ + size > arena->budget_) std::longjmp(*arena->escape_, 1);
  if (++arena->allocations_ % kClockEvery == 0 &&
      ThreadCpuSeconds() > arena->deadline_) {
    arena->timed_out_ = true;
    std::longjmp(*arena->escape_, 1);
  }
  auto* h = static_cast<Header*>(std::malloc(sizeof(Header) + size));
  if (h == nullptr) std::longjmp(*arena->escape_, 1);
  h->size = size;
  h->prev = &arena->head_;
  h->next = arena->head_.next;
  h->next->prev = h;
  arena->head_.next = h;
  arena->used_ += size;
  return h + 1;
}

void Arena::Deallocate(void* userdata, void* ptr) {
  if (ptr == nullptr) return;
  auto* arena = static_cast<Arena*>(userdata);
  Header* h = static_cast<Header*>(ptr) - 1;
  h->prev->next = h->next;
  h->next->prev = h->prev;
  arena->used_ -= h->size;
  std::free(h);
}

}  // namespace mw::mime::internal
