// The per-pair functions of gpu/src/pair.h against their references in
// fingerprint/: the same answer on every pair, and filters that never reject
// a pair the plain rule accepts (random, near and real signatures).
#include "gpu/src/pair.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/core.h"
#include "fingerprint/ctph.h"
#include "fingerprint/sketch.h"
#include "gpu/engine.h"
#include "gpu/src/window.h"
#include "real_signatures.h"

namespace mw::gpu::internal {
namespace {

const std::uint8_t* Bytes(const std::string& s) {
  return reinterpret_cast<const std::uint8_t*>(s.data());
}

std::string RandomString(std::mt19937_64& rng, unsigned len,
                         unsigned alphabet) {
  std::string s(len, '\0');
  for (char& c : s) c = static_cast<char>('A' + rng() % alphabet);
  return s;
}

// s with `edits` random substitutions, insertions and deletions, at most 64.
std::string Mutate(std::mt19937_64& rng, std::string s, unsigned edits,
                   unsigned alphabet) {
  for (unsigned e = 0; e < edits; ++e) {
    const unsigned op = static_cast<unsigned>(rng() % 3);
    if (op == 0 && !s.empty()) {
      s[rng() % s.size()] = static_cast<char>('A' + rng() % alphabet);
    } else if (op == 1 && s.size() < 64) {
      s.insert(s.begin() + static_cast<long>(rng() % (s.size() + 1)),
               static_cast<char>('A' + rng() % alphabet));
    } else if (!s.empty()) {
      s.erase(s.begin() + static_cast<long>(rng() % s.size()));
    }
  }
  return s;
}

TEST(Myers, SameAsTheScalarReference) {
  std::mt19937_64 rng(1);
  for (int n = 0; n < 100000; ++n) {
    const unsigned alphabet = 1 + static_cast<unsigned>(rng() % 64);
    const std::string a =
        RandomString(rng, static_cast<unsigned>(rng() % 65), alphabet);
    const std::string b =
        n % 2 ? RandomString(rng, static_cast<unsigned>(rng() % 65), alphabet)
              : Mutate(rng, a, static_cast<unsigned>(rng() % 10), alphabet);
    ASSERT_EQ(MyersDistance(Bytes(a), static_cast<unsigned>(a.size()), Bytes(b),
                            static_cast<unsigned>(b.size())),
              fingerprint::internal::MyersDistanceScalar(a, b))
        << a << " / " << b;
  }
}

TEST(Myers, AnyByteValues) {
  std::mt19937_64 rng(2);
  for (int n = 0; n < 20000; ++n) {
    std::string a(rng() % 65, '\0');
    std::string b(rng() % 65, '\0');
    for (char& c : a) c = static_cast<char>(rng() % 256);
    for (char& c : b) c = n % 3 ? static_cast<char>(rng() % 256) : a[0];
    ASSERT_EQ(MyersDistance(Bytes(a), static_cast<unsigned>(a.size()), Bytes(b),
                            static_cast<unsigned>(b.size())),
              fingerprint::internal::MyersDistanceScalar(a, b));
  }
}

TEST(PairParams, KmaxIsTheReferenceDivision) {
  for (double rate : {0.0, 0.05, 0.1, 0.15, 0.2, 1.0 / 3, 0.5, 1.0}) {
    Thresholds t;
    t.ctph_edit_rate = rate;
    const PairParams p = MakePairParams(t);
    for (unsigned total = 1; total <= kMaxTotal; ++total) {
      for (unsigned d = 0; d <= total; ++d) {
        const bool ref = static_cast<double>(d) / total <= rate;
        ASSERT_EQ(static_cast<int>(d) <= p.kmax[total], ref)
            << rate << " " << d << "/" << total;
      }
    }
  }
}

struct Summary {
  std::uint64_t bits[kGramWords];
  std::uint8_t extra;
};

CtphSide SideOf(const std::string& s, Summary* sum) {
  GramSummary(Bytes(s), static_cast<unsigned>(s.size()), sum->bits,
              &sum->extra);
  return {Bytes(s), static_cast<unsigned>(s.size()), sum->bits, sum->extra};
}

// CtphLevel against "EditRate <= rate" on one pair; counts what the filters
// dropped, so the test can check that they do work.
void CheckLevel(const std::string& a, const std::string& b, const PairParams& p,
                double rate, long* accepted) {
  Summary sa;
  Summary sb;
  unsigned d = 0;
  const bool got = CtphLevel(SideOf(a, &sa), SideOf(b, &sb), p, &d);
  const bool want =
      !a.empty() && !b.empty() && fingerprint::EditRate(a, b) <= rate;
  ASSERT_EQ(got, want) << a << " / " << b << " rate " << rate;
  if (got) {
    ASSERT_EQ(d, fingerprint::internal::MyersDistanceScalar(a, b));
    ++*accepted;
  }
}

TEST(CtphLevel, FiltersNeverDropAnAcceptedPair) {
  std::mt19937_64 rng(3);
  long accepted = 0;
  for (double rate : {0.05, 0.15, 0.3, 0.5}) {
    Thresholds t;
    t.ctph_edit_rate = rate;
    const PairParams p = MakePairParams(t);
    for (int n = 0; n < 60000; ++n) {
      // Small alphabets make repeated 2-grams and bucket collisions common,
      // the cases where the bound must still hold.
      const unsigned alphabet = n % 4 == 0 ? 2 + rng() % 4 : 64;
      const std::string a =
          RandomString(rng, static_cast<unsigned>(rng() % 65), alphabet);
      const std::string b =
          n % 3 == 0
              ? RandomString(rng, static_cast<unsigned>(rng() % 65), alphabet)
              : Mutate(rng, a, static_cast<unsigned>(rng() % 24), alphabet);
      CheckLevel(a, b, p, rate, &accepted);
    }
  }
  EXPECT_GT(accepted, 10000);  // the near pairs reach the Myers stage
}

// What the filters buy: on unrelated base64 signatures of realistic length
// at the default rate, the length and 2-gram filters reject almost every pair
// before Myers runs.
TEST(CtphLevel, FiltersRejectMostUnrelatedPairs) {
  std::mt19937_64 rng(4);
  const PairParams p = MakePairParams(Thresholds{});
  int reached_myers = 0;
  const int pairs = 100000;
  for (int n = 0; n < pairs; ++n) {
    const std::string a =
        RandomString(rng, 30 + static_cast<unsigned>(rng() % 35), 64);
    const std::string b =
        RandomString(rng, 30 + static_cast<unsigned>(rng() % 35), 64);
    Summary sa;
    Summary sb;
    const CtphSide x = SideOf(a, &sa);
    const CtphSide y = SideOf(b, &sb);
    const int k = p.kmax[x.len + y.len];
    const int diff = static_cast<int>(x.len) - static_cast<int>(y.len);
    if (diff > k || -diff > k) continue;
    unsigned common = std::min(x.extra, y.extra);
    for (unsigned w = 0; w < kGramWords; ++w)
      common += Popcount64(x.grams[w] & y.grams[w]);
    if (static_cast<int>(common) <
        static_cast<int>(std::max(x.len, y.len)) - 1 - 2 * k)
      continue;
    ++reached_myers;
  }
  EXPECT_LT(reached_myers, pairs / 100) << reached_myers;
}

fingerprint::Ctph RandomCtph(std::mt19937_64& rng) {
  fingerprint::Ctph c;
  c.block_size = 3u << (rng() % 4);
  const unsigned alphabet = 3 + static_cast<unsigned>(rng() % 8);
  c.sig = RandomString(rng, static_cast<unsigned>(rng() % 20), alphabet);
  c.sig2 = RandomString(rng, static_cast<unsigned>(rng() % 12), alphabet);
  return c;
}

Signature SigOf(const fingerprint::Ctph& c) {
  fingerprint::Fingerprint fp;
  fp.ctph = c;
  return ToSignature(fp);
}

// CtphPair through the window layout (SoaStore) against CtphEditRate.
void CheckCtphPairs(const std::vector<fingerprint::Ctph>& set,
                    const PairParams& p, double rate, long* accepted) {
  std::vector<Signature> sigs;
  for (const auto& c : set) sigs.push_back(SigOf(c));
  const SoaStore store(sigs);
  const SoaView v = store.View();
  for (std::uint32_t i = 0; i < v.n; ++i) {
    for (std::uint32_t j = 0; j < v.n; ++j) {
      float score = -1;
      const bool got =
          CtphPair(v.block[i], Side1(v, i), Side2(v, i), v.block[j],
                   Side1(v, j), Side2(v, j), p, &score);
      const auto ref = fingerprint::CtphEditRate(set[i], set[j]);
      ASSERT_EQ(got, ref.has_value() && *ref <= rate)
          << fingerprint::ToString(set[i]) << " vs "
          << fingerprint::ToString(set[j]);
      if (got) {
        ASSERT_EQ(score, static_cast<float>(*ref));
        ++*accepted;
      }
    }
  }
}

TEST(CtphPair, SameAsCtphEditRateOnRandomSignatures) {
  std::mt19937_64 rng(5);
  long accepted = 0;
  for (double rate : {0.15, 0.4}) {
    Thresholds t;
    t.ctph_edit_rate = rate;
    const PairParams p = MakePairParams(t);
    for (int round = 0; round < 20; ++round) {
      std::vector<fingerprint::Ctph> set;
      for (int k = 0; k < 100; ++k) {
        if (k > 0 && rng() % 2) {
          fingerprint::Ctph c = set[rng() % set.size()];
          c.sig = Mutate(rng, c.sig, static_cast<unsigned>(rng() % 3), 6);
          c.sig2 = Mutate(rng, c.sig2, static_cast<unsigned>(rng() % 2), 6);
          if (rng() % 4 == 0) c.block_size *= 2;
          set.push_back(c);
        } else {
          set.push_back(RandomCtph(rng));
        }
      }
      CheckCtphPairs(set, p, rate, &accepted);
    }
  }
  EXPECT_GT(accepted, 1000);
}

TEST(CtphPair, SameAsCtphEditRateOnRealSignatures) {
  std::vector<fingerprint::Fingerprint> fps =
      testing::FingerprintsUnder(testing::FixtureDir(), 1000);
  const auto corpus = testing::FingerprintsUnder(testing::CorpusDir(), 600);
  fps.insert(fps.end(), corpus.begin(), corpus.end());
  ASSERT_GT(fps.size(), 20u);
  std::vector<fingerprint::Ctph> set;
  for (const auto& fp : fps) set.push_back(fp.ctph);
  long accepted = 0;
  for (double rate : {0.05, 0.15, 0.3}) {
    Thresholds t;
    t.ctph_edit_rate = rate;
    CheckCtphPairs(set, MakePairParams(t), rate, &accepted);
  }
  EXPECT_GT(accepted, static_cast<long>(set.size()));  // more than i == j
  if (corpus.empty())
    GTEST_SKIP() << "fixtures checked; dev corpus absent under "
                 << testing::CorpusDir();
}

TEST(SimHashPair, IsHammingWithinTheDistance) {
  std::mt19937_64 rng(6);
  for (std::uint32_t dist : {0u, 3u, 12u, 64u}) {
    PairParams p = MakePairParams(Thresholds{});
    p.simhash_distance = dist;
    for (int n = 0; n < 20000; ++n) {
      const std::uint64_t a = rng();
      std::uint64_t b = a;
      for (unsigned f = static_cast<unsigned>(rng() % 20); f > 0; --f)
        b ^= std::uint64_t{1} << (rng() % 64);
      float score = -1;
      const std::uint32_t ref = fingerprint::Hamming(a, b);
      ASSERT_EQ(SimHashPair(a, b, p, &score), ref <= dist);
      if (ref <= dist) {
        ASSERT_EQ(score, static_cast<float>(ref));
      }
    }
  }
}

TEST(SketchPair, IsSketchJaccardWithTheWordFilters) {
  std::mt19937_64 rng(7);
  Thresholds t;
  const PairParams p = MakePairParams(t);
  int accepted = 0;
  for (int n = 0; n < 20000; ++n) {
    fingerprint::WordSketch a;
    fingerprint::WordSketch b;
    const unsigned fill = static_cast<unsigned>(rng() % 129);
    for (unsigned i = 0; i < fill; ++i)
      a.slots[i] = static_cast<std::uint16_t>(1 + rng() % 5);
    b = a;
    for (unsigned c = static_cast<unsigned>(rng() % 129); c > 0; --c)
      b.slots[rng() % 128] = static_cast<std::uint16_t>(rng() % 6);
    a.words = static_cast<std::uint32_t>(rng() % 60);
    b.words = static_cast<std::uint32_t>(rng() % 60);
    float score = -1;
    const double j = fingerprint::SketchJaccard(a, b);
    const std::uint32_t lo = std::min(a.words, b.words);
    const std::uint32_t hi = std::max(a.words, b.words);
    const bool want = lo >= t.sketch_min_words &&
                      hi <= t.sketch_length_ratio * lo && j >= t.sketch_jaccard;
    ASSERT_EQ(
        SketchPair(a.slots.data(), a.words, b.slots.data(), b.words, p, &score),
        want);
    if (want) {
      ASSERT_EQ(score, static_cast<float>(j));
      ++accepted;
    }
  }
  EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace mw::gpu::internal
