// libFuzzer target for the fingerprint path: two texts built from the input
// (as the milter gets them: mime::NormaliseText output) are fingerprinted with
// the default options and compared both ways. Beyond "no crash, no sanitizer
// report, bounded time", it checks the contracts the store will rely on:
//   - a non-empty text is an exact duplicate of itself, at similarity 1,
//     signature edit rate 0 and Hamming distance 0;
//   - Compare is symmetric: the verdict and every score are the same whichever
//     message arrived first (a store sees both orders);
//   - scores stay in their ranges.
// The input is split at its first NUL: text A is the part before, text B is A
// with the part after inserted at a position the part's length picks, so the
// fuzzer reaches near-duplicates as well as unrelated texts.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fingerprint/fingerprint.h"
#include "mime/message.h"

namespace {

namespace fp = mw::fingerprint;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

bool Same(const std::optional<double>& x, const std::optional<double>& y) {
  if (x.has_value() != y.has_value()) return false;
  return !x || std::fabs(*x - *y) <= 1e-12;
}

void CheckRanges(const fp::Comparison& c) {
  if (c.similarity) Check(*c.similarity >= 0.0 && *c.similarity <= 1.0 + 1e-12);
  if (c.containment) {
    Check(*c.containment >= 0.0 && *c.containment <= 1.0 + 1e-12);
  }
  if (c.edit_rate) Check(*c.edit_rate >= 0.0 && *c.edit_rate <= 1.0);
  Check(c.hamming <= 64);
  Check(c.duplicate == (c.method != fp::Method::kNone));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t cut = input.find('\0');
  const std::string a = mw::mime::NormaliseText(input.substr(0, cut));
  std::string b = a;
  if (cut != std::string_view::npos) {
    const std::string_view insert = input.substr(cut + 1);
    b.insert(a.empty() ? 0 : insert.size() % (a.size() + 1), insert);
    b = mw::mime::NormaliseText(b);
  }
  const fp::Options options;
  const fp::Fingerprint fa = fp::Compute(a, options);
  const fp::Fingerprint fb = fp::Compute(b, options);

  const fp::Comparison self = fp::Compare(fa, fa, options);
  CheckRanges(self);
  if (!a.empty()) {
    Check(self.method == fp::Method::kExact);
    Check(!self.similarity || std::fabs(*self.similarity - 1.0) <= 1e-12);
    Check(!self.edit_rate || *self.edit_rate == 0.0);
    Check(self.hamming == 0);
  }

  const fp::Comparison ab = fp::Compare(fa, fb, options);
  const fp::Comparison ba = fp::Compare(fb, fa, options);
  CheckRanges(ab);
  Check(ab.method == ba.method);
  Check(Same(ab.similarity, ba.similarity));
  Check(Same(ab.containment, ba.containment));
  Check(Same(ab.edit_rate, ba.edit_rate));
  Check(ab.hamming == ba.hamming);
  return 0;
}
