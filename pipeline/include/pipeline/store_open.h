// Opens the store [store] backend names, so that the milter and every admin
// command open the same store the same way.
//
// Thread-safety: OpenStore may be called from any thread; it connects (Redis)
// or opens a file (SQLite) and returns a store that is itself thread-safe.
#ifndef MW_PIPELINE_STORE_OPEN_H_
#define MW_PIPELINE_STORE_OPEN_H_

#include <memory>
#include <optional>
#include <string>

#include "config/config.h"
#include "mw/result.h"
#include "store/store.h"

namespace mw::pipeline {

// What a program changes from the configured store.
struct StoreOpenOptions {
  // SQLite only: another file than [store] path (mailwave --store FILE).
  std::optional<std::string> sqlite_path;
  // SQLite only: lookups alone (mailwave store stats); Redis reads never
  // write, so it needs no such mode.
  bool read_only = false;
  // Whether the store removes messages past [store] retention on its own
  // (the SQLite maintenance thread, Redis's Record). mailwave check replays
  // old mail and turns it off.
  bool prune = true;
  store::LogFn log;
};

// The store of settings.store.backend: "sqlite" (OpenSqlite) or "redis"
// (OpenRedis). kInvalidArgument for another backend; otherwise what the
// backend's Open returns.
Result<std::unique_ptr<store::Store>> OpenStore(
    const config::Settings& settings, const StoreOpenOptions& options);

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_STORE_OPEN_H_
