// An allocator for gumbo that tracks every block and bounds memory and CPU
// time, private to mw::mime.
//
// Gumbo has no limits of its own, and gumbo_destroy_output recurses once per
// tree level. An Arena hands gumbo its memory, so the tree is freed without
// recursion (gumbo_destroy_output is never called) and a parse past its
// memory or CPU budget is abandoned: the allocator longjmps out of gumbo
// (only C frames lie between, nothing to unwind) and frees everything.
//
// Not thread-safe: one Arena per parse, used by the thread that created it
// (the CPU clock is that thread's).
#ifndef MW_MIME_GUMBO_ARENA_H_
#define MW_MIME_GUMBO_ARENA_H_

#include <gumbo.h>

#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mw::mime::internal {

class Arena {
 public:
  // Gumbo may hold `budget` bytes at once and run for `cpu_seconds` of this
  // thread's CPU time per Parse (checked every kClockEvery allocations: every
  // tag the tree builder handles allocates, and its costly loops run per
  // tag).
  Arena(std::size_t budget, double cpu_seconds);
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;
  ~Arena() { FreeAll(); }

  // Parses `html` with gumbo's default options (no error list). Returns the
  // tree, owned by the arena and valid until FreeAll or destruction; nullptr
  // when the memory or time budget ran out or malloc failed, after freeing
  // everything the arena held (timed_out() then says whether time ran out).
  GumboOutput* Parse(std::string_view html);

  // Frees every block, trees of earlier parses included.
  void FreeAll();

  // A Parse of this arena ran out of CPU time (never reset).
  bool timed_out() const { return timed_out_; }

  // Bytes gumbo holds now; at most the budget.
  std::size_t used() const { return used_; }

 private:
  static constexpr std::uint64_t kClockEvery = 256;

  struct alignas(alignof(std::max_align_t)) Header {
    Header* prev;
    Header* next;
    std::size_t size;
  };

  GumboOutput* ParseOrEscape(const GumboOptions* options,
                             std::string_view html);
  static void* Allocate(void* userdata, std::size_t size);
  static void Deallocate(void* userdata, void* ptr);

  Header head_{};  // sentinel of a circular list of every live block
  std::size_t used_ = 0;
  std::size_t budget_;
  std::jmp_buf env_;
  std::jmp_buf* escape_ = nullptr;  // set only while gumbo runs
  double cpu_seconds_;
  double deadline_ = 0;
  bool timed_out_ = false;
  std::uint64_t allocations_ = 0;
};

}  // namespace mw::mime::internal

#endif  // MW_MIME_GUMBO_ARENA_H_
