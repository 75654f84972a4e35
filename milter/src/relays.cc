#include "relays.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <charconv>
#include <cstring>
#include <string>

namespace mw::milter {

Result<Relays> Relays::Parse(std::string_view text) {
  Relays relays;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == ',' || text[i] == '\t'))
      ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != ',' &&
           text[j] != '\t')
      ++j;
    if (j == i) break;
    const std::string entry(text.substr(i, j - i));
    i = j;
    auto bad = [&] {
      return Fail(Error::InvalidArgument("milter.trusted_relays: '" + entry +
                                         "' is not an IP address or prefix"));
    };
    const std::size_t slash = entry.find('/');
    const std::string address = entry.substr(0, slash);
    Prefix p;
    if (inet_pton(AF_INET, address.c_str(), p.bytes.data()) == 1) {
      p.v6 = false;
      p.bits = 32;
    } else if (inet_pton(AF_INET6, address.c_str(), p.bytes.data()) == 1) {
      p.v6 = true;
      p.bits = 128;
    } else {
      return bad();
    }
    if (slash != std::string::npos) {
      const std::string len = entry.substr(slash + 1);
      int bits = -1;
      auto [end, ec] =
          std::from_chars(len.data(), len.data() + len.size(), bits);
      if (ec != std::errc() || end != len.data() + len.size() || bits < 0 ||
          bits > p.bits)
        return bad();
      p.bits = bits;
    }
    relays.prefixes_.push_back(p);
  }
  return relays;
}

bool Relays::Match(const Prefix& p, bool v6, const std::uint8_t* bytes) {
  if (p.v6 != v6) return false;
  const int whole = p.bits / 8;
  if (std::memcmp(p.bytes.data(), bytes, static_cast<std::size_t>(whole)) != 0)
    return false;
  const int rest = p.bits % 8;
  if (rest == 0) return true;
  const std::uint8_t mask = static_cast<std::uint8_t>(0xFF << (8 - rest));
  return (p.bytes[static_cast<std::size_t>(whole)] & mask) ==
         (bytes[whole] & mask);
}

bool Relays::Contains(const sockaddr* addr) const {
  if (addr == nullptr || prefixes_.empty()) return false;
  std::uint8_t bytes[16];
  bool v6 = false;
  if (addr->sa_family == AF_INET) {
    std::memcpy(bytes, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr,
                4);
  } else if (addr->sa_family == AF_INET6) {
    const auto* in6 = &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(in6)) {
      std::memcpy(bytes, in6->s6_addr + 12, 4);
    } else {
      std::memcpy(bytes, in6->s6_addr, 16);
      v6 = true;
    }
  } else {
    return false;
  }
  for (const Prefix& p : prefixes_) {
    if (Match(p, v6, bytes)) return true;
  }
  return false;
}

}  // namespace mw::milter
