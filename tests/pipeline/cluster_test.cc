#include "pipeline/cluster.h"

#include <gtest/gtest.h>

#include <set>

namespace mw::pipeline {
namespace {

using Pair = std::pair<std::uint32_t, std::uint32_t>;

// A verifier that says duplicate exactly for the pairs in `near` (either
// order) and records what it was asked.
struct Relation {
  std::set<Pair> near;
  std::vector<Pair> asked;
  Verifier Get() {
    return [this](std::uint32_t m, std::uint32_t c) {
      asked.emplace_back(m, c);
      Verification v;
      v.duplicate = near.count({m, c}) || near.count({c, m});
      if (v.duplicate) {
        v.similarity = 0.9;
        v.method = "text";
      }
      return v;
    };
  }
};

TEST(UnionFind, KeepsTheChosenRoot) {
  UnionFind u(4);
  u.Join(2, 0);
  u.Join(2, 3);
  EXPECT_EQ(u.Find(0), 2u);
  EXPECT_EQ(u.Find(3), 2u);
  EXPECT_EQ(u.Find(1), 1u);
}

TEST(ClusterCanonical, AChainDoesNotMergeItsEnds) {
  // A ~ B, B ~ C, A !~ C; A earliest.
  const std::vector<std::int64_t> time = {10, 20, 30};
  const std::vector<Pair> candidates = {{0, 1}, {1, 2}};
  Relation r{{{0, 1}, {1, 2}}, {}};
  const Clustering c = ClusterCanonical(time, candidates, r.Get());
  ASSERT_EQ(c.clusters.size(), 1u);
  EXPECT_EQ(c.clusters[0], (std::vector<std::uint32_t>{0, 1}));
  EXPECT_TRUE(c.messages[0].in_cluster);
  EXPECT_TRUE(c.messages[1].in_cluster);
  EXPECT_EQ(c.messages[1].canonical, 0u);
  EXPECT_FALSE(c.messages[2].in_cluster);
  EXPECT_EQ(c.messages[2].canonical, 2u);
  // C was checked against the canonical A, not against B.
  EXPECT_EQ(r.asked, (std::vector<Pair>{{1, 0}, {2, 0}}));
}

TEST(ClusterCanonical, TheEarliestMessageIsCanonicalWhateverTheInputOrder) {
  // Input order C, B, A; times make A (index 2) the earliest.
  const std::vector<std::int64_t> time = {300, 200, 100};
  const std::vector<Pair> candidates = {{0, 1}, {1, 2}, {0, 2}};
  Relation r{{{0, 1}, {1, 2}, {0, 2}}, {}};
  const Clustering c = ClusterCanonical(time, candidates, r.Get());
  ASSERT_EQ(c.clusters.size(), 1u);
  EXPECT_EQ(c.clusters[0], (std::vector<std::uint32_t>{2, 1, 0}));
  for (const Assignment& a : c.messages) EXPECT_EQ(a.canonical, 2u);
  EXPECT_EQ(c.messages[2].verification.method, "");
  EXPECT_EQ(c.messages[0].verification.method, "text");
}

TEST(ClusterCanonical, EqualTimesKeepInputOrder) {
  const std::vector<std::int64_t> time = {5, 5};
  const std::vector<Pair> candidates = {{1, 0}};
  Relation r{{{0, 1}}, {}};
  const Clustering c = ClusterCanonical(time, candidates, r.Get());
  ASSERT_EQ(c.clusters.size(), 1u);
  EXPECT_EQ(c.clusters[0], (std::vector<std::uint32_t>{0, 1}));
}

TEST(ClusterCanonical, TriesTheEarlierCanonicalFirstThenTheNext) {
  // Clusters {0, 1} and {2, 3}; message 4 has candidates in both and is near
  // only 2: it is tried against 0 first, then joins 2.
  const std::vector<std::int64_t> time = {1, 2, 3, 4, 5};
  const std::vector<Pair> candidates = {{0, 1}, {2, 3}, {4, 1}, {4, 3}};
  Relation r{{{0, 1}, {2, 3}, {2, 4}}, {}};
  const Clustering c = ClusterCanonical(time, candidates, r.Get());
  ASSERT_EQ(c.clusters.size(), 2u);
  EXPECT_EQ(c.clusters[0], (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(c.clusters[1], (std::vector<std::uint32_t>{2, 3, 4}));
  EXPECT_EQ(r.asked.back(), (Pair{4, 2}));
  EXPECT_EQ(r.asked[r.asked.size() - 2], (Pair{4, 0}));
}

TEST(ClusterCanonical, AMessageThatFailsItsCanonicalStartsItsOwnCluster) {
  // A ~ B, B ~ C, A !~ C, C ~ D (D later): C could not join A, so C is the
  // canonical of {C, D}.
  const std::vector<std::int64_t> time = {1, 2, 3, 4};
  const std::vector<Pair> candidates = {{0, 1}, {1, 2}, {2, 3}};
  Relation r{{{0, 1}, {1, 2}, {2, 3}}, {}};
  const Clustering c = ClusterCanonical(time, candidates, r.Get());
  ASSERT_EQ(c.clusters.size(), 2u);
  EXPECT_EQ(c.clusters[0], (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(c.clusters[1], (std::vector<std::uint32_t>{2, 3}));
  EXPECT_TRUE(c.messages[2].in_cluster);
  EXPECT_EQ(c.messages[2].canonical, 2u);
}

TEST(ClusterCanonical, IgnoresSelfPairsRepeatsAndOutOfRange) {
  const std::vector<std::int64_t> time = {1, 2};
  const std::vector<Pair> candidates = {{0, 0}, {0, 1}, {1, 0}, {0, 7}};
  Relation r{{}, {}};
  const Clustering c = ClusterCanonical(time, candidates, r.Get());
  EXPECT_TRUE(c.clusters.empty());
  EXPECT_EQ(c.verifications, 1u);  // 1 against 0, once
}

}  // namespace
}  // namespace mw::pipeline
