// The Redis backend of store::Store: several MX hosts share one memory.
//
// Every key of a site starts with one hash tag, "{mw:<prefix>}:", so every
// multi-key operation stays in one Redis Cluster slot. Layout, costs and the
// reasons: docs/store.md, "Redis backend". Record is one round trip
// (EVALSHA) and the cluster join runs inside its script, so two hosts
// recording variants of one wave at once end in one cluster; Find is two (an
// MGET of the index buckets, then a script that reads the candidates), on
// one connection and within one command timeout together.
//
// Failure: a connection or command error (refused, timed out, killed server,
// a script error) fails the call with kUnavailable; no call waits longer than
// connect_timeout + command_timeout. After a failure the store reconnects on
// a later call, no sooner than a backoff that doubles from reconnect_min up to
// reconnect_max; calls in between fail at once. The log says "redis: down:
// REASON" once when it goes down and "redis: back" once when a call succeeds
// again, never one line per call.
//
// Signals: OpenRedis sets SIGPIPE to SIG_IGN when it is still SIG_DFL (a
// closed connection must fail a call, not end the process).
//
// Thread-safety: OpenRedis's result may be used from any number of threads;
// each concurrent caller borrows a connection of its own from a pool.
#ifndef MW_STORE_REDIS_H_
#define MW_STORE_REDIS_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "fingerprint/fingerprint.h"
#include "mw/result.h"
#include "store/store.h"

namespace mw::store {

struct RedisOptions {
  // "unix:/run/redis/redis.sock", "tcp://host:port" or "tls://host:port".
  std::string address = "unix:/run/redis/redis.sock";
  // A Redis Cluster's seed nodes ("tcp://host:port", or "tls://host:port"
  // for every node over TLS); when set, `address` is
  // not used: the slot map is read from the first seed that answers, and
  // each command goes to the master that serves its slot (MOVED and ASK
  // followed, so a failover or a reshard is followed too).
  std::vector<std::string> cluster;
  int database = 0;  // SELECT; Redis Cluster has only 0
  // Redis 6 ACL user (empty: the default user) and the file holding its
  // password (empty: no AUTH). The file is read once, by OpenRedis; its
  // content is never logged nor put in an error message.
  std::string user;
  std::string password_file;
  // TLS ("tls://" addresses; docs/store.md, "TLS"): the PEM file of the CA
  // certificates that sign the servers' (empty: the system's), the client
  // certificate and its key for a server that asks for one (Redis's
  // tls-auth-clients; empty: none), and the name the servers' certificates
  // must carry (empty: the host connected to). Setting any of them for a
  // plain address is refused at open.
  std::string tls_ca_file;
  std::string tls_cert_file;
  std::string tls_key_file;
  std::string tls_server_name;
  // Keys are "{mw:<prefix>}:...": several sites or test runs share a server.
  std::string prefix = "mailwave";
  std::chrono::milliseconds connect_timeout{200};
  std::chrono::milliseconds command_timeout{200};
  std::chrono::milliseconds reconnect_min{100};
  std::chrono::milliseconds reconnect_max{5000};
  // As SqliteOptions: rows written under other options are skipped.
  fingerprint::Options fingerprint;
  std::size_t max_candidates = 16;
  std::size_t max_per_key = 32;
  // An index bucket (7 bytes an entry) that passes this many entries is
  // split in 16 (docs/store.md, "Index buckets"), so that what Find reads
  // and Record rewrites per key stays under ~900 bytes however large the
  // store grows: at a million messages 128 cost Redis a quarter less CPU
  // than 1,024 for 5 % more memory. Not a setting: tests lower it to reach
  // splits with a few messages.
  std::size_t index_split_entries = 128;
  // Messages older than this are removed by Record (a few per call, so a
  // busy site keeps up without a maintenance thread) and expire by TTL at
  // twice this in any case, so a site whose writers all stopped empties
  // itself. 0: kept until `mailwave store prune`.
  std::chrono::milliseconds retention{0};
  // Whether Record removes messages older than `retention` (mailwave check
  // replays old mail and turns it off; the TTL still applies).
  bool prune_on_record = true;
  // The secret file of the keyed hashes, as SqliteOptions::secret_path;
  // required (Redis has no directory to default to). Made when absent.
  // Every host of a site must use the same secret.
  std::string secret_path;
  LogFn log;  // empty: no log
};

// Reads the password file, loads the site secret and connects once (so a
// wrong address or password is said at startup). Fails with kInvalidArgument
// for a malformed address or when the server refuses the credentials or the
// database, kIo when a file cannot be read, kCorrupt when the prefix holds
// keys of another layout. A server that cannot be reached is not a failure:
// the store starts down (one "redis: down" line) and reconnects on a later
// call, as after any outage.
Result<std::unique_ptr<Store>> OpenRedis(const RedisOptions& options);

}  // namespace mw::store

#endif  // MW_STORE_REDIS_H_
