// [store]: the SQLite store of recent mail (defaults in StoreSettings,
// config.h; docs/store.md explains the layout and its costs).
#include "params.h"

namespace mw::config {

Table StoreTable() {
  using S = StoreSettings;
  constexpr double kDayMs = 24.0 * 3600 * 1000;
  static const Param kParams[] = {
      {.key = "path",
       .kind = Kind::kString,
       .meaning = "the store's SQLite file; its directory also holds the "
                  "site secret of the keyed hashes (\"secret\")",
       .field = Member<&Settings::store, &S::path>},
      {.key = "retention",
       .kind = Kind::kDuration,
       .min = 60'000,
       .max = 366 * kDayMs,
       .meaning = "messages older than this are pruned in the background",
       .field = Member<&Settings::store, &S::retention>},
      {.key = "busy_timeout",
       .kind = Kind::kDuration,
       .min = 1,
       .max = 60'000,
       .meaning = "how long a store statement waits for another "
                  "connection's lock before the message passes untagged",
       .field = Member<&Settings::store, &S::busy_timeout>},
      {.key = "max_candidates",
       .kind = Kind::kCount,
       .min = 1,
       .max = 1000,
       .meaning = "stored messages compared with each new message, best "
                  "first",
       .field = Member<&Settings::store, &S::max_candidates>},
      {.key = "max_per_key",
       .kind = Kind::kCount,
       .min = 1,
       .max = 10000,
       .meaning = "stored messages read per index key, newest first (a key "
                  "a whole wave shares costs this, not the wave's size)",
       .field = Member<&Settings::store, &S::max_per_key>},
      {.key = "prune_batch",
       .kind = Kind::kCount,
       .min = 1,
       .max = 100'000,
       .meaning = "messages removed per pruning transaction (keeps the write "
                  "lock short)",
       .field = Member<&Settings::store, &S::prune_batch>},
  };
  return {.name = "store",
          .meaning = "the store of recent mail: hashes only, never text",
          .params = kParams};
}

}  // namespace mw::config
