// A Redis Cluster's slot map and its redirections, read from replies: which
// master serves each of the 16,384 slots (CLUSTER SLOTS), and where a MOVED
// or ASK error sends a command. No I/O: redis_cluster.h does the asking.
#ifndef MW_STORE_REDIS_CLUSTER_MAP_H_
#define MW_STORE_REDIS_CLUSTER_MAP_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mw/result.h"
#include "redis_conn.h"

namespace mw::store {

struct SlotMap {
  // The masters that serve at least one slot, each once, sorted by host and
  // port (the same cluster gives the same order whichever node answered).
  std::vector<RedisAddress> masters;
  // Per slot, the index of its master in `masters`, or -1 when none serves
  // it (a cluster being set up, or a master that failed with no replica).
  std::vector<std::int16_t> owner;

  // The index of the master that serves `slot`, or -1.
  int Owner(int slot) const { return owner[static_cast<std::size_t>(slot)]; }
  // How many slots some master serves (16,384 on a healthy cluster).
  int Covered() const;
};

// Reads a CLUSTER SLOTS reply: an array of [first, last, master, replica...]
// where a node is [host, port, id, ...]. An empty host means "the node you
// asked" (Redis sends it when it does not know its own address): it is read
// as `asked_host`. kCorrupt for a reply of another shape; a slot claimed twice
// keeps the later claim.
Result<SlotMap> ParseClusterSlots(const Reply& reply,
                                  std::string_view asked_host);

// A redirection: "MOVED <slot> <host>:<port>" (the slot lives elsewhere now:
// refresh the map) or "ASK <slot> <host>:<port>" (this one command goes
// there, after ASKING, while the slot migrates).
struct Redirect {
  bool ask = false;
  int slot = 0;
  RedisAddress to;
};

// The redirection an error reply's text names, or nullopt for any other error.
// An empty host (":6380") is the asked node's host.
std::optional<Redirect> ParseRedirect(std::string_view error,
                                      std::string_view asked_host);

// "host:port", as the cluster and the logs name a node.
std::string NodeName(const RedisAddress& a);

}  // namespace mw::store

#endif  // MW_STORE_REDIS_CLUSTER_MAP_H_
