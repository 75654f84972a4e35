// fingerprint_bench: speed of fingerprinting and of the per-pair comparison
// cores.
//
//   fingerprint_bench [--benchmark_filter=REGEX]
//
// Corpus benchmarks read MW_SOURCE_DIR/../shared/data/mail (parsed and
// normalised once, outside the timing) and are skipped with a message when it
// is absent. Each corpus benchmark reports bytes_per_second over the normalised
// bodies; BM_CorpusSha1 is the baseline in the same run (one SHA-1 over the
// same bytes), and BM_CorpusFingerprint's counter "x_sha1_time" is its thread
// CPU time divided by the SHA-1 CPU time measured in the same process.
#include <benchmark/benchmark.h>
#include <openssl/evp.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "fingerprint/blocks.h"
#include "fingerprint/core.h"
#include "fingerprint/ctph.h"
#include "fingerprint/fingerprint.h"
#include "fingerprint/fold.h"
#include "fingerprint/simhash.h"
#include "mime/message.h"

namespace fp = mw::fingerprint;
namespace fs = std::filesystem;

namespace {

struct Corpus {
  std::vector<std::string> bodies;
  std::size_t bytes = 0;
  std::string error;
};

const Corpus& LoadCorpus() {
  static const Corpus corpus = [] {
    Corpus c;
    const fs::path dir =
        fs::path(MW_SOURCE_DIR) / ".." / "shared" / "data" / "mail";
    if (!fs::is_directory(dir)) {
      c.error =
          "corpus " + dir.string() + " not found; corpus benchmarks skipped";
      return c;
    }
    mw::mime::Init();
    std::vector<fs::path> files;
    for (const auto& sub : fs::directory_iterator(dir)) {
      if (!sub.is_directory()) continue;
      for (const auto& f : fs::directory_iterator(sub.path()))
        files.push_back(f.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& p : files) {
      std::ifstream in(p, std::ios::binary);
      const std::string raw((std::istreambuf_iterator<char>(in)),
                            std::istreambuf_iterator<char>());
      auto m = mw::mime::Parse(std::string_view(raw), mw::mime::Limits{});
      if (!m) continue;
      c.bodies.push_back(mw::mime::Normalise(*m).body);
      c.bytes += c.bodies.back().size();
    }
    return c;
  }();
  return corpus;
}

// CPU time of this thread: on a shared machine wall time also counts the
// other processes, and more for the longer of the two measurements.
double ThreadSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         1e-9 * static_cast<double>(ts.tv_nsec);
}

double Sha1Seconds(const Corpus& c) {
  static const double seconds = [&c] {
    double best = 1e9;
    for (int rep = 0; rep < 5; ++rep) {
      const double t0 = ThreadSeconds();
      for (const std::string& b : c.bodies)
        benchmark::DoNotOptimize(fp::Sha1Of(b));
      best = std::min(best, ThreadSeconds() - t0);
    }
    return best;
  }();
  return seconds;
}

template <typename F>
void CorpusLoop(benchmark::State& state, F&& f) {
  const Corpus& c = LoadCorpus();
  if (!c.error.empty()) {
    state.SkipWithError(c.error.c_str());
    return;
  }
  for (auto _ : state) {
    for (const std::string& b : c.bodies) f(b);
  }
  state.SetBytesProcessed(
      static_cast<std::int64_t>(state.iterations() * c.bytes));
}

void BM_CorpusSha1(benchmark::State& state) {
  CorpusLoop(state, [](const std::string& b) {
    benchmark::DoNotOptimize(fp::Sha1Of(b));
  });
}
BENCHMARK(BM_CorpusSha1)->Unit(benchmark::kMillisecond);

void BM_CorpusFingerprint(benchmark::State& state) {
  const fp::Options options;
  const double t0 = ThreadSeconds();
  CorpusLoop(state, [&](const std::string& b) {
    benchmark::DoNotOptimize(fp::Compute(b, options));
  });
  const double per_iter =
      (ThreadSeconds() - t0) /
      static_cast<double>(std::max<std::int64_t>(1, state.iterations()));
  if (LoadCorpus().error.empty()) {
    state.counters["x_sha1_time"] = per_iter / Sha1Seconds(LoadCorpus());
  }
}
BENCHMARK(BM_CorpusFingerprint)->Unit(benchmark::kMillisecond);

// The stages of Compute, to see where the time goes.
void BM_CorpusFold(benchmark::State& state) {
  const fp::FoldOptions o;
  CorpusLoop(state, [&](const std::string& b) {
    benchmark::DoNotOptimize(fp::Fold(b, o));
  });
}
BENCHMARK(BM_CorpusFold)->Unit(benchmark::kMillisecond);

void BM_CorpusSentences(benchmark::State& state) {
  CorpusLoop(state, [](const std::string& b) {
    benchmark::DoNotOptimize(fp::ComputeBlocks(b, fp::BlockKind::kSentences));
  });
}
BENCHMARK(BM_CorpusSentences)->Unit(benchmark::kMillisecond);

void BM_CorpusLines(benchmark::State& state) {
  CorpusLoop(state, [](const std::string& b) {
    benchmark::DoNotOptimize(fp::ComputeBlocks(b, fp::BlockKind::kParagraphs));
  });
}
BENCHMARK(BM_CorpusLines)->Unit(benchmark::kMillisecond);

void BM_CorpusCtph(benchmark::State& state) {
  CorpusLoop(state, [](const std::string& b) {
    benchmark::DoNotOptimize(fp::ComputeCtph(b));
  });
}
BENCHMARK(BM_CorpusCtph)->Unit(benchmark::kMillisecond);

// SimHash and the word bag (one pass).
void BM_CorpusSimHash(benchmark::State& state) {
  CorpusLoop(state, [](const std::string& b) {
    benchmark::DoNotOptimize(fp::ComputeWordHashes(b));
  });
}
BENCHMARK(BM_CorpusSimHash)->Unit(benchmark::kMillisecond);

// Two 200-block messages sharing 80% of their blocks, shifted a little.
std::pair<std::vector<fp::BlockKey>, std::vector<fp::BlockKey>>
TwoBlockLists() {
  std::mt19937_64 rng(1);
  std::vector<std::uint64_t> a(200);
  for (auto& v : a) v = rng();
  std::vector<std::uint64_t> b = a;
  for (int k = 0; k < 40; ++k) b[rng() % 200] = rng();
  std::rotate(b.begin(), b.begin() + 3, b.end());
  const auto keys = [&rng](const std::vector<std::uint64_t>& v) {
    std::vector<fp::BlockKey> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      out.push_back({v[i], static_cast<std::uint32_t>(i),
                     static_cast<std::uint32_t>(20 + rng() % 100)});
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  return {keys(a), keys(b)};
}

void BM_BlockSimilarity200(benchmark::State& state) {
  const auto [a, b] = TwoBlockLists();
  for (auto _ : state) benchmark::DoNotOptimize(fp::BlockSimilarity(a, b));
}
BENCHMARK(BM_BlockSimilarity200);

void BM_WeightedBlockSimilarity200(benchmark::State& state) {
  const auto [a, b] = TwoBlockLists();
  for (auto _ : state)
    benchmark::DoNotOptimize(fp::WeightedBlockSimilarity(a, b));
}
BENCHMARK(BM_WeightedBlockSimilarity200);

// What Compare does for one pair of 200-block sentence lists (both
// similarities, CTPH, SimHash).
void BM_Compare200(benchmark::State& state) {
  const auto [a, b] = TwoBlockLists();
  fp::Fingerprint fa;
  fp::Fingerprint fb;
  fa.body_bytes = fb.body_bytes = 10000;
  fa.body_sha1[0] = 1;
  fa.blocks.keys = a;
  fb.blocks.keys = b;
  fa.blocks.hashes.resize(200);
  fb.blocks.hashes.resize(200);
  std::mt19937_64 rng(3);
  std::string text;
  while (text.size() < 10000)
    text += std::to_string(rng()) + (rng() % 8 ? " " : ".\n");
  fa.ctph = fp::ComputeCtph(text);
  text.insert(5000, "an inserted sentence. ");
  fb.ctph = fp::ComputeCtph(text);
  const fp::Options o;
  for (auto _ : state) benchmark::DoNotOptimize(fp::Compare(fa, fb, o));
}
BENCHMARK(BM_Compare200);

// The 64 symbols of CTPH signatures.
constexpr char kB64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string RandomSignature(std::mt19937_64& rng) {
  std::string s(64, 'A');
  for (char& c : s) c = kB64[rng() % 64];
  return s;
}

// Two 64-symbol CTPH-like signatures differing in a few places.
std::pair<std::string, std::string> TwoSignatures() {
  std::mt19937_64 rng(2);
  const std::string a = RandomSignature(rng);
  std::string b = a;
  for (int k = 0; k < 6; ++k) b[rng() % 64] = kB64[rng() % 64];
  b.erase(10, 2);
  b.insert(40, "xy");
  return {a, b};
}

// Two independent random 64-symbol signatures: what a store mostly compares.
std::pair<std::string, std::string> TwoUnrelatedSignatures() {
  std::mt19937_64 rng(3);
  std::string a = RandomSignature(rng);
  return {a, RandomSignature(rng)};
}

// One pair alone, through the dispatched MyersDistance (AVX-512 where the CPU
// has it) and through the one-chain scalar code, on a near-duplicate pair and
// on an unrelated one.
template <std::uint32_t (*kDistance)(std::string_view, std::string_view),
          std::pair<std::string, std::string> (*kPair)()>
void BM_Myers64(benchmark::State& state) {
  const auto [a, b] = kPair();
  for (auto _ : state) {
    benchmark::DoNotOptimize(a.data());
    benchmark::DoNotOptimize(b.data());
    benchmark::DoNotOptimize(kDistance(a, b));
  }
}
BENCHMARK(BM_Myers64<fp::MyersDistance, TwoSignatures>)->Name("BM_Myers64");
BENCHMARK(BM_Myers64<fp::internal::MyersDistanceScalar, TwoSignatures>)
    ->Name("BM_Myers64Scalar");
BENCHMARK(BM_Myers64<fp::MyersDistance, TwoUnrelatedSignatures>)
    ->Name("BM_Myers64Unrelated");
BENCHMARK(BM_Myers64<fp::internal::MyersDistanceScalar, TwoUnrelatedSignatures>)
    ->Name("BM_Myers64UnrelatedScalar");

// One 64-symbol query against 64 candidate signatures (what a store does), per
// pair: the dispatched MyersDistances (AVX2 where the CPU has it) and the
// portable four-lane path.
template <void (*kBatch)(std::string_view, std::span<const std::string_view>,
                         std::span<std::uint32_t>)>
void BM_Myers64Batch(benchmark::State& state) {
  const auto [a, b] = TwoSignatures();
  std::mt19937_64 rng(4);
  std::vector<std::string> texts(64, b);
  for (auto& t : texts) t[rng() % t.size()] = kB64[rng() % 64];
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  std::vector<std::uint32_t> out(texts.size());
  for (auto _ : state) {
    kBatch(a, views, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() *
                          static_cast<std::int64_t>(texts.size()));
}
BENCHMARK(BM_Myers64Batch<fp::MyersDistances>)->Name("BM_Myers64Batch");
BENCHMARK(BM_Myers64Batch<fp::internal::MyersDistancesPortable>)
    ->Name("BM_Myers64BatchPortable");

// Baseline: the plain O(n·m) DP with two rows.
std::uint32_t DpDistance(std::string_view a, std::string_view b) {
  std::uint32_t prev[65];
  std::uint32_t cur[65];
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = static_cast<std::uint32_t>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<std::uint32_t>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1,
                         prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)});
    }
    std::copy(cur, cur + b.size() + 1, prev);
  }
  return prev[b.size()];
}

void BM_Dp64(benchmark::State& state) {
  const auto [a, b] = TwoSignatures();
  for (auto _ : state) {
    benchmark::DoNotOptimize(a.data());
    benchmark::DoNotOptimize(DpDistance(a, b));
  }
}
BENCHMARK(BM_Dp64);

void BM_Hamming(benchmark::State& state) {
  std::uint64_t a = 0x0123456789abcdefULL;
  const std::uint64_t b = 0xfedcba9876543210ULL;
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(fp::Hamming(a, b));
  }
}
BENCHMARK(BM_Hamming);

}  // namespace

BENCHMARK_MAIN();
