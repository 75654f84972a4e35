// The evaluations' ground truth (truth.h).
#include "variants/truth.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_set>

#include "fingerprint/verify.h"

namespace mw::variants {

namespace {

// The largest distance d with d / total < kNaturalEditRate, computed in the
// same double arithmetic as fingerprint::TextEditRate so that the two agree
// at the boundary; -1 when not even 0 qualifies.
std::int64_t MaxNaturalDistance(std::uint64_t total) {
  const double t = static_cast<double>(total);
  auto k = static_cast<std::int64_t>(std::ceil(kNaturalEditRate * t)) - 1;
  while (static_cast<double>(k + 1) / t < kNaturalEditRate) ++k;
  while (k >= 0 && static_cast<double>(k) / t >= kNaturalEditRate) --k;
  return k;
}

}  // namespace

bool NaturalNearDuplicate(std::string_view a, std::string_view b) {
  const std::uint64_t total = a.size() + b.size();
  if (total == 0) return true;  // TextEditRate is 0
  const std::int64_t k = MaxNaturalDistance(total);
  if (k < 0) return false;
  const std::uint64_t diff =
      a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (diff > static_cast<std::uint64_t>(k)) return false;
  return fingerprint::TextEditDistanceWithin(a, b,
                                             static_cast<std::uint64_t>(k))
      .has_value();
}

NaturalPairs::NaturalPairs(const Corpus& corpus,
                           const std::vector<std::size_t>& docs) {
  // Sorted by length, a document's partners lie in a window: past the first
  // one too long for the length bound, none qualifies.
  std::vector<std::size_t> order = docs;
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return corpus.docs[x].body.size() < corpus.docs[y].body.size();
  });
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::string& a = corpus.docs[order[i]].body;
    for (std::size_t j = i + 1; j < order.size(); ++j) {
      const std::string& b = corpus.docs[order[j]].body;
      // b is at least as long as a, and the distance at least |b| - |a|:
      // once that alone reaches the rate (|b| >= 11/9 |a|), it does for every
      // longer b. The same division as TextEditRate, which is monotone in d.
      if (static_cast<double>(b.size() - a.size()) /
              static_cast<double>(a.size() + b.size()) >=
          kNaturalEditRate) {
        break;
      }
      if (NaturalNearDuplicate(a, b)) {
        pairs_.emplace(std::min(order[i], order[j]),
                       std::max(order[i], order[j]));
      }
    }
  }
}

bool NaturalPairs::Contains(std::size_t a, std::size_t b) const {
  return pairs_.count({std::min(a, b), std::max(a, b)}) != 0;
}

std::size_t NaturalPairs::CountWithin(
    const std::vector<std::size_t>& subset) const {
  const std::unordered_set<std::size_t> in(subset.begin(), subset.end());
  return static_cast<std::size_t>(
      std::count_if(pairs_.begin(), pairs_.end(), [&](const auto& p) {
        return in.count(p.first) != 0 && in.count(p.second) != 0;
      }));
}

Selection SelectBases(const Corpus& corpus,
                      const std::vector<std::size_t>& candidates,
                      std::size_t n) {
  Selection s;
  for (const std::size_t idx : candidates) {
    if (s.bases.size() >= n) break;
    const bool clashes =
        std::any_of(s.bases.begin(), s.bases.end(), [&](std::size_t kept) {
          return NaturalNearDuplicate(corpus.docs[idx].body,
                                      corpus.docs[kept].body);
        });
    if (clashes) {
      ++s.dropped;
      continue;
    }
    s.bases.push_back(idx);
  }
  return s;
}

std::string ThreadKey(std::string_view subject) {
  const auto lower = [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  };
  // Case-folded, whitespace collapsed.
  std::string folded;
  for (const char c : subject) {
    const bool space = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    if (space) {
      if (!folded.empty() && folded.back() != ' ') folded += ' ';
    } else {
      folded += lower(c);
    }
  }
  // Leading markers and tags, repeated ("Re: [ILUG] Re: ...").
  static constexpr std::string_view kMarkers[] = {
      "re:", "fwd:", "fw:", "aw:", "wg:", "sv:"};
  std::string_view rest = folded;
  for (bool again = true; again;) {
    again = false;
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    for (const std::string_view m : kMarkers) {
      if (rest.substr(0, m.size()) == m) {
        rest.remove_prefix(m.size());
        again = true;
      }
    }
    if (!rest.empty() && rest.front() == '[') {
      if (const std::size_t close = rest.find(']');
          close != std::string_view::npos) {
        rest.remove_prefix(close + 1);
        again = true;
      }
    }
  }
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  return std::string(rest);
}

int HalfOf(const Doc& doc) {
  std::string key = ThreadKey(doc.subject);
  if (key.empty()) key = "\n" + doc.name;
  // FNV-1a 64: fixed across platforms and runs, unlike std::hash.
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return static_cast<int>(h >> 63) + 1;
}

}  // namespace mw::variants
