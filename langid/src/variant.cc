#include "variant.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "text.h"

namespace mw::langid::internal {

namespace {

constexpr std::int32_t kMaxOrder = 5;

// Slices read between two checks of the margin: a few words.
constexpr std::size_t kSliceBytes = 64;

struct VariantTally {
  const Model* model;
  std::uint32_t variant;
  double sum = 0;
  // What each distinct word gave: words repeat in running text, and a word
  // costs about five dictionary lookups per letter.
  std::unordered_map<std::string_view, double> seen;
};

double WordValue(const VariantTally& t, std::string_view word) {
  const auto* s = reinterpret_cast<const std::uint8_t*>(word.data());
  const auto n = static_cast<std::int32_t>(word.size());
  // The byte offsets of the word's code points (and its end): an n-gram is
  // the bytes between two of them.
  std::array<std::int32_t, 64> at;
  std::int32_t count = 0;
  for (std::int32_t k = 0;
       k < n && count + 1 < static_cast<std::int32_t>(at.size());) {
    at[count++] = k;
    U8_FWD_1(s, k, n);
    at[count] = k;
  }
  // Every n-gram's key hashed first and its bucket and entries fetched
  // ahead: each lookup is two dependent cache misses in a file of ~12 MB,
  // and a word has ~5 a letter, so they overlap rather than queue (a single
  // word's lookups cost more than the rest of its detection otherwise).
  std::array<std::uint64_t, 63 * kMaxOrder> hashes;
  std::size_t keys = 0;
  for (std::int32_t i = 0; i < count; ++i) {
    for (std::int32_t len = 1; len <= kMaxOrder && i + len <= count; ++len) {
      const std::optional<std::uint64_t> h =
          Model::VariantKeyHash(word.substr(at[i], at[i + len] - at[i]));
      if (!h) break;  // longer n-grams from here are longer still
      hashes[keys] = *h;
      t.model->PrefetchBucket(hashes[keys++]);
    }
  }
  for (std::size_t k = 0; k < keys; ++k) t.model->PrefetchEntries(hashes[k]);
  double value = 0;
  for (std::size_t k = 0; k < keys; ++k) {
    const PostingList p = t.model->LookupHashed(hashes[k]);
    for (std::uint32_t j = 0; j < p.size(); ++j) {
      const std::uint32_t v = p.encoded(j);
      if (((v >> 16) & 0xffu) == t.variant) value += Model::VariantValue(v);
    }
  }
  return value;
}

// A word's value as Lingua counts words: runs of letters. Its models hold no
// combining marks, and a Devanagari word's vowel signs and viramas end one
// run and start the next (मराठी reads as मर and ठ): on the tune half's
// Marathi and Hindi sentences this told the two apart better than the word's
// letters joined (96.0 / 94.4% right against 95.2 / 86.0%). A Latin word in
// NFC has no marks, and is looked up whole.
double RunsValue(const VariantTally& t, std::string_view word) {
  const auto* s = reinterpret_cast<const std::uint8_t*>(word.data());
  const auto n = static_cast<std::int32_t>(word.size());
  double value = 0;
  std::int32_t run = 0;
  for (std::int32_t k = 0; k < n;) {
    const std::int32_t start = k;
    UChar32 c;
    U8_NEXT(s, k, n, c);
    if (c >= 0 && (U_GET_GC_MASK(c) & U_GC_M_MASK) == 0) continue;
    if (start > run) value += WordValue(t, word.substr(run, start - run));
    run = k;
  }
  if (n > run) value += WordValue(t, word.substr(run));
  return value;
}

// A candidate's evidence, as ReadForVariant weighs it.
double Evidence(const std::vector<double>& pure,
                const std::vector<double>& shared,
                const std::vector<double>& ngram, std::size_t i) {
  return pure[i] + shared[i] + (i < ngram.size() ? ngram[i] : 0.0);
}

void AddWord(void* context, std::string_view word, int script) {
  if (script != USCRIPT_LATIN && script != USCRIPT_CYRILLIC &&
      script != USCRIPT_ARABIC && script != USCRIPT_DEVANAGARI) {
    return;
  }
  auto* t = static_cast<VariantTally*>(context);
  auto [it, fresh] = t->seen.try_emplace(word, 0.0);
  if (fresh) {
    it->second = script == USCRIPT_DEVANAGARI || script == USCRIPT_ARABIC
                     ? RunsValue(*t, word)
                     : WordValue(*t, word);
  }
  t->sum += it->second;
}

}  // namespace

double VariantScore(const std::vector<std::string_view>& parts,
                    const Model& model, std::size_t variant) {
  VariantTally t{&model, static_cast<std::uint32_t>(variant), 0.0, {}};
  std::size_t left = kVariantMaxBytes;
  for (std::string_view text : parts) {
    // In slices cut at white space, so that no word is read cut short (but a
    // word longer than a slice, read slice by slice).
    while (!text.empty() && left > 0 && std::abs(t.sum) < kVariantDecisive) {
      std::size_t take = std::min({text.size(), left, kSliceBytes});
      if (take < text.size()) {
        const std::size_t space = text.find_last_of(" \t\r\n", take);
        if (space != std::string_view::npos && space > 0) {
          take = space;
        } else if (take < kSliceBytes) {
          return t.sum;  // the budget ends inside a word
        }                // else a word longer than a slice, read in slices
      }
      SegmentWords(text.substr(0, take), AddWord, &t);
      text.remove_prefix(take);
      left -= take;
    }
  }
  return t.sum;
}

double StrongestEvidence(const std::vector<double>& pure,
                         const std::vector<double>& shared,
                         const std::vector<double>& ngram) {
  double best = 0;
  for (std::size_t i = 0; i < pure.size(); ++i) {
    best = std::max(best, Evidence(pure, shared, ngram, i));
  }
  return best;
}

bool ReadForVariant(const std::vector<double>& pure,
                    const std::vector<double>& shared,
                    const std::vector<double>& ngram, std::size_t base,
                    double share, double strongest) {
  if (base >= pure.size()) return false;
  const double evidence = Evidence(pure, shared, ngram, base);
  return evidence > 0 && evidence >= share * strongest;
}

}  // namespace mw::langid::internal
