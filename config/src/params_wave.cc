// [wave]: when a cluster of near-duplicates is a spam wave (defaults in
// WaveSettings, config.h).
#include "params.h"

namespace mw::config {

Table WaveTable() {
  using S = WaveSettings;
  static const Param kParams[] = {
      {.key = "min_size",
       .kind = Kind::kCount,
       .min = 2,
       .max = 1'000'000,
       .meaning = "members a cluster needs inside the window to be a wave",
       .field = Member<&Settings::wave, &S::min_size>},
      {.key = "window",
       .kind = Kind::kDuration,
       .min = 1000,
       .max = 30.0 * 24 * 3600 * 1000,
       .meaning = "the time window in which min_size members make a wave",
       .field = Member<&Settings::wave, &S::window>},
      {.key = "events",
       .kind = Kind::kString,
       .meaning = "file that gets one JSON line when a cluster becomes a "
                  "wave, naming the earlier members; empty: none",
       .field = Member<&Settings::wave, &S::events>},
  };
  return {.name = "wave",
          .meaning =
              "spam waves: clusters of near-duplicates arriving "
              "together",
          .params = kParams};
}

}  // namespace mw::config
