// The CUDA backend: the window's structure of arrays resident in device
// memory, mirrored from a host Window (window.h) that stays the authority.
// Add and Remove change the host copy and mark the slots they touched; the
// next Query copies the marked range (or everything, after the device arrays
// grew by doubling). Matches are compacted on the device by the kernels'
// atomic counter; an overflow is re-run with a buffer of the exact size.
//
// Every CUDA call is checked; a failure (no device, device lost, out of
// memory) becomes kUnavailable with the CUDA error string, and the caller
// (the worker, or `mailwave scan`) falls back to the CPU engine.
#include "cuda_engine.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_launch.h"
#include "window.h"

namespace mw::gpu::internal {
namespace {

Error CudaError(std::string_view what, cudaError_t e) {
  return Error::Unavailable("cuda: " + std::string(what) + ": " +
                            cudaGetErrorString(e));
}

// One device allocation, freed by its owner.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }

  // At least `bytes`, the old contents lost.
  cudaError_t Reserve(std::size_t bytes) {
    if (bytes <= bytes_) return cudaSuccess;
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
    const cudaError_t e = cudaMalloc(&ptr_, bytes);
    if (e == cudaSuccess) bytes_ = bytes;
    return e;
  }
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// The device copy of a SoaStore: one buffer per array.
class DeviceSoa {
 public:
  std::size_t capacity() const { return capacity_; }

  // Room for `n` slots; contents lost when it grows (doubling).
  cudaError_t Reserve(std::size_t n) {
    if (n <= capacity_) return cudaSuccess;
    std::size_t cap = capacity_ == 0 ? 1024 : capacity_;
    while (cap < n) cap *= 2;
    for (std::size_t a = 0; a < kSoaArrays; ++a) {
      const cudaError_t e = buf_[a].Reserve(cap * kSoaSlotBytes[a]);
      if (e != cudaSuccess) return e;
    }
    capacity_ = cap;
    return cudaSuccess;
  }

  // Slots [begin, end) of `s` to the device. REQUIRES: end <= capacity().
  cudaError_t Upload(const SoaStore& s, std::size_t begin, std::size_t end) {
    if (begin >= end) return cudaSuccess;
    const void* host[kSoaArrays];
    s.Arrays(host);
    for (std::size_t a = 0; a < kSoaArrays; ++a) {
      const std::size_t w = kSoaSlotBytes[a];
      const cudaError_t e =
          cudaMemcpy(static_cast<char*>(buf_[a].get()) + begin * w,
                     static_cast<const char*>(host[a]) + begin * w,
                     (end - begin) * w, cudaMemcpyHostToDevice);
      if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
  }

  SoaView View(std::uint32_t n) const {
    const void* arrays[kSoaArrays];
    for (std::size_t a = 0; a < kSoaArrays; ++a) arrays[a] = buf_[a].get();
    return ViewOf(n, arrays);
  }

 private:
  std::size_t capacity_ = 0;
  DeviceBuffer buf_[kSoaArrays];
};

class CudaEngine final : public Engine {
 public:
  std::string_view Name() const override { return "cuda"; }

  Result<void> Add(std::uint64_t id, const Signature& sig) override {
    window_.Add(id, sig);
    return {};
  }
  Result<void> Remove(std::uint64_t id) override {
    window_.Remove(id);
    return {};
  }
  std::size_t WindowSize() const override { return window_.size(); }

  Result<std::vector<WindowMatch>> Query(
      std::span<const Signature> queries, Kind kind,
      const Thresholds& thresholds) override {
    if (auto r = SyncWindow(); !r) return Fail(r.error());
    const SoaStore q(queries);
    if (auto r = Upload(q, &queries_); !r) return Fail(r.error());
    const SoaView qv = queries_.View(q.size());
    const SoaView wv =
        window_dev_.View(static_cast<std::uint32_t>(window_.size()));
    const PairParams p = MakePairParams(thresholds);
    auto raw = Run([&](const Output& out) {
      return LaunchQuery(static_cast<unsigned>(kind), qv, wv, p, out);
    });
    if (!raw) return Fail(raw.error());
    return ToWindowMatches(*raw, window_);
  }

  Result<std::vector<Match>> AllPairs(std::span<const Signature> set, Kind kind,
                                      const Thresholds& thresholds) override {
    const SoaStore s(set);
    if (auto r = Upload(s, &set_); !r) return Fail(r.error());
    const SoaView sv = set_.View(s.size());
    const PairParams p = MakePairParams(thresholds);
    auto raw = Run([&](const Output& out) {
      return LaunchAllPairs(static_cast<unsigned>(kind), sv, p, out);
    });
    if (!raw) return Fail(raw.error());
    return ToMatches(*raw);
  }

 private:
  Result<void> SyncWindow() {
    const std::size_t n = window_.size();
    std::size_t begin = window_.dirty_begin();
    std::size_t end = window_.dirty_end();
    if (n > window_dev_.capacity()) {
      // Grown: the new arrays start empty, so everything goes up.
      if (cudaError_t e = window_dev_.Reserve(n); e != cudaSuccess)
        return Fail(CudaError("window allocation", e));
      begin = 0;
      end = n;
    }
    if (end > n) end = n;
    if (cudaError_t e = window_dev_.Upload(window_.store(), begin, end);
        e != cudaSuccess)
      return Fail(CudaError("window upload", e));
    window_.ClearDirty();
    return {};
  }

  static Result<void> Upload(const SoaStore& s, DeviceSoa* dev) {
    if (cudaError_t e = dev->Reserve(s.size()); e != cudaSuccess)
      return Fail(CudaError("allocation", e));
    if (cudaError_t e = dev->Upload(s, 0, s.size()); e != cudaSuccess)
      return Fail(CudaError("upload", e));
    return {};
  }

  // Runs `launch` into the device output buffer; on overflow grows it to the
  // exact count and runs again. Every match, unordered.
  template <typename Launch>
  Result<std::vector<PairMatch>> Run(const Launch& launch) {
    if (cudaError_t e = count_.Reserve(sizeof(unsigned long long));
        e != cudaSuccess)
      return Fail(CudaError("allocation", e));
    for (;;) {
      if (cudaError_t e = matches_.Reserve(capacity_ * sizeof(PairMatch));
          e != cudaSuccess)
        return Fail(CudaError("allocation", e));
      if (cudaError_t e =
              cudaMemset(count_.get(), 0, sizeof(unsigned long long));
          e != cudaSuccess)
        return Fail(CudaError("memset", e));
      const Output out{static_cast<PairMatch*>(matches_.get()), capacity_,
                       static_cast<unsigned long long*>(count_.get())};
      if (const int e = launch(out); e != 0)
        return Fail(CudaError("launch", static_cast<cudaError_t>(e)));
      unsigned long long count = 0;
      // Synchronises with the kernels: their errors surface here.
      if (cudaError_t e = cudaMemcpy(&count, count_.get(), sizeof(count),
                                     cudaMemcpyDeviceToHost);
          e != cudaSuccess)
        return Fail(CudaError("kernel", e));
      if (count > capacity_) {
        capacity_ = count;
        continue;
      }
      std::vector<PairMatch> out_host(count);
      if (count > 0) {
        if (cudaError_t e =
                cudaMemcpy(out_host.data(), matches_.get(),
                           count * sizeof(PairMatch), cudaMemcpyDeviceToHost);
            e != cudaSuccess)
          return Fail(CudaError("download", e));
      }
      return out_host;
    }
  }

  Window window_;
  DeviceSoa window_dev_;
  DeviceSoa queries_;
  DeviceSoa set_;
  DeviceBuffer matches_;
  DeviceBuffer count_;
  unsigned long long capacity_ = 1 << 16;
};

}  // namespace

Result<std::unique_ptr<Engine>> MakeCudaEngine() {
  int devices = 0;
  if (cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess)
    return Fail(CudaError("no usable device", e));
  if (devices == 0) return Fail(Error::Unavailable("cuda: no device present"));
  if (cudaError_t e = cudaSetDevice(0); e != cudaSuccess)
    return Fail(CudaError("device 0", e));
  // Creates the context now, so a broken driver fails here, not mid-query.
  if (cudaError_t e = cudaFree(nullptr); e != cudaSuccess)
    return Fail(CudaError("context", e));
  return std::unique_ptr<Engine>(std::make_unique<CudaEngine>());
}

}  // namespace mw::gpu::internal
