#include "window.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace mw::gpu::internal {

SoaStore::SoaStore(std::span<const Signature> sigs) {
  Reserve(sigs.size());
  for (const Signature& s : sigs) PushBack(s);
}

template <typename Self, typename Fn>
void SoaStore::ForEachArray(Self& self, const Fn& fn) {
  std::size_t a = 0;
  const auto each = [&](auto& array) {
    assert(kSoaSlotBytes[a] % sizeof(array[0]) == 0);
    fn(array, kSoaSlotBytes[a++] / sizeof(array[0]));
  };
  each(self.block_);
  each(self.len_);
  each(self.len2_);
  each(self.ctph_);
  each(self.ctph2_);
  each(self.grams_);
  each(self.grams2_);
  each(self.extra_);
  each(self.extra2_);
  each(self.simhash_);
  each(self.words_);
  each(self.sketch_);
  assert(a == kSoaArrays);
}

void SoaStore::Reserve(std::size_t n) {
  ForEachArray(*this,
               [&](auto& array, std::size_t w) { array.reserve(n * w); });
}

void SoaStore::Resize(std::size_t n) {
  n_ = n;
  ForEachArray(*this, [&](auto& array, std::size_t w) { array.resize(n * w); });
}

void SoaStore::PushBack(const Signature& sig) {
  Resize(n_ + 1);
  Set(n_ - 1, sig);
}

void SoaStore::Set(std::size_t k, const Signature& sig) {
  static_assert(sizeof(sig.ctph) == kCtphSlot);
  static_assert(sizeof(sig.sketch) == kSketchBins * sizeof(std::uint16_t));
  // A length past the slot cannot be compared (CtphEditRate's rule for
  // signatures over 64 symbols): stored as empty.
  const unsigned l1 = sig.ctph_len <= kCtphSlot ? sig.ctph_len : 0;
  const unsigned l2 = sig.ctph2_len <= kCtphSlot ? sig.ctph2_len : 0;
  block_[k] = sig.ctph_block;
  len_[k] = static_cast<std::uint8_t>(l1);
  len2_[k] = static_cast<std::uint8_t>(l2);
  // Bytes past the length are zeroed so equal signatures have equal slots.
  std::uint8_t* c1 = &ctph_[k * kCtphSlot];
  std::uint8_t* c2 = &ctph2_[k * kCtphSlot];
  std::memset(c1, 0, kCtphSlot);
  std::memset(c2, 0, kCtphSlot);
  std::memcpy(c1, sig.ctph, l1);
  std::memcpy(c2, sig.ctph2, l2);
  GramSummary(c1, l1, &grams_[k * kGramWords], &extra_[k]);
  GramSummary(c2, l2, &grams2_[k * kGramWords], &extra2_[k]);
  simhash_[k] = sig.simhash;
  words_[k] = sig.words;
  std::memcpy(&sketch_[k * kSketchBins], sig.sketch, sizeof(sig.sketch));
}

Signature SoaStore::Get(std::size_t k) const {
  Signature s;
  s.ctph_block = block_[k];
  s.ctph_len = len_[k];
  s.ctph2_len = len2_[k];
  std::memcpy(s.ctph, &ctph_[k * kCtphSlot], kCtphSlot);
  std::memcpy(s.ctph2, &ctph2_[k * kCtphSlot], kCtphSlot);
  s.simhash = simhash_[k];
  s.words = words_[k];
  std::memcpy(s.sketch, &sketch_[k * kSketchBins], sizeof(s.sketch));
  return s;
}

void SoaStore::Move(std::size_t from, std::size_t to) {
  if (from == to) return;
  ForEachArray(*this, [&](auto& array, std::size_t w) {
    std::copy_n(array.begin() + from * w, w, array.begin() + to * w);
  });
}

void SoaStore::PopBack() { Resize(n_ - 1); }

void SoaStore::Arrays(const void* (&out)[kSoaArrays]) const {
  std::size_t a = 0;
  ForEachArray(
      *this, [&](const auto& array, std::size_t) { out[a++] = array.data(); });
}

SoaView SoaStore::View() const {
  const void* arrays[kSoaArrays];
  Arrays(arrays);
  return ViewOf(static_cast<std::uint32_t>(n_), arrays);
}

SoaView ViewOf(std::uint32_t n, const void* const (&arrays)[kSoaArrays]) {
  SoaView v;
  v.n = n;
  v.block = static_cast<const std::uint32_t*>(arrays[0]);
  v.len = static_cast<const std::uint8_t*>(arrays[1]);
  v.len2 = static_cast<const std::uint8_t*>(arrays[2]);
  v.ctph = static_cast<const std::uint8_t*>(arrays[3]);
  v.ctph2 = static_cast<const std::uint8_t*>(arrays[4]);
  v.grams = static_cast<const std::uint64_t*>(arrays[5]);
  v.grams2 = static_cast<const std::uint64_t*>(arrays[6]);
  v.extra = static_cast<const std::uint8_t*>(arrays[7]);
  v.extra2 = static_cast<const std::uint8_t*>(arrays[8]);
  v.simhash = static_cast<const std::uint64_t*>(arrays[9]);
  v.words = static_cast<const std::uint32_t*>(arrays[10]);
  v.sketch = static_cast<const std::uint16_t*>(arrays[11]);
  return v;
}

std::size_t Window::Add(std::uint64_t id, const Signature& sig) {
  const auto it = slot_of_.find(id);
  if (it != slot_of_.end()) {
    store_.Set(it->second, sig);
    Touch(it->second);
    return it->second;
  }
  const std::size_t slot = ids_.size();
  store_.PushBack(sig);
  ids_.push_back(id);
  slot_of_.emplace(id, slot);
  Touch(slot);
  return slot;
}

void Window::Remove(std::uint64_t id) {
  const auto it = slot_of_.find(id);
  if (it == slot_of_.end()) return;
  const std::size_t slot = it->second;
  const std::size_t last = ids_.size() - 1;
  slot_of_.erase(it);
  if (slot != last) {
    store_.Move(last, slot);
    ids_[slot] = ids_[last];
    slot_of_[ids_[slot]] = slot;
    Touch(slot);
  }
  store_.PopBack();
  ids_.pop_back();
  // A dirty range past the end shrinks with the window.
  dirty_end_ = std::min(dirty_end_, ids_.size());
}

void Window::Touch(std::size_t slot) {
  if (dirty_begin_ >= dirty_end_) {
    dirty_begin_ = slot;
    dirty_end_ = slot + 1;
  } else {
    dirty_begin_ = std::min(dirty_begin_, slot);
    dirty_end_ = std::max(dirty_end_, slot + 1);
  }
}

void Window::ClearDirty() { dirty_begin_ = dirty_end_ = 0; }

PairParams MakePairParams(const Thresholds& t) {
  PairParams p{};
  p.kmax[0] = -1;  // two empty signatures are never compared
  for (unsigned total = 1; total <= kMaxTotal; ++total) {
    // The largest d with d / total <= rate in the reference's double
    // arithmetic, found by the same division rather than by rounding
    // rate * total (which may land one off at the boundary).
    int k = -1;
    for (unsigned d = 0; d <= total; ++d) {
      if (static_cast<double>(d) / static_cast<double>(total) <=
          t.ctph_edit_rate)
        k = static_cast<int>(d);
    }
    p.kmax[total] = static_cast<std::int16_t>(k);
  }
  p.simhash_distance = t.simhash_distance;
  p.sketch_jaccard = t.sketch_jaccard;
  p.sketch_length_ratio = t.sketch_length_ratio;
  p.sketch_min_words = t.sketch_min_words;
  return p;
}

std::vector<Engine::WindowMatch> ToWindowMatches(
    std::span<const PairMatch> matches, const Window& window) {
  std::vector<Engine::WindowMatch> out;
  out.reserve(matches.size());
  for (const PairMatch& m : matches)
    out.push_back({m.query, window.IdOf(m.item), m.score});
  std::sort(out.begin(), out.end(),
            [](const Engine::WindowMatch& a, const Engine::WindowMatch& b) {
              return a.query != b.query ? a.query < b.query : a.id < b.id;
            });
  return out;
}

std::vector<Match> ToMatches(std::span<const PairMatch> matches) {
  std::vector<Match> out;
  out.reserve(matches.size());
  for (const PairMatch& m : matches) out.push_back({m.query, m.item, m.score});
  std::sort(out.begin(), out.end(), [](const Match& a, const Match& b) {
    return a.query != b.query ? a.query < b.query : a.item < b.item;
  });
  return out;
}

}  // namespace mw::gpu::internal
