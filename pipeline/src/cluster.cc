#include "pipeline/cluster.h"

#include <algorithm>
#include <numeric>

namespace mw::pipeline {

UnionFind::UnionFind(std::size_t n) : parent_(n) {
  std::iota(parent_.begin(), parent_.end(), 0u);
}

std::uint32_t UnionFind::Find(std::uint32_t x) {
  std::uint32_t root = x;
  while (parent_[root] != root) root = parent_[root];
  while (parent_[x] != root) {  // path compression
    const std::uint32_t next = parent_[x];
    parent_[x] = root;
    x = next;
  }
  return root;
}

void UnionFind::Join(std::uint32_t root, std::uint32_t x) {
  const std::uint32_t r = Find(x);
  if (r != root) parent_[r] = root;
}

Clustering ClusterCanonical(
    std::span<const std::int64_t> time,
    std::span<const std::pair<std::uint32_t, std::uint32_t>> candidates,
    const Verifier& verify) {
  const std::size_t n = time.size();
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(
      order.begin(), order.end(),
      [&](std::uint32_t a, std::uint32_t b) { return time[a] < time[b]; });
  std::vector<std::uint32_t> rank(n);
  for (std::uint32_t r = 0; r < n; ++r) rank[order[r]] = r;

  // Each message's candidates taken before it.
  std::vector<std::vector<std::uint32_t>> earlier(n);
  for (auto [a, b] : candidates) {
    if (a == b || a >= n || b >= n) continue;
    if (rank[a] < rank[b]) {
      earlier[b].push_back(a);
    } else {
      earlier[a].push_back(b);
    }
  }

  Clustering out;
  out.messages.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) out.messages[i].canonical = i;
  UnionFind sets(n);
  std::vector<std::uint32_t> tried;
  for (const std::uint32_t m : order) {
    // The clusters of m's candidates, by their canonical's time: a message
    // processed earlier is a root (a canonical) or joined one, never the
    // other way round, so Find gives the canonical.
    tried.clear();
    for (const std::uint32_t c : earlier[m]) tried.push_back(sets.Find(c));
    std::sort(
        tried.begin(), tried.end(),
        [&](std::uint32_t a, std::uint32_t b) { return rank[a] < rank[b]; });
    tried.erase(std::unique(tried.begin(), tried.end()), tried.end());
    for (const std::uint32_t canonical : tried) {
      Verification v = verify(m, canonical);
      ++out.verifications;
      if (!v.duplicate) continue;
      sets.Join(canonical, m);
      out.messages[m].canonical = canonical;
      out.messages[m].in_cluster = true;
      out.messages[m].verification = std::move(v);
      out.messages[canonical].in_cluster = true;
      break;
    }
  }

  std::vector<std::int64_t> cluster_of(n, -1);
  for (const std::uint32_t m : order) {
    if (!out.messages[m].in_cluster) continue;
    const std::uint32_t canonical = out.messages[m].canonical;
    if (canonical == m) {
      cluster_of[m] = static_cast<std::int64_t>(out.clusters.size());
      out.clusters.push_back({m});
    } else {
      out.clusters[static_cast<std::size_t>(cluster_of[canonical])].push_back(
          m);
    }
  }
  return out;
}

}  // namespace mw::pipeline
