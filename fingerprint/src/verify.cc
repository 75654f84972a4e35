#include "fingerprint/verify.h"

#include <algorithm>
#include <array>
#include <vector>

namespace mw::fingerprint {
namespace {

// peq[c * words + w]: bit i set when a[64·w + i] == c.
std::vector<std::uint64_t> PatternMasks(std::string_view a, std::size_t words) {
  std::vector<std::uint64_t> peq(256 * words, 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    peq[static_cast<unsigned char>(a[i]) * words + i / 64] |= std::uint64_t{1}
                                                              << (i % 64);
  }
  return peq;
}

// One word of one column of Myers' algorithm (Hyyrö's formulation for
// global alignment): the vertical deltas pv/mv of the word's rows move one
// column on, given the horizontal delta `hin` entering at its top row; returns
// the horizontal delta leaving at the row `high` marks (the word's last row).
inline int Step(std::uint64_t eq, std::uint64_t& pv, std::uint64_t& mv, int hin,
                std::uint64_t high) {
  const std::uint64_t p = pv;
  const std::uint64_t mm = mv;
  const std::uint64_t xv = eq | mm;
  if (hin < 0) eq |= 1;
  const std::uint64_t xh = (((eq & p) + p) ^ p) | eq;
  std::uint64_t ph = mm | ~(xh | p);
  std::uint64_t mh = p & xh;
  int hout = 0;
  if (ph & high) {
    hout = 1;
  } else if (mh & high) {
    hout = -1;
  }
  ph <<= 1;
  mh <<= 1;
  if (hin < 0) {
    mh |= 1;
  } else if (hin > 0) {
    ph |= 1;
  }
  pv = mh | ~(xv | ph);
  mv = ph & xv;
  return hout;
}

}  // namespace

std::uint64_t TextEditDistance(std::string_view a, std::string_view b) {
  // The shorter string is the pattern, so the column has fewer words.
  if (a.size() > b.size()) std::swap(a, b);
  const std::size_t m = a.size();
  if (m == 0) return b.size();
  const std::size_t words = (m + 63) / 64;
  const std::vector<std::uint64_t> peq = PatternMasks(a, words);
  std::vector<std::uint64_t> pv(words, ~std::uint64_t{0});
  std::vector<std::uint64_t> mv(words, 0);
  const std::uint64_t last_high = std::uint64_t{1} << ((m - 1) % 64);
  std::uint64_t score = m;
  for (const char ch : b) {
    const std::uint64_t* eq_col = &peq[static_cast<unsigned char>(ch) * words];
    // Global alignment: the top row grows by one per column, so +1 enters the
    // first word.
    int hin = 1;
    for (std::size_t w = 0; w < words; ++w) {
      hin = Step(eq_col[w], pv[w], mv[w], hin,
                 w + 1 == words ? last_high : std::uint64_t{1} << 63);
    }
    score = static_cast<std::uint64_t>(static_cast<std::int64_t>(score) + hin);
  }
  return score;
}

std::optional<std::uint64_t> TextEditDistanceWithin(std::string_view a,
                                                    std::string_view b,
                                                    std::uint64_t k) {
  if (a.size() > b.size()) std::swap(a, b);
  const auto m = static_cast<std::int64_t>(a.size());
  const auto n = static_cast<std::int64_t>(b.size());
  const std::int64_t delta = n - m;  // every alignment pays at least this
  if (static_cast<std::uint64_t>(delta) > k) return std::nullopt;
  if (m == 0) return static_cast<std::uint64_t>(n);
  // No distance exceeds n, so a larger k changes nothing and the signed
  // arithmetic below stays in range.
  const std::int64_t kk = static_cast<std::int64_t>(
      std::min<std::uint64_t>(k, static_cast<std::uint64_t>(n)));
  const std::size_t words = static_cast<std::size_t>((m + 63) / 64);
  const std::vector<std::uint64_t> peq = PatternMasks(a, words);
  const std::uint64_t last_high = std::uint64_t{1} << ((m - 1) % 64);
  // Rows are 1-based (row 0 is the empty prefix); word w holds rows
  // 64·w + 1 .. Bottom(w), and score[w] is the cell of its bottom row.
  const auto bottom = [&](std::size_t w) {
    return std::min<std::int64_t>(64 * static_cast<std::int64_t>(w + 1), m);
  };
  const auto word_of = [](std::int64_t row) {
    return static_cast<std::size_t>(row <= 1 ? 0 : (row - 1) / 64);
  };
  // A cell (i, j) lies on a path of cost <= k only when
  //   f(i, j) = D(i, j) + |(m - i) - (n - j)| <= k,
  // the second term being the least cost from it to (m, n). D >= |i - j|
  // gives the static band: rows at most j + (k - delta) / 2 (below, never
  // computed; a word enters when its first row does, its left column taken as
  // D rising by one per row from the word above, an over-estimate). Above,
  // words are dropped while every cell's f exceeds k, bounded from the word's
  // bottom cell (the cells of a column differ by at most one per row); the
  // cells of a dropped word are then taken as rising by one per column, again
  // an over-estimate. Every computed cell is at least D, and a cell on an
  // optimal path of cost <= k is exact (induction along the path, whose cells
  // all have f <= k and so are never dropped), so the corner is exact when
  // D(m, n) <= k and over k otherwise.
  const std::int64_t below = (kk - delta) / 2;
  std::vector<std::uint64_t> pv(words, ~std::uint64_t{0});
  std::vector<std::uint64_t> mv(words, 0);
  std::vector<std::int64_t> score(words, 0);
  std::size_t first = 0;
  std::size_t last = word_of(std::min(m, below));
  for (std::size_t w = 0; w <= last; ++w) score[w] = bottom(w);  // D(i, 0) = i
  for (std::int64_t j = 1; j <= n; ++j) {
    const std::size_t want = word_of(std::min(m, j + below));
    if (want > last) {  // by one at most: the band moves a row per column
      ++last;
      score[last] = score[last - 1] + (bottom(last) - bottom(last - 1));
    }
    const std::uint64_t* eq_col =
        &peq[static_cast<unsigned char>(b[static_cast<std::size_t>(j - 1)]) *
             words];
    int hin = 1;
    for (std::size_t w = first; w <= last; ++w) {
      hin = Step(eq_col[w], pv[w], mv[w], hin,
                 w + 1 == words ? last_high : std::uint64_t{1} << 63);
      score[w] += hin;
    }
    while (first <= last) {
      const std::int64_t rb = bottom(first);
      const std::int64_t rt = 64 * static_cast<std::int64_t>(first) + 1;
      const std::int64_t s = score[first];
      // Over the word's rows i <= rb: D >= s - (rb - i), D >= j - i, and
      // |(m - i) - (n - j)| >= j - i - delta.
      const std::int64_t least =
          std::max({s - (rb - rt), s - rb + j - delta, 2 * (j - rb) - delta});
      if (least <= kk) break;
      ++first;
    }
    if (first > last) return std::nullopt;
  }
  if (last + 1 != words || score[last] > kk) return std::nullopt;
  return static_cast<std::uint64_t>(score[last]);
}

double TextEditRate(std::string_view a, std::string_view b) {
  const std::size_t total = a.size() + b.size();
  if (total == 0) return 0.0;
  return static_cast<double>(TextEditDistance(a, b)) /
         static_cast<double>(total);
}

}  // namespace mw::fingerprint
