// [gpu]: the comparison engine (defaults in GpuSettings, config.h;
// docs/gpu.md). backend is a string the table cannot restrict to its three
// values; the programs check it at start (exit 2).
#include "params.h"

namespace mw::config {

Table GpuTable() {
  using S = GpuSettings;
  static const Param kParams[] = {
      {.key = "backend",
       .kind = Kind::kString,
       .meaning = "where window comparisons run: \"auto\" (CUDA when a "
                  "device answers, else the CPU, said once in the log), "
                  "\"cpu\", \"cuda\" (no start without a device)",
       .field = Member<&Settings::gpu, &S::backend>},
      {.key = "window",
       .kind = Kind::kBool,
       .meaning = "score every message the index left unmatched against the "
                  "whole window of recent mail (spun text, letters-only hash "
                  "busters); false: the index alone",
       .field = Member<&Settings::gpu, &S::window>},
      {.key = "window_max",
       .kind = Kind::kCount,
       .min = 1,
       .max = 100000000,
       .meaning = "the window holds at most this many of the newest stored "
                  "messages",
       .field = Member<&Settings::gpu, &S::window_max>},
      {.key = "batch_size",
       .kind = Kind::kCount,
       .min = 1,
       .max = 65536,
       .meaning = "queries per engine call at most (micro-batching)",
       .field = Member<&Settings::gpu, &S::batch_size>},
      {.key = "batch_deadline",
       .kind = Kind::kDuration,
       .min = 0,
       .max = 1000,
       .meaning = "how long the first query of a batch waits for others; "
                  "0: none (a batch holds what arrived while the engine was "
                  "busy, so an idle engine answers at once)",
       .field = Member<&Settings::gpu, &S::batch_deadline>},
      {.key = "budget",
       .kind = Kind::kDuration,
       .min = 1,
       .max = 60000,
       .meaning = "how long a message waits for the window's answer at most; "
                  "past it the message goes on without it",
       .field = Member<&Settings::gpu, &S::budget>},
      {.key = "threads",
       .kind = Kind::kCount,
       .min = 0,
       .max = 4096,
       .meaning = "CPU backend threads; 0: every core",
       .field = Member<&Settings::gpu, &S::threads>},
  };
  return {.name = "gpu",
          .meaning =
              "the comparison engine: messages against the whole "
              "window, on a CUDA device or the CPU",
          .params = kParams};
}

}  // namespace mw::config
