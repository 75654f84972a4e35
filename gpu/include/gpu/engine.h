// The comparison engine: many fingerprints against many, by brute force, on
// the CPU or a CUDA device, with the same answers from both.
//
// The store's indexes find messages that share an exact key with a query. The
// engine finds what shares none: it scores a query against every message of a
// window (one-vs-window) or every pair of a set (all-pairs, tiled), on three
// signatures of fixed width:
//   ctph    - the CTPH signatures at B and 2B (Myers edit distance, after the
//             block-size, length and 2-gram count filters);
//   simhash - popcount of the XOR of two SimHashes;
//   sketch  - the word sketch (fingerprint/sketch.h): equal bins over bins.
// Only pairs under the thresholds come back (compacted where they are
// computed), never a matrix.
//
// Thread-safety: an Engine is not thread-safe; the worker (worker.h) owns one
// and serialises the milter's queries through it. AllPairs and Query may use
// every core (cpu) or the device (cuda) internally.
#ifndef MW_GPU_ENGINE_H_
#define MW_GPU_ENGINE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/fingerprint.h"
#include "mw/result.h"

namespace mw::gpu {

// One message's signatures in fixed-width slots (the window's layout; no
// std::string). Unused signature bytes are 0.
struct Signature {
  std::uint32_t ctph_block = 0;  // B; 0: no CTPH signature
  std::uint8_t ctph_len = 0;     // symbols used in ctph
  std::uint8_t ctph2_len = 0;    // symbols used in ctph2
  std::uint8_t ctph[fingerprint::kCtphMaxLength] = {};
  std::uint8_t ctph2[fingerprint::kCtphMaxLength] = {};
  std::uint64_t simhash = 0;
  std::uint32_t words = 0;  // words in the text (sketch.words)
  std::uint16_t sketch[fingerprint::kSketchSlots] = {};
};

// The fixed-width form of a fingerprint.
Signature ToSignature(const fingerprint::Fingerprint& fp);

enum class Kind : std::uint8_t { kCtph = 1, kSimHash = 2, kSketch = 4 };

struct Thresholds {
  // ctph: a pair whose signatures are at a common block size (CtphEditRate's
  // rule) and whose edit rate is at most this.
  double ctph_edit_rate = 0.15;
  // simhash: at most this many bits apart.
  std::uint32_t simhash_distance = 3;
  // sketch: matches / slots at least this, with word counts within
  // sketch_length_ratio of each other and at least sketch_min_words words in
  // each.
  double sketch_jaccard = 0.5;
  double sketch_length_ratio = 2.0;
  std::uint32_t sketch_min_words = 16;
};

// One pair under the thresholds: query (or left) index, window (or right)
// index, and the score (edit rate, Hamming distance, or Jaccard estimate).
struct Match {
  std::uint32_t query = 0;
  std::uint32_t item = 0;
  float score = 0;
  friend bool operator==(const Match&, const Match&) = default;
};

enum class Backend { kAuto, kCpu, kCuda };
// "auto", "cpu", "cuda"; nullopt-like failure as kInvalidArgument.
Result<Backend> ParseBackend(std::string_view name);

class Engine {
 public:
  virtual ~Engine() = default;
  // "cpu" or "cuda".
  virtual std::string_view Name() const = 0;

  // The window: signatures resident in the backend's memory, named by the
  // caller's 64-bit ids (the store's message ids). Add grows it, Remove
  // shrinks it (an unknown id is ignored).
  virtual Result<void> Add(std::uint64_t id, const Signature& sig) = 0;
  virtual Result<void> Remove(std::uint64_t id) = 0;
  virtual std::size_t WindowSize() const = 0;

  // Every (query, window message) pair under the threshold of `kind`;
  // Match::item is the window message's id (not its slot). Order: by query,
  // then by id.
  struct WindowMatch {
    std::uint32_t query = 0;
    std::uint64_t id = 0;
    float score = 0;
    friend bool operator==(const WindowMatch&, const WindowMatch&) = default;
  };
  virtual Result<std::vector<WindowMatch>> Query(
      std::span<const Signature> queries, Kind kind,
      const Thresholds& thresholds) = 0;

  // Every pair i < j of `set` under the threshold of `kind` (the window is
  // not involved), in order of (i, j).
  virtual Result<std::vector<Match>> AllPairs(std::span<const Signature> set,
                                              Kind kind,
                                              const Thresholds& thresholds) = 0;
};

// The engine for `backend`. kAuto: CUDA when it was built and a device is
// usable, else the CPU (the reason in `*fallback_reason` when given). kCuda
// fails with kUnavailable when there is no usable device. `threads` bounds
// the CPU backend's threads (0: every core).
Result<std::unique_ptr<Engine>> MakeEngine(
    Backend backend, unsigned threads = 0,
    std::string* fallback_reason = nullptr);

}  // namespace mw::gpu

#endif  // MW_GPU_ENGINE_H_
