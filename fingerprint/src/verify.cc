#include "fingerprint/verify.h"

#include <array>
#include <vector>

namespace mw::fingerprint {

std::uint64_t TextEditDistance(std::string_view a, std::string_view b) {
  // The shorter string is the pattern, so the column has fewer words.
  if (a.size() > b.size()) std::swap(a, b);
  const std::size_t m = a.size();
  if (m == 0) return b.size();
  const std::size_t words = (m + 63) / 64;
  // peq[c][w]: bit i of word w set when a[64·w + i] == c.
  std::vector<std::uint64_t> peq(256 * words, 0);
  for (std::size_t i = 0; i < m; ++i) {
    peq[static_cast<unsigned char>(a[i]) * words + i / 64] |= std::uint64_t{1}
                                                              << (i % 64);
  }
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
      std::uint64_t eq = eq_col[w];
      const std::uint64_t p = pv[w];
      const std::uint64_t mm = mv[w];
      const std::uint64_t xv = eq | mm;
      if (hin < 0) eq |= 1;
      const std::uint64_t xh = (((eq & p) + p) ^ p) | eq;
      std::uint64_t ph = mm | ~(xh | p);
      std::uint64_t mh = p & xh;
      const std::uint64_t high =
          w + 1 == words ? last_high : std::uint64_t{1} << 63;
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
      pv[w] = mh | ~(xv | ph);
      mv[w] = ph & xv;
      hin = hout;
    }
    score = static_cast<std::uint64_t>(static_cast<std::int64_t>(score) + hin);
  }
  return score;
}

double TextEditRate(std::string_view a, std::string_view b) {
  const std::size_t total = a.size() + b.size();
  if (total == 0) return 0.0;
  return static_cast<double>(TextEditDistance(a, b)) /
         static_cast<double>(total);
}

}  // namespace mw::fingerprint
