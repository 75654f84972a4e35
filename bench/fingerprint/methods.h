// The methods fingerprint_eval compares (blocks, CTPH, SimHash, the combined
// mailwave verdict, ssdeep) on one pair of decoded texts; shared with
// store_eval and scan_eval. The bases and the ground truth are not here: they
// come from variants/truth.h, which no method takes part in. Header-only: the
// programs link libfuzzy (mw_fuzzy).
#ifndef MW_BENCH_FINGERPRINT_METHODS_H_
#define MW_BENCH_FINGERPRINT_METHODS_H_

#include <fuzzy.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fingerprint/fingerprint.h"
#include "mime/message.h"

namespace mw::bench {

struct Item {
  std::string decoded;
  std::string body;  // normalised
  fingerprint::Fingerprint print;
  std::string ssdeep;
};

enum MethodIndex { kBlocks, kCtph, kSimHash, kCombined, kSsdeep, kMethods };
inline constexpr const char* kMethodNames[kMethods] = {
    "blocks", "ctph", "simhash", "mailwave", "ssdeep"};

inline std::string Ssdeep(std::string_view text) {
  char out[FUZZY_MAX_RESULT];
  if (fuzzy_hash_buf(reinterpret_cast<const unsigned char*>(text.data()),
                     static_cast<std::uint32_t>(text.size()), out) != 0) {
    return {};
  }
  return out;
}

// Each method's own verdict.
inline std::array<bool, kMethods> Verdicts(const Item& a, const Item& b,
                                           const fingerprint::Options& o) {
  namespace fp = fingerprint;
  const fp::Comparison c = fp::Compare(a.print, b.print, o);
  std::array<bool, kMethods> v{};
  const bool exact = c.method == fp::Method::kExact;
  v[kBlocks] = exact || c.method == fp::Method::kBlocks ||
               c.method == fp::Method::kContainment ||
               c.method == fp::Method::kTrailer ||
               c.method == fp::Method::kReordered;
  v[kCtph] = exact || (c.edit_rate && *c.edit_rate < o.ctph_edit_rate &&
                       std::min(a.print.body_bytes, b.print.body_bytes) >=
                           o.ctph_min_bytes);
  v[kSimHash] =
      exact || (a.print.simhash != 0 && c.hamming <= o.simhash_max_distance);
  v[kCombined] = c.duplicate;
  v[kSsdeep] = !a.ssdeep.empty() && !b.ssdeep.empty() &&
               fuzzy_compare(a.ssdeep.c_str(), b.ssdeep.c_str()) >= 50;
  return v;
}

inline Item MakeItem(std::string decoded, const fingerprint::Options& o) {
  Item it;
  it.decoded = std::move(decoded);
  it.body = mime::NormaliseText(it.decoded);
  it.print = fingerprint::Compute(it.body, o);
  it.ssdeep = Ssdeep(it.decoded);
  return it;
}

}  // namespace mw::bench

#endif  // MW_BENCH_FINGERPRINT_METHODS_H_
