// The engine (engine.h) against a naive reference, and against the CPU run of
// the kernels' bodies walked over their grids by this test (one thread, grid
// order): the three give the same pairs with the same scores.
#include "gpu/engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fingerprint/core.h"
#include "fingerprint/ctph.h"
#include "fingerprint/sketch.h"
#include "gpu/src/cpu_run.h"
#include "gpu/src/kernels.h"
#include "gpu/src/window.h"
#include "gpu/synthetic.h"
#include "real_signatures.h"

namespace mw::gpu {
namespace {

using internal::PairMatch;

fingerprint::Ctph CtphOf(const Signature& s) {
  fingerprint::Ctph c;
  c.block_size = s.ctph_block;
  c.sig.assign(reinterpret_cast<const char*>(s.ctph), s.ctph_len);
  c.sig2.assign(reinterpret_cast<const char*>(s.ctph2), s.ctph2_len);
  return c;
}

// The reference: the plain rule of each kind through fingerprint/'s
// functions, no filter.
bool ReferencePair(const Signature& a, const Signature& b, Kind kind,
                   const Thresholds& t, float* score) {
  switch (kind) {
    case Kind::kCtph: {
      const auto r = fingerprint::CtphEditRate(CtphOf(a), CtphOf(b));
      if (!r || *r > t.ctph_edit_rate) return false;
      *score = static_cast<float>(*r);
      return true;
    }
    case Kind::kSimHash: {
      const std::uint32_t d = fingerprint::Hamming(a.simhash, b.simhash);
      if (d > t.simhash_distance) return false;
      *score = static_cast<float>(d);
      return true;
    }
    case Kind::kSketch: {
      fingerprint::WordSketch x;
      fingerprint::WordSketch y;
      std::copy(std::begin(a.sketch), std::end(a.sketch), x.slots.begin());
      std::copy(std::begin(b.sketch), std::end(b.sketch), y.slots.begin());
      const std::uint32_t lo = std::min(a.words, b.words);
      const std::uint32_t hi = std::max(a.words, b.words);
      if (lo < t.sketch_min_words || hi > t.sketch_length_ratio * lo)
        return false;
      const double j = fingerprint::SketchJaccard(x, y);
      if (j < t.sketch_jaccard) return false;
      *score = static_cast<float>(j);
      return true;
    }
  }
  return false;
}

std::vector<Match> ReferenceAllPairs(const std::vector<Signature>& set,
                                     Kind kind, const Thresholds& t) {
  std::vector<Match> out;
  for (std::uint32_t i = 0; i < set.size(); ++i) {
    for (std::uint32_t j = i + 1; j < set.size(); ++j) {
      float s = 0;
      if (ReferencePair(set[i], set[j], kind, t, &s)) out.push_back({i, j, s});
    }
  }
  return out;
}

// The kernels' bodies walked over their grids here, one block and thread at a
// time, in grid order.
std::vector<Match> BodiesAllPairs(const std::vector<Signature>& set, Kind kind,
                                  const Thresholds& t) {
  const internal::SoaStore store(set);
  const internal::PairParams p = internal::MakePairParams(t);
  std::vector<PairMatch> buf(set.size() * set.size() + 1);
  unsigned long long count = 0;
  const internal::Output out{buf.data(), buf.size(), &count};
  const internal::Dim block_dim{internal::kTile, 1};
  const std::uint64_t tiles =
      internal::TriangleTiles(static_cast<std::uint32_t>(set.size()));
  for (std::uint64_t b = 0; b < tiles; ++b) {
    for (std::uint32_t tx = 0; tx < internal::kTile; ++tx) {
      const internal::Dim block{static_cast<std::uint32_t>(b), 0};
      switch (kind) {
        case Kind::kCtph:
          internal::AllPairsBody<internal::kKindCtph>(
              store.View(), p, out, block, {tx, 0}, block_dim);
          break;
        case Kind::kSimHash:
          internal::AllPairsBody<internal::kKindSimHash>(
              store.View(), p, out, block, {tx, 0}, block_dim);
          break;
        case Kind::kSketch:
          internal::AllPairsBody<internal::kKindSketch>(
              store.View(), p, out, block, {tx, 0}, block_dim);
          break;
      }
    }
  }
  buf.resize(count);
  return internal::ToMatches(buf);
}

std::vector<Engine::WindowMatch> ReferenceQuery(
    const std::vector<Signature>& queries,
    const std::vector<std::pair<std::uint64_t, Signature>>& window, Kind kind,
    const Thresholds& t) {
  std::vector<Engine::WindowMatch> out;
  for (std::uint32_t q = 0; q < queries.size(); ++q) {
    for (const auto& [id, sig] : window) {
      float s = 0;
      if (ReferencePair(queries[q], sig, kind, t, &s))
        out.push_back({q, id, s});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Engine::WindowMatch& a, const Engine::WindowMatch& b) {
              return a.query != b.query ? a.query < b.query : a.id < b.id;
            });
  return out;
}

std::unique_ptr<Engine> Cpu(unsigned threads = 2) {
  auto e = MakeEngine(Backend::kCpu, threads);
  EXPECT_TRUE(e.has_value());
  return std::move(*e);
}

// Loose thresholds so that every kind has matches among synthetic signatures.
Thresholds Loose() {
  Thresholds t;
  t.ctph_edit_rate = 0.2;
  t.simhash_distance = 4;
  t.sketch_jaccard = 0.5;
  return t;
}

constexpr Kind kKinds[] = {Kind::kCtph, Kind::kSimHash, Kind::kSketch};

TEST(AllPairs, BodiesEngineAndReferenceAgreeOnSyntheticSignatures) {
  SyntheticOptions o;
  o.near_share = 0.3;
  // 300 is not a multiple of the tile: the last tiles are partial.
  const std::vector<Signature> set = SyntheticSignatures(300, 11, o);
  for (Kind kind : kKinds) {
    const std::vector<Match> want = ReferenceAllPairs(set, kind, Loose());
    ASSERT_GT(want.size(), 20u) << static_cast<int>(kind);
    EXPECT_EQ(BodiesAllPairs(set, kind, Loose()), want);
    for (unsigned threads : {1u, 2u, 5u}) {
      auto got = Cpu(threads)->AllPairs(set, kind, Loose());
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(*got, want) << static_cast<int>(kind) << " " << threads;
    }
  }
}

TEST(AllPairs, AgreeOnRealSignatures) {
  std::vector<fingerprint::Fingerprint> fps =
      testing::FingerprintsUnder(testing::FixtureDir(), 1000);
  const auto corpus = testing::FingerprintsUnder(testing::CorpusDir(), 700);
  fps.insert(fps.end(), corpus.begin(), corpus.end());
  std::vector<Signature> set;
  for (const auto& fp : fps) set.push_back(ToSignature(fp));
  ASSERT_GT(set.size(), 20u);
  Thresholds t;
  t.ctph_edit_rate = 0.3;
  t.simhash_distance = 12;
  t.sketch_jaccard = 0.3;
  t.sketch_min_words = 4;
  for (Kind kind : kKinds) {
    const std::vector<Match> want = ReferenceAllPairs(set, kind, t);
    EXPECT_EQ(BodiesAllPairs(set, kind, t), want);
    auto got = Cpu()->AllPairs(set, kind, t);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, want) << static_cast<int>(kind);
    if (!corpus.empty()) {
      EXPECT_GT(want.size(), 0u) << static_cast<int>(kind);
    }
  }
  if (corpus.empty())
    GTEST_SKIP() << "fixtures checked; dev corpus absent under "
                 << testing::CorpusDir();
}

TEST(Query, SameAsReferenceAndAsAllPairs) {
  SyntheticOptions o;
  o.near_share = 0.3;
  const std::vector<Signature> set = SyntheticSignatures(200, 12, o);
  auto engine = Cpu();
  std::vector<std::pair<std::uint64_t, Signature>> window;
  for (std::size_t k = 0; k < set.size(); ++k) {
    // Ids far from the slots, so a slot returned as an id would show.
    const std::uint64_t id = 1000000 + 7 * k;
    ASSERT_TRUE(engine->Add(id, set[k]).has_value());
    window.push_back({id, set[k]});
  }
  for (Kind kind : kKinds) {
    auto got = engine->Query(set, kind, Loose());
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, ReferenceQuery(set, window, kind, Loose()));
    // Query of the set against itself is AllPairs both ways plus i == j.
    auto all = engine->AllPairs(set, kind, Loose());
    ASSERT_TRUE(all.has_value());
    std::vector<Engine::WindowMatch> from_all;
    for (const Match& m : *all) {
      from_all.push_back({m.query, 1000000 + 7ull * m.item, m.score});
      from_all.push_back({m.item, 1000000 + 7ull * m.query, m.score});
    }
    for (const auto& m : *got) {
      if (m.id == 1000000 + 7ull * m.query) from_all.push_back(m);
    }
    std::sort(from_all.begin(), from_all.end(),
              [](const Engine::WindowMatch& a, const Engine::WindowMatch& b) {
                return a.query != b.query ? a.query < b.query : a.id < b.id;
              });
    EXPECT_EQ(*got, from_all) << static_cast<int>(kind);
  }
}

TEST(Window, AddRemoveReplaceAndGrow) {
  SyntheticOptions o;
  o.near_share = 0.3;
  const std::vector<Signature> sigs = SyntheticSignatures(1500, 13, o);
  auto engine = Cpu();
  std::map<std::uint64_t, Signature> model;
  std::mt19937_64 rng(14);
  for (std::size_t k = 0; k < sigs.size(); ++k) {
    const std::uint64_t id = rng() % 2000;  // repeats replace
    ASSERT_TRUE(engine->Add(id, sigs[k]).has_value());
    model[id] = sigs[k];
    if (k % 3 == 0) {
      const std::uint64_t gone = rng() % 2500;  // some unknown
      ASSERT_TRUE(engine->Remove(gone).has_value());
      model.erase(gone);
    }
  }
  EXPECT_EQ(engine->WindowSize(), model.size());
  const std::vector<std::pair<std::uint64_t, Signature>> window(model.begin(),
                                                                model.end());
  const std::vector<Signature> queries(sigs.begin(), sigs.begin() + 100);
  for (Kind kind : kKinds) {
    auto got = engine->Query(queries, kind, Loose());
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, ReferenceQuery(queries, window, kind, Loose()));
  }
  for (const auto& [id, sig] : window) ASSERT_TRUE(engine->Remove(id));
  EXPECT_EQ(engine->WindowSize(), 0u);
  auto none = engine->Query(queries, Kind::kSimHash, Loose());
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

TEST(Overflow, CountsPastTheCapacityAndTheRetryGetsEverything) {
  SyntheticOptions o;
  o.near_share = 0.5;
  const std::vector<Signature> set = SyntheticSignatures(400, 15, o);
  const internal::SoaStore store(set);
  const internal::PairParams p = internal::MakePairParams(Loose());
  const std::vector<Match> want =
      ReferenceAllPairs(set, Kind::kSimHash, Loose());
  ASSERT_GT(want.size(), 10u);
  std::vector<PairMatch> small(3);
  unsigned long long count = 0;
  const internal::Output out{small.data(), small.size(), &count};
  EXPECT_EQ(internal::RunAllPairsGrid(internal::kKindSimHash, store.View(), p,
                                      out, 2),
            want.size());
  for (unsigned long long capacity : {0ull, 1ull, 7ull}) {
    const auto all = internal::CollectAllPairs(internal::kKindSimHash,
                                               store.View(), p, 2, capacity);
    EXPECT_EQ(internal::ToMatches(all), want);
  }
}

// Signatures that stress the vector rows of SimHash and sketch: SimHashes a
// few bits from a handful of bases (every distance near the thresholds
// occurs), sketches over the bins {0, 1, 2, 3} with many empty bins (equal
// and empty bins in every mix; some sketches empty), word counts around the
// filters.
std::vector<Signature> RowStress(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::uint64_t bases[] = {rng(), rng(), rng(), 0, ~std::uint64_t{0}};
  const std::uint32_t words[] = {0, 5, 10, 40, 50, 60, 200};
  std::vector<Signature> out(n);
  for (Signature& s : out) {
    s.simhash = bases[rng() % std::size(bases)];
    for (unsigned f = rng() % 10; f > 0; --f) s.simhash ^= 1ull << (rng() % 64);
    s.words = words[rng() % std::size(words)];
    const unsigned empty_share = static_cast<unsigned>(rng() % 5);  // of 4
    for (std::uint16_t& bin : s.sketch)
      bin = rng() % 4 < empty_share ? 0 : static_cast<std::uint16_t>(rng() % 4);
  }
  return out;
}

class VectorRows : public ::testing::TestWithParam<internal::Isa> {};

// Each instruction-set level of the CPU run gives the reference's pairs and
// scores, all-pairs and one-vs-window, over sizes that end mid-vector and
// mid-tile and thresholds at the edges (a SimHash distance of 64 and above
// passes every pair; a Jaccard of 0 passes empty sketches).
TEST_P(VectorRows, SameAsTheReferenceForSimHashAndSketch) {
  const internal::Isa isa = GetParam();
  if (isa > internal::BestIsa())
    GTEST_SKIP() << "this CPU lacks the instruction set of level "
                 << static_cast<int>(isa) << " (AVX2, or AVX-512 F/BW/"
                 << "VPOPCNTDQ); its rows were not run";
  const std::vector<Signature> set = RowStress(203, 16);
  const std::vector<Signature> queries(set.begin() + 50, set.begin() + 87);
  const internal::SoaStore store(set);
  const internal::SoaStore query_store(queries);
  std::vector<Thresholds> all;
  for (std::uint32_t d : {0u, 3u, 9u, 63u, 64u, 1000u}) {
    Thresholds t;
    t.simhash_distance = d;
    all.push_back(t);
  }
  for (double j : {0.0, 0.3, 0.5, 1.0}) {
    for (std::uint32_t min_words : {0u, 10u}) {
      Thresholds t;
      t.sketch_jaccard = j;
      t.sketch_min_words = min_words;
      all.push_back(t);
    }
  }
  for (const Thresholds& t : all) {
    const internal::PairParams p = internal::MakePairParams(t);
    for (Kind kind : {Kind::kSimHash, Kind::kSketch}) {
      const auto code = static_cast<unsigned>(kind);
      const std::vector<Match> want = ReferenceAllPairs(set, kind, t);
      for (unsigned threads : {1u, 3u}) {
        EXPECT_EQ(internal::ToMatches(internal::CollectAllPairs(
                      code, store.View(), p, threads, 16, isa)),
                  want)
            << code << " " << t.simhash_distance << " " << t.sketch_jaccard;
      }
      std::vector<Match> want_query;
      for (std::uint32_t q = 0; q < queries.size(); ++q) {
        for (std::uint32_t k = 0; k < set.size(); ++k) {
          float score = 0;
          if (ReferencePair(queries[q], set[k], kind, t, &score))
            want_query.push_back({q, k, score});
        }
      }
      EXPECT_EQ(internal::ToMatches(internal::CollectQuery(
                    code, query_store.View(), store.View(), p, 2, 16, isa)),
                want_query)
          << code << " " << t.simhash_distance << " " << t.sketch_jaccard;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Isa, VectorRows,
                         ::testing::Values(internal::Isa::kBaseline,
                                           internal::Isa::kAvx2,
                                           internal::Isa::kAvx512));

TEST(MakeEngine, ParseBackend) {
  EXPECT_EQ(ParseBackend("auto").value(), Backend::kAuto);
  EXPECT_EQ(ParseBackend("cpu").value(), Backend::kCpu);
  EXPECT_EQ(ParseBackend("cuda").value(), Backend::kCuda);
  EXPECT_EQ(ParseBackend("gpu").error().code(), Error::Code::kInvalidArgument);
}

TEST(MakeEngine, CpuAndAuto) {
  auto cpu = MakeEngine(Backend::kCpu);
  ASSERT_TRUE(cpu.has_value());
  EXPECT_EQ((*cpu)->Name(), "cpu");
  std::string reason;
  auto cuda = MakeEngine(Backend::kCuda);
  auto any = MakeEngine(Backend::kAuto, 0, &reason);
  ASSERT_TRUE(any.has_value());
  if (cuda.has_value()) {
    EXPECT_EQ((*any)->Name(), "cuda");
    GTEST_SKIP() << "a CUDA device is present: the fallback is not exercised";
  }
  // No usable device (this machine): kCuda is unavailable, kAuto falls back
  // to the CPU and says why.
  EXPECT_EQ(cuda.error().code(), Error::Code::kUnavailable);
  EXPECT_FALSE(cuda.error().message().empty());
  EXPECT_EQ((*any)->Name(), "cpu");
  EXPECT_EQ(reason, cuda.error().message());
}

}  // namespace
}  // namespace mw::gpu
