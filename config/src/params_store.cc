// [store]: the store of recent mail, SQLite or Redis (defaults in
// StoreSettings, config.h; docs/store.md explains both layouts and their
// costs). backend is a string the table cannot restrict to its two values;
// pipeline::OpenStore refuses others.
#include "params.h"

namespace mw::config {

Table StoreTable() {
  using S = StoreSettings;
  constexpr double kDayMs = 24.0 * 3600 * 1000;
  static const Param kParams[] = {
      {.key = "backend",
       .kind = Kind::kString,
       .meaning = "\"sqlite\" (one file, one host) or \"redis\" (several "
                  "MX hosts share one memory; the redis_* keys)",
       .field = Member<&Settings::store, &S::backend>},
      {.key = "path",
       .kind = Kind::kString,
       .meaning = "the store's SQLite file; its directory also holds the "
                  "site secret of the keyed hashes (\"secret\"), for Redis "
                  "too (every host of a site needs the same secret)",
       .field = Member<&Settings::store, &S::path>},
      {.key = "redis",
       .kind = Kind::kString,
       .meaning = "the Redis server: \"unix:/path\", \"tcp://host:port\" or "
                  "\"tls://host:port\" (TLS: the redis_tls_* keys)",
       .field = Member<&Settings::store, &S::redis>},
      {.key = "redis_cluster",
       .kind = Kind::kList,
       .meaning = "a Redis Cluster's seed nodes, [\"tcp://host:port\", "
                  "...] (\"tls://host:port\": every node over TLS): when "
                  "set, the store runs on the Cluster (the slot map is read "
                  "from the first that answers; redis is not used); empty: "
                  "the single server of redis",
       .field = Member<&Settings::store, &S::redis_cluster>},
      {.key = "redis_db",
       .kind = Kind::kCount,
       .min = 0,
       .max = 1000,
       .meaning = "the Redis database number (0 on a Redis Cluster)",
       .field = Member<&Settings::store, &S::redis_db>},
      {.key = "redis_user",
       .kind = Kind::kString,
       .meaning = "the Redis ACL user; empty: the default user",
       .field = Member<&Settings::store, &S::redis_user>},
      {.key = "redis_password_file",
       .kind = Kind::kString,
       .meaning = "a file holding the Redis user's password (read once at "
                  "start, never logged); empty: no AUTH",
       .field = Member<&Settings::store, &S::redis_password_file>},
      {.key = "redis_tls_ca",
       .kind = Kind::kString,
       .meaning = "TLS: a PEM file of the CA certificates that sign the "
                  "Redis server's certificate (which must also name the "
                  "address's host, or redis_tls_server_name); empty: the "
                  "system's CAs",
       .field = Member<&Settings::store, &S::redis_tls_ca>},
      {.key = "redis_tls_cert",
       .kind = Kind::kString,
       .meaning = "TLS: this host's client certificate (PEM, with its chain) "
                  "for a server that asks for one (Redis's tls-auth-clients, "
                  "on by default); empty: none",
       .field = Member<&Settings::store, &S::redis_tls_cert>},
      {.key = "redis_tls_key",
       .kind = Kind::kString,
       .meaning = "TLS: the private key of redis_tls_cert (PEM, read once at "
                  "start); empty: none",
       .field = Member<&Settings::store, &S::redis_tls_key>},
      {.key = "redis_tls_server_name",
       .kind = Kind::kString,
       .meaning = "TLS: the name the server's certificate must carry, when "
                  "it is not the address's host (a Cluster reached by IP "
                  "addresses, one certificate for all nodes); empty: the "
                  "host",
       .field = Member<&Settings::store, &S::redis_tls_server_name>},
      {.key = "redis_prefix",
       .kind = Kind::kString,
       .meaning = "the site's key prefix: keys are \"{mw:PREFIX}:...\", one "
                  "Redis Cluster slot per site",
       .field = Member<&Settings::store, &S::redis_prefix>},
      {.key = "redis_timeout",
       .kind = Kind::kDuration,
       .min = 1,
       .max = 60'000,
       .meaning = "the longest a Redis connect or command may take before "
                  "the message passes untagged",
       .field = Member<&Settings::store, &S::redis_timeout>},
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
                  "a whole wave shares costs this, not the wave's size); "
                  "older entries of a key are deleted as it gets new ones",
       .field = Member<&Settings::store, &S::max_per_key>},
      {.key = "prune_batch",
       .kind = Kind::kCount,
       .min = 1,
       .max = 100'000,
       .meaning = "messages removed per pruning transaction (keeps the write "
                  "lock short)",
       .field = Member<&Settings::store, &S::prune_batch>},
      {.key = "commit_delay",
       .kind = Kind::kDuration,
       .min = 0,
       .max = 30'000,
       .meaning = "SQLite: how long a recorded message may wait for the "
                  "commit it shares with those recorded meanwhile (one "
                  "commit per batch instead of per message; other "
                  "lookups see it then); at most a quarter of busy_timeout; 0: "
                  "each message commits at once",
       .field = Member<&Settings::store, &S::commit_delay>},
  };
  return {.name = "store",
          .meaning = "the store of recent mail: hashes only, never text",
          .params = kParams};
}

}  // namespace mw::config
