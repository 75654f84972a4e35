// One caller's way to a site's keys: a connection to a single Redis server,
// or a slot-aware client of a Redis Cluster routed to the slot of the site's
// hash tag. The store's pool lends Links; nothing above this file tells the
// two apart.
//
// Thread-safety: as Connection, one thread at a time.
#ifndef MW_STORE_REDIS_LINK_H_
#define MW_STORE_REDIS_LINK_H_

#include <chrono>
#include <memory>
#include <string_view>
#include <vector>

#include "mw/result.h"
#include "redis_cluster.h"
#include "redis_conn.h"

namespace mw::store {

struct LinkOptions {
  ConnectOptions connect;             // the server, or credentials and timeouts
  std::vector<RedisAddress> cluster;  // seed nodes; empty: a single server
  int slot = 0;                       // the site's slot on a Cluster
};

// Parses RedisOptions::cluster's "tcp://host:port" or "tls://host:port"
// seeds. kInvalidArgument for a malformed one, a unix socket (Cluster nodes
// are named by host and port), or a mix of tls:// and tcp://.
Result<std::vector<RedisAddress>> ParseClusterSeeds(
    const std::vector<std::string>& seeds);

class Link {
 public:
  // Connects (and authenticates) to the single server, or reads the
  // Cluster's slot map. Failures as Connection::Open and ClusterClient::Open.
  static Result<std::unique_ptr<Link>> Open(const LinkOptions& o);

  // One command whose keys all lie in the site's slot. As
  // Connection::Command: kUnavailable when the server or the slot's master
  // cannot be reached; error replies are replies.
  Result<Reply> Command(const std::vector<std::string_view>& args);

  // The time a command may take from now on (the connect options' command
  // timeout until this is called). kUnavailable when it cannot be set.
  [[nodiscard]] Result<void> SetTimeout(std::chrono::microseconds timeout);

 private:
  Link() = default;
  std::unique_ptr<Connection> single_;
  std::unique_ptr<ClusterClient> cluster_;
  int slot_ = 0;
};

}  // namespace mw::store

#endif  // MW_STORE_REDIS_LINK_H_
