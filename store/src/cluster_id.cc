#include <charconv>

#include "store/store.h"

namespace mw::store {

std::string ClusterIdString(ClusterId id) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(8, '0');
  for (int i = 0; i < 8; ++i) out[7 - i] = kDigits[(id >> (4 * i)) & 0xf];
  return out;
}

std::string_view MarkName(Mark mark) {
  switch (mark) {
    case Mark::kNone:
      return "none";
    case Mark::kHam:
      return "ham";
    case Mark::kSpam:
      return "spam";
  }
  return "none";  // a value no enumerator names: treated as no mark
}

std::optional<ClusterId> ParseClusterId(std::string_view text) {
  if (text.empty() || text.size() > 8) return std::nullopt;
  // from_chars alone would take a sign or stop early; every byte must be hex.
  for (const char c : text) {
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
                     (c >= 'A' && c <= 'F');
    if (!hex) return std::nullopt;
  }
  ClusterId id = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), id, 16);
  // 0 is no cluster id (store.h), whatever its spelling.
  if (ec != std::errc() || end != text.data() + text.size() || id == 0) {
    return std::nullopt;
  }
  return id;
}

}  // namespace mw::store
