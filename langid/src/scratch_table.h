// The per-text tables of Collect's memo: an open-addressing hash table of
// slots reused from text to text, and a growable array that keeps its storage
// (private to mw::langid; detect.cc's Scratch holds them).
#ifndef MW_LANGID_SRC_SCRATCH_TABLE_H_
#define MW_LANGID_SRC_SCRATCH_TABLE_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace mw::langid::internal {

// Open-addressing table (linear probing, doubled at half load) of the words or
// trigrams of one text. Its storage is kept per thread and reused by the next
// text: a slot is in use when its `gen` is the current text's generation, so
// starting a text costs nothing, and the pages of a fresh allocation are not
// faulted in on every call. `Slot` has `gen` and `hash` members.
template <typename Slot>
class ScratchTable {
 public:
  // Starts a text; `capacity` is a power of two, the first table size.
  void Reset(std::size_t capacity) {
    if (++gen_ == 0) {
      for (Slot& s : slots_) s.gen = 0;
      for (Slot& s : spare_) s.gen = 0;
      gen_ = 1;
    }
    used_ = 0;
    capacity_ = capacity;
    if (slots_.size() < capacity_) slots_.resize(capacity_);
  }

  // Ends a text: a table that grew beyond kMaxKeptSlots (a huge text) gives
  // its memory back, so that an idle table holds at most kMaxKeptBytes.
  void Trim() {
    if (OverKept()) Free();
  }
  // Whether Trim would give the table's memory back.
  bool OverKept() const {
    return slots_.capacity() > kMaxKeptSlots ||
           spare_.capacity() > kMaxKeptSlots;
  }
  // Gives the memory back and forgets every slot (Reset starts it again).
  void Free() {
    std::vector<Slot>().swap(slots_);
    std::vector<Slot>().swap(spare_);
    capacity_ = 0;
    used_ = 0;
  }

  // Slots in use, and the current table size (0 once Trim gave it back).
  std::size_t used() const { return used_; }
  std::size_t capacity() const { return capacity_; }

  // The heap memory the table holds.
  std::size_t HeldBytes() const {
    return (slots_.capacity() + spare_.capacity()) * sizeof(Slot);
  }

  // At most 16384 slots kept per vector (0.75 MiB of words, 1.1 MiB of
  // trigrams, each twice): enough for texts of about 100 KB.
  static constexpr std::size_t kMaxKeptSlots = std::size_t{1} << 14;
  static constexpr std::size_t kMaxKeptBytes = 2 * kMaxKeptSlots * sizeof(Slot);

  // A cache hint for a later Find(hash): the slot where its probe starts.
  void Prefetch(std::uint64_t hash) const {
    __builtin_prefetch(slots_.data() + (hash & (capacity_ - 1)));
  }

  // Makes room for `extra` new slots, so that slots returned by the next
  // `extra` calls of Find stay where they are.
  void Reserve(std::size_t extra) {
    while (2 * (used_ + extra) > capacity_) Grow();
  }

  // The slot whose hash is `hash` and for which `same(slot)` holds; else a new
  // slot holding only `hash` (`*fresh` is then true; the caller fills it).
  template <typename Same>
  Slot* Find(std::uint64_t hash, Same same, bool* fresh) {
    if (2 * (used_ + 1) > capacity_) Grow();
    const std::size_t mask = capacity_ - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.gen != gen_) {
        s = Slot();
        s.gen = gen_;
        s.hash = hash;
        ++used_;
        *fresh = true;
        return &s;
      }
      if (s.hash == hash && same(s)) {
        *fresh = false;
        return &s;
      }
    }
  }

 private:
  void Grow() {
    const std::size_t capacity = 2 * capacity_;
    if (spare_.size() < capacity) spare_.resize(capacity);
    const std::size_t mask = capacity - 1;
    for (std::size_t k = 0; k < capacity_; ++k) {
      Slot& s = slots_[k];
      if (s.gen != gen_) continue;
      std::size_t i = s.hash & mask;
      while (spare_[i].gen == gen_) i = (i + 1) & mask;
      spare_[i] = s;
      s.gen = 0;  // free again when this vector is the spare
    }
    slots_.swap(spare_);
    capacity_ = capacity;
  }

  std::vector<Slot> slots_;
  std::vector<Slot> spare_;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  std::uint32_t gen_ = 0;
};

// A growable array of a trivially copyable T whose new elements are left
// uninitialised (std::vector::resize zeroes them, and the memo extends its
// arrays once per distinct word or trigram, then writes every element).
template <typename T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }
  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  void clear() { size_ = 0; }
  // Appends `n` elements for the caller to write; returns the first.
  T* Extend(std::size_t n) {
    if (size_ + n > capacity_) {
      const std::size_t capacity = std::max(size_ + n, 2 * capacity_);
      std::unique_ptr<T[]> bigger(new T[capacity]);
      if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_ * sizeof(T));
      data_ = std::move(bigger);
      capacity_ = capacity;
    }
    T* first = data_.get() + size_;
    size_ += n;
    return first;
  }
  // Appends a copy of `from[0, n)` (REQUIRES: not inside this array);
  // returns the index of its first element.
  std::uint32_t Append(const T* from, std::size_t n) {
    const auto first = static_cast<std::uint32_t>(size_);
    if (n > 0) std::memcpy(Extend(n), from, n * sizeof(T));
    return first;
  }
  // Drops the elements from `size` on.
  void Truncate(std::size_t size) { size_ = std::min(size_, size); }
  // Frees the storage when it holds more than `max_bytes`.
  void Trim(std::size_t max_bytes) {
    if (capacity_ * sizeof(T) > max_bytes) {
      data_.reset();
      size_ = capacity_ = 0;
    }
  }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace mw::langid::internal

#endif  // MW_LANGID_SRC_SCRATCH_TABLE_H_
