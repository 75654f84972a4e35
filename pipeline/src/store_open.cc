#include "pipeline/store_open.h"

#include <chrono>
#include <utility>

#include "pipeline/options.h"
#include "store/redis.h"
#include "store/sqlite.h"

namespace mw::pipeline {

Result<std::unique_ptr<store::Store>> OpenStore(
    const config::Settings& settings, const StoreOpenOptions& options) {
  const std::string& backend = settings.store.backend;
  if (backend == "sqlite") {
    store::SqliteOptions so = SqliteOptions(settings);
    if (options.sqlite_path) so.path = *options.sqlite_path;
    so.read_only = options.read_only;
    if (!options.prune) so.retention = std::chrono::milliseconds(0);
    so.log = options.log;
    return store::OpenSqlite(so);
  }
  if (backend == "redis") {
    store::RedisOptions ro = RedisOptions(settings);
    ro.prune_on_record = options.prune;
    ro.log = options.log;
    return store::OpenRedis(ro);
  }
  return Fail(
      Error::InvalidArgument("[store] backend must be \"sqlite\" or "
                             "\"redis\", not \"" +
                             backend + "\""));
}

}  // namespace mw::pipeline
