#include "window.h"

#include <algorithm>
#include <cstring>

namespace mw::gpu::internal {

SoaStore::SoaStore(std::span<const Signature> sigs) {
  Reserve(sigs.size());
  for (const Signature& s : sigs) PushBack(s);
}

void SoaStore::Reserve(std::size_t n) {
  block_.reserve(n);
  len_.reserve(n);
  len2_.reserve(n);
  ctph_.reserve(n * kCtphSlot);
  ctph2_.reserve(n * kCtphSlot);
  grams_.reserve(n * kGramWords);
  grams2_.reserve(n * kGramWords);
  extra_.reserve(n);
  extra2_.reserve(n);
  simhash_.reserve(n);
  words_.reserve(n);
  sketch_.reserve(n * kSketchBins);
}

void SoaStore::Resize(std::size_t n) {
  n_ = n;
  block_.resize(n);
  len_.resize(n);
  len2_.resize(n);
  ctph_.resize(n * kCtphSlot);
  ctph2_.resize(n * kCtphSlot);
  grams_.resize(n * kGramWords);
  grams2_.resize(n * kGramWords);
  extra_.resize(n);
  extra2_.resize(n);
  simhash_.resize(n);
  words_.resize(n);
  sketch_.resize(n * kSketchBins);
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
  block_[to] = block_[from];
  len_[to] = len_[from];
  len2_[to] = len2_[from];
  std::memcpy(&ctph_[to * kCtphSlot], &ctph_[from * kCtphSlot], kCtphSlot);
  std::memcpy(&ctph2_[to * kCtphSlot], &ctph2_[from * kCtphSlot], kCtphSlot);
  std::copy_n(&grams_[from * kGramWords], kGramWords, &grams_[to * kGramWords]);
  std::copy_n(&grams2_[from * kGramWords], kGramWords,
              &grams2_[to * kGramWords]);
  extra_[to] = extra_[from];
  extra2_[to] = extra2_[from];
  simhash_[to] = simhash_[from];
  words_[to] = words_[from];
  std::copy_n(&sketch_[from * kSketchBins], kSketchBins,
              &sketch_[to * kSketchBins]);
}

void SoaStore::PopBack() { Resize(n_ - 1); }

SoaView SoaStore::View() const {
  SoaView v;
  v.n = static_cast<std::uint32_t>(n_);
  v.block = block_.data();
  v.len = len_.data();
  v.len2 = len2_.data();
  v.ctph = ctph_.data();
  v.ctph2 = ctph2_.data();
  v.grams = grams_.data();
  v.grams2 = grams2_.data();
  v.extra = extra_.data();
  v.extra2 = extra2_.data();
  v.simhash = simhash_.data();
  v.words = words_.data();
  v.sketch = sketch_.data();
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
