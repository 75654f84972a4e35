// A slot-aware Redis Cluster client on hiredis (Debian ships none): the slot
// map from CLUSTER SLOTS, one connection per master opened when first used,
// commands routed by key slot, MOVED and ASK followed, and pipelines that
// write to every master before reading any reply, so that a batch spread
// over N masters costs one round trip, not N.
//
// Thread-safety: a ClusterClient is used by one thread at a time, like a
// Connection; threads each hold their own (a connection per node per
// thread).
#ifndef MW_STORE_REDIS_CLUSTER_H_
#define MW_STORE_REDIS_CLUSTER_H_

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mw/result.h"
#include "redis_cluster_map.h"
#include "redis_conn.h"

namespace mw::store {

class ClusterClient {
 public:
  // Redirections one command follows before it fails (a slot moved twice
  // while the map was being read again is already unusual).
  static constexpr int kMaxRedirects = 5;
  // A node that could not be connected to is not tried again for this long:
  // its slots' commands fail at once with the reason, rather than each
  // waiting for the connect timeout while its host is down (RefreshMap asks
  // the known masters first, a failed one among them, after every MOVED).
  static constexpr std::chrono::milliseconds kRetryUnreachable{1000};

  // Reads the slot map from the first of `seeds` that answers, and keeps the
  // seeds to read it again. `options` gives everything but the address
  // (credentials, timeouts); a Cluster has database 0 only, so another
  // database is kInvalidArgument. kUnavailable when no seed answers.
  static Result<std::unique_ptr<ClusterClient>> Open(
      std::vector<RedisAddress> seeds, ConnectOptions options);

  // Sends one command whose keys all lie in `slot` to the master that serves
  // it. MOVED reads the map again and retries; ASK sends ASKING and the
  // command to the node it names, once. kUnavailable when the master cannot
  // be reached (its connection is dropped, and the next command connects
  // again), when no master serves the slot, or after kMaxRedirects. Other
  // error replies are returned as replies, as Connection::Command does.
  Result<Reply> Command(int slot, const std::vector<std::string_view>& args);

  struct SlotCommand {
    int slot = 0;
    std::vector<std::string_view> args;
  };
  // The commands as one pipeline per master: all are written before any
  // reply is read, so the masters work in parallel. Replies come in the
  // order of `commands`. A command that is redirected is sent again alone
  // (Command); one whose master cannot be reached gets kUnavailable in its
  // place while the others complete.
  // The time each command may take from now on, on every node's connection
  // (those opened later too). kUnavailable when it cannot be set.
  [[nodiscard]] Result<void> SetTimeout(std::chrono::microseconds timeout);

  std::vector<Result<Reply>> Pipeline(const std::vector<SlotCommand>& commands);

  // Sends a command to masters()[index] (statistics, scans over the cluster).
  Result<Reply> CommandOnMaster(std::size_t index,
                                const std::vector<std::string_view>& args);

  const SlotMap& map() const { return map_; }
  // Reads the slot map again: from the known masters first, then the seeds.
  [[nodiscard]] Result<void> RefreshMap();
  // How many times the map was read (Open's reading included).
  int map_reads() const { return map_reads_; }

 private:
  ClusterClient(std::vector<RedisAddress> seeds, ConnectOptions options)
      : seeds_(std::move(seeds)), options_(std::move(options)) {}
  // The connection to `node`, opened if need be; nullptr and `error` set when
  // it cannot be opened.
  Connection* ConnectionTo(const RedisAddress& node, Error* error);
  void Drop(const RedisAddress& node) { connections_.erase(NodeName(node)); }
  Result<Reply> SendTo(const RedisAddress& node, bool asking,
                       const std::vector<std::string_view>& args);

  std::vector<RedisAddress> seeds_;
  ConnectOptions options_;
  SlotMap map_;
  int map_reads_ = 0;
  std::map<std::string, std::unique_ptr<Connection>> connections_;
  struct Unreachable {
    std::chrono::steady_clock::time_point until;
    Error error;
  };
  std::map<std::string, Unreachable> unreachable_;  // by NodeName
};

}  // namespace mw::store

#endif  // MW_STORE_REDIS_CLUSTER_H_
