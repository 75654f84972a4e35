// Host-side owners of the structure-of-arrays layout the kernels read
// (kernels.h SoaView), and the window: slots named by the caller's ids.
//
// Thread-safety: none; the engine that owns one serialises access.
#ifndef MW_GPU_SRC_WINDOW_H_
#define MW_GPU_SRC_WINDOW_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "gpu/engine.h"
#include "kernels.h"

namespace mw::gpu::internal {

// The arrays of the layout, in SoaView's order, and the bytes each takes a
// slot: the one list the host store and the device mirror both follow.
inline constexpr std::size_t kSoaArrays = 12;
inline constexpr std::size_t kSoaSlotBytes[kSoaArrays] = {
    4, 1, 1, kCtphSlot, kCtphSlot,      8 * kGramWords, 8 * kGramWords,
    1, 1, 8, 4,         2 * kSketchBins};

// A view of n slots over `arrays`, kSoaArrays pointers in that order (host or
// device memory).
SoaView ViewOf(std::uint32_t n, const void* const (&arrays)[kSoaArrays]);

// Signatures in fixed-width slots, with the 2-gram summaries precomputed.
class SoaStore {
 public:
  SoaStore() = default;
  explicit SoaStore(std::span<const Signature> sigs);

  std::uint32_t size() const { return static_cast<std::uint32_t>(n_); }
  void Reserve(std::size_t n);
  void PushBack(const Signature& sig);
  void Set(std::size_t slot, const Signature& sig);
  // Slot `from` copied over slot `to`.
  void Move(std::size_t from, std::size_t to);
  void PopBack();
  // The signature in `slot` (the inverse of Set).
  Signature Get(std::size_t slot) const;

  // Valid until the next change.
  SoaView View() const;
  // The arrays' first bytes, in SoaView's order, for copying to a device
  // (CUDA backend); array a holds size() * kSoaSlotBytes[a] bytes. Valid
  // until the next change.
  void Arrays(const void* (&out)[kSoaArrays]) const;

 private:
  // fn(array, elements a slot) for each array of `self`, in SoaView's order.
  template <typename Self, typename Fn>
  static void ForEachArray(Self& self, const Fn& fn);
  void Resize(std::size_t n);

  std::size_t n_ = 0;
  std::vector<std::uint32_t> block_;
  std::vector<std::uint8_t> len_, len2_;
  std::vector<std::uint8_t> ctph_, ctph2_;
  std::vector<std::uint64_t> grams_, grams2_;
  std::vector<std::uint8_t> extra_, extra2_;
  std::vector<std::uint64_t> simhash_;
  std::vector<std::uint32_t> words_;
  std::vector<std::uint16_t> sketch_;
};

// The window: a SoaStore whose slots are named by 64-bit ids. Remove moves the
// last slot into the freed one, so the slots stay dense.
class Window {
 public:
  // Adds `sig` as `id`, or replaces the signature of a known id in place.
  // Returns the slot.
  std::size_t Add(std::uint64_t id, const Signature& sig);
  // Removes `id` (ignored when unknown): the freed slot takes what was the
  // last one, and the window shrinks by one.
  void Remove(std::uint64_t id);

  std::size_t size() const { return ids_.size(); }
  std::uint64_t IdOf(std::size_t slot) const { return ids_[slot]; }
  const std::vector<std::uint64_t>& ids() const { return ids_; }
  const SoaStore& store() const { return store_; }

  // Lowest and highest slot changed since the last ClearDirty (a device
  // mirror copies that range); dirty_begin() >= dirty_end() when none.
  std::size_t dirty_begin() const { return dirty_begin_; }
  std::size_t dirty_end() const { return dirty_end_; }
  void ClearDirty();

 private:
  void Touch(std::size_t slot);

  SoaStore store_;
  std::vector<std::uint64_t> ids_;
  std::unordered_map<std::uint64_t, std::size_t> slot_of_;
  std::size_t dirty_begin_ = 0;
  std::size_t dirty_end_ = 0;
};

// The kernels' thresholds from the public ones (the kmax table, see
// PairParams).
PairParams MakePairParams(const Thresholds& t);

// Sorts matches and maps window slots to ids (Query's documented order).
std::vector<Engine::WindowMatch> ToWindowMatches(
    std::span<const PairMatch> matches, const Window& window);
// Sorts all-pairs matches by (i, j).
std::vector<Match> ToMatches(std::span<const PairMatch> matches);

}  // namespace mw::gpu::internal

#endif  // MW_GPU_SRC_WINDOW_H_
