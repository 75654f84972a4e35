// Gumbo memory (see gumbo_arena.h).
#include "gumbo_arena.h"

#include <gumbo.h>
#include <sanitizer/asan_interface.h>

#include <csetjmp>
#include <cstddef>
#include <cstdlib>
#include <string_view>

#include "mw/budget.h"

namespace mw::mime::internal {
namespace {

// CPU time of the calling thread: unlike wall time, not stretched by load.
double ThreadCpuSeconds() {
  return std::chrono::duration<double>(Budget::ThreadCpuNow()).count();
}

// Class c holds blocks of 16 * (c + 1) bytes; 0 < `size` <= kMaxSmall (a
// request of 0 bytes takes class 0).
int SizeClass(std::size_t size) {
  return size == 0 ? 0 : static_cast<int>((size - 1) / 16);
}

std::size_t ClassBytes(int c) { return 16 * (static_cast<std::size_t>(c) + 1); }

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
  while (chunks_ != nullptr) {
    Chunk* next = chunks_->next;
    ASAN_UNPOISON_MEMORY_REGION(chunks_, kChunkBytes);
    std::free(chunks_);
    chunks_ = next;
  }
  for (Header*& f : free_) f = nullptr;
  bump_ = bump_end_ = nullptr;
  used_ = 0;
  footprint_ = 0;
}

GumboOutput* Arena::Parse(std::string_view html) {
  return Parse(html, Budget::ThreadCpuNow());
}

GumboOutput* Arena::Parse(std::string_view html,
                          std::chrono::nanoseconds cpu_now) {
  deadline_ = std::chrono::duration<double>(cpu_now).count() + cpu_seconds_;
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

void Arena::Escape() { std::longjmp(*escape_, 1); }

void* Arena::Reserve(std::size_t bytes) {
  if (footprint_ + bytes > 3 * budget_ + kChunkBytes) Escape();
  void* p = std::malloc(bytes);
  if (p == nullptr) Escape();
  footprint_ += bytes;
  return p;
}

Arena::Header* Arena::TakeSmall(std::size_t size) {
  const int c = SizeClass(size);
  if (Header* h = free_[c]) {
    ASAN_UNPOISON_MEMORY_REGION(h, sizeof(Header) + ClassBytes(c));
    free_[c] = h->next;
    return h;
  }
  const std::size_t need = sizeof(Header) + ClassBytes(c);
  if (static_cast<std::size_t>(bump_end_ - bump_) < need) {
    auto* chunk = static_cast<Chunk*>(Reserve(kChunkBytes));
    chunk->next = chunks_;
    chunks_ = chunk;
    // Header is max_align_t-aligned and sizeof(Header) and every class are
    // multiples of 16, so every block stays aligned.
    bump_ = reinterpret_cast<char*>(chunk) + sizeof(Header);
    bump_end_ = reinterpret_cast<char*>(chunk) + kChunkBytes;
    ASAN_POISON_MEMORY_REGION(bump_, bump_end_ - bump_);
  }
  auto* h = reinterpret_cast<Header*>(bump_);
  bump_ += need;
  ASAN_UNPOISON_MEMORY_REGION(h, need);
  return h;
}

Arena::Header* Arena::TakeLarge(std::size_t size) {
  auto* h = static_cast<Header*>(Reserve(sizeof(Header) + size));
  h->prev = &head_;
  h->next = head_.next;
  h->next->prev = h;
  head_.next = h;
  return h;
}

void* Arena::Allocate(void* userdata, std::size_t size) {
  auto* arena = static_cast<Arena*>(userdata);
  if (arena->used_ + size > arena->budget_) arena->Escape();
  if (++arena->allocations_ % kClockEvery == 0 &&
      ThreadCpuSeconds() > arena->deadline_) {
    arena->timed_out_ = true;
    arena->Escape();
  }
  Header* h =
      size <= kMaxSmall ? arena->TakeSmall(size) : arena->TakeLarge(size);
  h->size = size;
  arena->used_ += size;
  return h + 1;
}

void Arena::Deallocate(void* userdata, void* ptr) {
  if (ptr == nullptr) return;
  auto* arena = static_cast<Arena*>(userdata);
  Header* h = static_cast<Header*>(ptr) - 1;
  arena->used_ -= h->size;
  if (h->size <= kMaxSmall) {
    const int c = SizeClass(h->size);
    h->next = arena->free_[c];
    arena->free_[c] = h;
    // Only the link stays readable: gumbo touching a freed block is then an
    // ASan error here as it was with malloc.
    ASAN_POISON_MEMORY_REGION(h + 1, ClassBytes(c));
    return;
  }
  h->prev->next = h->next;
  h->next->prev = h->prev;
  arena->footprint_ -= sizeof(Header) + h->size;
  std::free(h);
}

}  // namespace mw::mime::internal
