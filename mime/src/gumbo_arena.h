// An allocator for gumbo that owns every block and bounds memory and CPU
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

#include <chrono>
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
  // As Parse, from `cpu_now`, this thread's CPU clock (Budget::ThreadCpuNow)
  // as the caller just read it: the reading is a system call.
  GumboOutput* Parse(std::string_view html, std::chrono::nanoseconds cpu_now);

  // Frees every block, trees of earlier parses included.
  void FreeAll();

  // A Parse of this arena ran out of CPU time (never reset).
  bool timed_out() const { return timed_out_; }

  // Bytes gumbo holds now; at most the budget.
  std::size_t used() const { return used_; }
  // Bytes taken from malloc now (chunks and large blocks): at most 3 x the
  // budget plus one chunk.
  std::size_t footprint() const { return footprint_; }

 private:
  static constexpr std::uint64_t kClockEvery = 256;
  // Gumbo makes many small blocks (nodes, vectors, string buffers that grow
  // by doubling); one malloc and free each was a tenth of an HTML part's
  // parse. Blocks up to kMaxSmall bytes are carved from kChunkBytes chunks
  // and reused through a free list per size class (16-byte steps, so little
  // is lost to rounding); larger ones are malloc'ed one by one and kept on a
  // list. The budget still counts the bytes gumbo asked for, so parses fail
  // exactly where they did; the bytes taken from malloc are bounded too (3 x
  // budget + one chunk: each block carries a 32-byte header, as it did with
  // malloc, and a pattern of frees that left every class's list full could
  // otherwise stretch it).
  static constexpr std::size_t kChunkBytes = 64 * 1024;
  static constexpr int kClasses = 64;  // 16, 32, 48, ... 1024 bytes
  static constexpr std::size_t kMaxSmall = 16 * kClasses;
  struct alignas(alignof(std::max_align_t)) Header {
    Header* prev;      // large blocks: the live list; small ones: unused
    Header* next;      // large blocks: the live list; free small ones: the list
    std::size_t size;  // what gumbo asked for
  };
  struct Chunk {
    Chunk* next;
  };
  GumboOutput* ParseOrEscape(const GumboOptions* options,
                             std::string_view html);
  static void* Allocate(void* userdata, std::size_t size);
  static void Deallocate(void* userdata, void* ptr);
  Header* TakeSmall(std::size_t size);
  Header* TakeLarge(std::size_t size);
  // `bytes` from malloc, counted in footprint_; escapes past the bound or
  // when malloc fails.
  void* Reserve(std::size_t bytes);
  void Escape();
  Header head_{};  // sentinel of a circular list of every live large block
  Header* free_[kClasses] = {};
  Chunk* chunks_ = nullptr;
  char* bump_ = nullptr;  // the free tail of the newest chunk
  char* bump_end_ = nullptr;
  std::size_t used_ = 0;
  std::size_t footprint_ = 0;  // bytes taken from malloc
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
