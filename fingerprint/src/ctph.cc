#include "fingerprint/ctph.h"

#include <fuzzy.h>

#include <algorithm>
#include <charconv>
#include <memory>

#include "fingerprint/core.h"

namespace mw::fingerprint {
namespace {

struct FuzzyStateFree {
  void operator()(fuzzy_state* s) const { fuzzy_free(s); }
};
using FuzzyState = std::unique_ptr<fuzzy_state, FuzzyStateFree>;

// Parses libfuzzy's "B:sig:sig2". Returns an empty Ctph for anything else.
Ctph Parse(std::string_view text) {
  Ctph out;
  const std::size_t c1 = text.find(':');
  if (c1 == std::string_view::npos) return out;
  const std::size_t c2 = text.find(':', c1 + 1);
  if (c2 == std::string_view::npos) return out;
  std::uint32_t b = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + c1, b);
  if (ec != std::errc() || p != text.data() + c1) return out;
  out.block_size = b;
  out.sig.assign(text.substr(c1 + 1, c2 - c1 - 1));
  out.sig2.assign(text.substr(c2 + 1));
  return out;
}

}  // namespace

Ctph ComputeCtph(std::string_view bytes) {
  if (bytes.empty()) return {};
  FuzzyState state(fuzzy_new());
  if (!state)
    return {};  // out of memory: an empty signature compares with nothing
  // fuzzy_update takes a size_t length; feed in pieces anyway so no length
  // narrows anywhere.
  constexpr std::size_t kChunk = 1u << 30;
  for (std::size_t off = 0; off < bytes.size(); off += kChunk) {
    const std::size_t len = std::min(kChunk, bytes.size() - off);
    if (fuzzy_update(state.get(),
                     reinterpret_cast<const unsigned char*>(bytes.data() + off),
                     len) != 0) {
      return {};
    }
  }
  char result[FUZZY_MAX_RESULT];
  if (fuzzy_digest(state.get(), result,
                   FUZZY_FLAG_ELIMSEQ | FUZZY_FLAG_NOTRUNC) != 0)
    return {};
  return Parse(result);
}

std::string ToString(const Ctph& ctph) {
  return std::to_string(ctph.block_size) + ":" + ctph.sig + ":" + ctph.sig2;
}

std::optional<double> CtphEditRate(const Ctph& a, const Ctph& b) {
  if (a.block_size == 0 || b.block_size == 0) return std::nullopt;
  const auto rate = [](const std::string& x,
                       const std::string& y) -> std::optional<double> {
    if (x.empty() || y.empty() || x.size() > kCtphMaxLength ||
        y.size() > kCtphMaxLength) {
      return std::nullopt;
    }
    return EditRate(x, y);
  };
  if (a.block_size == b.block_size) {
    const std::optional<double> r1 = rate(a.sig, b.sig);
    const std::optional<double> r2 = rate(a.sig2, b.sig2);
    if (r1 && r2) return std::min(*r1, *r2);
    return r1 ? r1 : r2;
  }
  if (static_cast<std::uint64_t>(a.block_size) * 2 == b.block_size)
    return rate(a.sig2, b.sig);
  if (static_cast<std::uint64_t>(b.block_size) * 2 == a.block_size)
    return rate(a.sig, b.sig2);
  return std::nullopt;
}

}  // namespace mw::fingerprint
