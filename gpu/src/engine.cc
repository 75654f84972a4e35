#include "gpu/engine.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cpu_run.h"
#include "window.h"
#if defined(MW_HAVE_CUDA)
#include "cuda_engine.h"
#endif

namespace mw::gpu {
namespace {

using internal::SoaStore;

// The CPU backend: the window in host memory, the kernels' bodies run over
// their grids by threads (cpu_run.h).
class CpuEngine final : public Engine {
 public:
  explicit CpuEngine(unsigned threads) : threads_(threads) {}

  std::string_view Name() const override { return "cpu"; }

  Result<void> Add(std::uint64_t id, const Signature& sig) override {
    window_.Add(id, sig);
    window_.ClearDirty();  // no device mirror to update
    return {};
  }
  Result<void> Remove(std::uint64_t id) override {
    window_.Remove(id);
    window_.ClearDirty();
    return {};
  }
  std::size_t WindowSize() const override { return window_.size(); }

  Result<std::vector<WindowMatch>> Query(
      std::span<const Signature> queries, Kind kind,
      const Thresholds& thresholds) override {
    const SoaStore q(queries);
    const std::vector<internal::PairMatch> raw = internal::CollectQuery(
        static_cast<unsigned>(kind), q.View(), window_.store().View(),
        internal::MakePairParams(thresholds), threads_);
    return internal::ToWindowMatches(raw, window_);
  }

  Result<std::vector<Match>> AllPairs(std::span<const Signature> set, Kind kind,
                                      const Thresholds& thresholds) override {
    const SoaStore s(set);
    const std::vector<internal::PairMatch> raw = internal::CollectAllPairs(
        static_cast<unsigned>(kind), s.View(),
        internal::MakePairParams(thresholds), threads_);
    return internal::ToMatches(raw);
  }

 private:
  unsigned threads_;
  internal::Window window_;
};

}  // namespace

Signature ToSignature(const fingerprint::Fingerprint& fp) {
  Signature s;
  s.ctph_block = fp.ctph.block_size;
  // A signature longer than a slot is stored as absent: CtphEditRate does not
  // compare signatures over kCtphMaxLength symbols either.
  if (fp.ctph.sig.size() <= fingerprint::kCtphMaxLength) {
    s.ctph_len = static_cast<std::uint8_t>(fp.ctph.sig.size());
    std::memcpy(s.ctph, fp.ctph.sig.data(), fp.ctph.sig.size());
  }
  if (fp.ctph.sig2.size() <= fingerprint::kCtphMaxLength) {
    s.ctph2_len = static_cast<std::uint8_t>(fp.ctph.sig2.size());
    std::memcpy(s.ctph2, fp.ctph.sig2.data(), fp.ctph.sig2.size());
  }
  s.simhash = fp.simhash;
  s.words = fp.sketch.words;
  std::copy(fp.sketch.slots.begin(), fp.sketch.slots.end(), s.sketch);
  return s;
}

Result<Backend> ParseBackend(std::string_view name) {
  if (name == "auto") return Backend::kAuto;
  if (name == "cpu") return Backend::kCpu;
  if (name == "cuda") return Backend::kCuda;
  return Fail(Error::InvalidArgument("unknown backend \"" + std::string(name) +
                                     "\" (auto, cpu or cuda)"));
}

Result<std::unique_ptr<Engine>> MakeEngine(Backend backend, unsigned threads,
                                           std::string* fallback_reason) {
  if (backend == Backend::kCpu)
    return std::unique_ptr<Engine>(std::make_unique<CpuEngine>(threads));
#if defined(MW_HAVE_CUDA)
  auto cuda = internal::MakeCudaEngine();
  if (cuda) return std::move(*cuda);
  const std::string reason = cuda.error().message();
#else
  const std::string reason =
      "built without CUDA (no nvcc found, or MW_WITH_CUDA=OFF)";
#endif
  if (backend == Backend::kCuda) return Fail(Error::Unavailable(reason));
  if (fallback_reason != nullptr) *fallback_reason = reason;
  return std::unique_ptr<Engine>(std::make_unique<CpuEngine>(threads));
}

}  // namespace mw::gpu
