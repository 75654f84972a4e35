// Clusters of near-duplicate messages, centred on a canonical message.
//
// Verified pairs alone would chain: A ~ B and B ~ C put A and C together
// however far apart they are (a wave's copies drift, and a reply quotes the
// message it answers). Here the canonical of a cluster is its earliest
// message, and a message joins a cluster only when it is verified against
// that canonical, so a cluster's members are each near its canonical:
//
//   messages are taken in time order (earliest first, ties in input order);
//   a message's candidate clusters are the clusters of its candidates taken
//   before it, tried by their canonical's time, earliest first; it joins the
//   first whose canonical it verifies against, else it starts its own.
//
// Thread-safety: pure functions and a value type; `verify` is called on the
// calling thread.
#ifndef MW_PIPELINE_CLUSTER_H_
#define MW_PIPELINE_CLUSTER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace mw::pipeline {

// Disjoint sets over 0..n-1 whose root is chosen by the caller: Join(root, x)
// puts x's set under `root`'s, so the root of a cluster stays its canonical.
class UnionFind {
 public:
  explicit UnionFind(std::size_t n);
  std::uint32_t Find(std::uint32_t x);
  // REQUIRES: root == Find(root).
  void Join(std::uint32_t root, std::uint32_t x);
  std::size_t size() const { return parent_.size(); }

 private:
  std::vector<std::uint32_t> parent_;
};

// Whether `message` is a near-duplicate of `canonical`, how and how near.
struct Verification {
  bool duplicate = false;
  std::optional<double> similarity;  // in [0, 1]; see docs/scan.md
  std::string method;                // "exact", "blocks", ..., "text"
};

using Verifier =
    std::function<Verification(std::uint32_t message, std::uint32_t canonical)>;

struct Assignment {
  std::uint32_t canonical = 0;  // this message's own index when alone
  bool in_cluster = false;      // false: alone (no verified canonical, and
                                // nothing joined it)
  Verification verification;    // against the canonical; empty for one
};

struct Clustering {
  std::vector<Assignment> messages;  // per input message
  // Clusters of two or more, in the time order of their canonicals; each
  // member list begins with the canonical, then the members in time order.
  std::vector<std::vector<std::uint32_t>> clusters;
  std::size_t verifications = 0;  // calls to `verify`
};

// Clusters messages 0..time.size()-1. time[i] orders them (earliest first;
// equal times by index). `candidates` are unordered pairs of indices < n;
// repeats and self-pairs are ignored.
Clustering ClusterCanonical(
    std::span<const std::int64_t> time,
    std::span<const std::pair<std::uint32_t, std::uint32_t>> candidates,
    const Verifier& verify);

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_CLUSTER_H_
