// GPU parity (STYLE.md section 8): the CUDA engine gives the CPU engine's
// answers on the same batches. Skipped, saying so, where the build has no
// CUDA backend or the machine no usable device.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/engine.h"
#include "gpu/synthetic.h"

namespace mw::gpu {
namespace {

std::unique_ptr<Engine> CudaOrSkipReason(std::string* reason) {
  auto e = MakeEngine(Backend::kCuda);
  if (!e) {
    *reason = e.error().message();
    return nullptr;
  }
  return std::move(*e);
}

#define MW_REQUIRE_CUDA(engine)                                       \
  std::string reason;                                                 \
  std::unique_ptr<Engine> engine = CudaOrSkipReason(&reason);         \
  if (!engine) {                                                      \
    GTEST_SKIP() << "no CUDA device, GPU parity not run: " << reason; \
  }

constexpr Kind kKinds[] = {Kind::kCtph, Kind::kSimHash, Kind::kSketch};

TEST(Cuda, UnavailableIsAnErrorNotACrash) {
  auto e = MakeEngine(Backend::kCuda);
  if (e) {
    EXPECT_EQ((*e)->Name(), "cuda");
    return;
  }
  EXPECT_EQ(e.error().code(), Error::Code::kUnavailable);
  EXPECT_FALSE(e.error().message().empty());
}

TEST(Cuda, AllPairsSameAsCpu) {
  MW_REQUIRE_CUDA(cuda);
  auto cpu = MakeEngine(Backend::kCpu);
  ASSERT_TRUE(cpu.has_value());
  SyntheticOptions o;
  o.near_share = 0.3;
  const std::vector<Signature> set = SyntheticSignatures(3001, 21, o);
  Thresholds t;
  t.ctph_edit_rate = 0.2;
  t.simhash_distance = 4;
  for (Kind kind : kKinds) {
    auto want = (*cpu)->AllPairs(set, kind, t);
    auto got = cuda->AllPairs(set, kind, t);
    ASSERT_TRUE(want.has_value());
    ASSERT_TRUE(got.has_value()) << got.error().message();
    EXPECT_EQ(*got, *want) << static_cast<int>(kind);
  }
}

TEST(Cuda, WindowSameAsCpuThroughAddRemoveAndGrowth) {
  MW_REQUIRE_CUDA(cuda);
  auto cpu_r = MakeEngine(Backend::kCpu);
  ASSERT_TRUE(cpu_r.has_value());
  Engine& cpu = **cpu_r;
  SyntheticOptions o;
  o.near_share = 0.3;
  const std::vector<Signature> sigs = SyntheticSignatures(5000, 22, o);
  const std::vector<Signature> queries(sigs.end() - 100, sigs.end());
  Thresholds t;
  t.ctph_edit_rate = 0.2;
  t.simhash_distance = 4;
  for (std::size_t k = 0; k < sigs.size(); ++k) {
    ASSERT_TRUE(cuda->Add(k * 3, sigs[k]));
    ASSERT_TRUE(cpu.Add(k * 3, sigs[k]));
    // Queries between changes: the device copy follows the host one.
    if (k % 1500 == 1499) {
      for (Kind kind : kKinds) {
        auto want = cpu.Query(queries, kind, t);
        auto got = cuda->Query(queries, kind, t);
        ASSERT_TRUE(got.has_value()) << got.error().message();
        EXPECT_EQ(*got, *want);
      }
    }
    if (k % 7 == 0) {
      ASSERT_TRUE(cuda->Remove(k * 3 / 2));
      ASSERT_TRUE(cpu.Remove(k * 3 / 2));
    }
  }
  EXPECT_EQ(cuda->WindowSize(), cpu.WindowSize());
  for (Kind kind : kKinds) {
    auto want = cpu.Query(queries, kind, t);
    auto got = cuda->Query(queries, kind, t);
    ASSERT_TRUE(got.has_value()) << got.error().message();
    EXPECT_EQ(*got, *want);
  }
}

}  // namespace
}  // namespace mw::gpu
