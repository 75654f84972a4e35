#include "gpu/synthetic.h"

#include <algorithm>
#include <cstring>

namespace mw::gpu {
namespace {

// splitmix64: a fixed generator, so the benchmarks' inputs do not depend on
// the standard library's distributions.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi].
  unsigned Between(unsigned lo, unsigned hi) {
    return lo + static_cast<unsigned>(Next() % (hi - lo + 1));
  }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t s_;
};

constexpr char kBase64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void RandomCtph(Rng& rng, std::uint8_t* s, std::uint8_t* len, unsigned lo,
                unsigned hi) {
  *len = static_cast<std::uint8_t>(rng.Between(lo, hi));
  for (unsigned i = 0; i < *len; ++i)
    s[i] = static_cast<std::uint8_t>(kBase64[rng.Next() % 64]);
}

// `edits` random edits of s[0..len), keeping it within 1..64 symbols.
void Edit(Rng& rng, std::uint8_t* s, std::uint8_t* len, unsigned edits) {
  for (unsigned e = 0; e < edits; ++e) {
    const unsigned op = rng.Between(0, 2);
    const unsigned l = *len;
    if (op == 0 || (op == 1 && l >= 64) || (op == 2 && l <= 1)) {
      s[rng.Between(0, l - 1)] =
          static_cast<std::uint8_t>(kBase64[rng.Next() % 64]);
    } else if (op == 1) {
      const unsigned at = rng.Between(0, l);
      std::memmove(s + at + 1, s + at, l - at);
      s[at] = static_cast<std::uint8_t>(kBase64[rng.Next() % 64]);
      *len = static_cast<std::uint8_t>(l + 1);
    } else {
      const unsigned at = rng.Between(0, l - 1);
      std::memmove(s + at, s + at + 1, l - at - 1);
      s[l - 1] = 0;
      *len = static_cast<std::uint8_t>(l - 1);
    }
  }
}

}  // namespace

std::vector<Signature> SyntheticSignatures(std::size_t n, std::uint64_t seed,
                                           const SyntheticOptions& options) {
  Rng rng(seed);
  std::vector<Signature> out;
  out.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    Signature s;
    if (k > 0 && rng.Unit() < options.near_share) {
      s = out[rng.Next() % k];
      Edit(rng, s.ctph, &s.ctph_len, rng.Between(1, options.ctph_edits));
      Edit(rng, s.ctph2, &s.ctph2_len, rng.Between(0, options.ctph_edits / 2));
      for (unsigned f = rng.Between(0, options.simhash_flips); f > 0; --f)
        s.simhash ^= std::uint64_t{1} << (rng.Next() % 64);
      for (unsigned c = 0; c < options.sketch_changed; ++c)
        s.sketch[rng.Next() % fingerprint::kSketchSlots] =
            static_cast<std::uint16_t>(1 + rng.Next() % 65535);
      s.words =
          std::max(1u, s.words + rng.Between(0, s.words / 5) - s.words / 10);
    } else {
      s.ctph_block = 3u << rng.Between(6, 11);
      RandomCtph(rng, s.ctph, &s.ctph_len, 30, 64);
      RandomCtph(rng, s.ctph2, &s.ctph2_len, 15, 32);
      s.simhash = rng.Next();
      s.words = rng.Between(50, 500);
      for (std::uint16_t& b : s.sketch)
        b = static_cast<std::uint16_t>(1 + rng.Next() % 65535);
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace mw::gpu
