// Client networks and CIDR blocks. A spam wave moves between addresses of
// one provider's block; a /24 (IPv4) or /48 (IPv6, one site's usual
// allocation) names the sender's network without naming the host.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <string>

#include "mw/ascii.h"
#include "sender/address.h"
#include "text.h"

namespace mw::sender {

namespace {

using mw::IsDigit;
using internal::StartsWithNoCase;
using internal::Trim;

struct Ip {
  bool v6 = false;
  unsigned char bytes[16] = {};
};

// "192.0.2.1", "2001:db8::1", "[192.0.2.1]", "[IPv6:2001:db8::1]",
// "IPv6:2001:db8::1" (Postfix and Sendmail macros), an IPv4-mapped IPv6
// address as IPv4. False for anything else.
bool ParseIp(std::string_view text, Ip& ip) {
  std::string_view s = Trim(text);
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') {
    s = s.substr(1, s.size() - 2);
  }
  if (StartsWithNoCase(s, "ipv6:")) s.remove_prefix(5);
  // inet_pton wants a NUL-terminated string; an address is short.
  if (s.empty() || s.size() > INET6_ADDRSTRLEN) return false;
  const std::string z(s);
  if (inet_pton(AF_INET, z.c_str(), ip.bytes) == 1) {
    ip.v6 = false;
    return true;
  }
  if (inet_pton(AF_INET6, z.c_str(), ip.bytes) != 1) return false;
  static constexpr unsigned char kMapped[12] = {0, 0, 0, 0, 0,    0,
                                                0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(ip.bytes, kMapped, sizeof kMapped) == 0) {
    std::memmove(ip.bytes, ip.bytes + 12, 4);
    std::memset(ip.bytes + 4, 0, 12);
    ip.v6 = false;
    return true;
  }
  ip.v6 = true;
  return true;
}

void Mask(unsigned char* bytes, int size, int prefix) {
  for (int i = 0; i < size; ++i) {
    const int bits = prefix - 8 * i;
    if (bits >= 8) continue;
    bytes[i] =
        bits <= 0 ? 0
                  : static_cast<unsigned char>(bytes[i] & (0xff << (8 - bits)));
  }
}

std::string Text(const Ip& ip) {
  char buf[INET6_ADDRSTRLEN] = {};
  if (inet_ntop(ip.v6 ? AF_INET6 : AF_INET, ip.bytes, buf, sizeof buf) ==
      nullptr) {
    return "";
  }
  return buf;
}

}  // namespace

std::string ClientNetwork(std::string_view ip) {
  Ip parsed;
  if (!ParseIp(ip, parsed)) return "";
  const int prefix = parsed.v6 ? 48 : 24;
  Mask(parsed.bytes, parsed.v6 ? 16 : 4, prefix);
  const std::string text = Text(parsed);
  if (text.empty()) return "";
  return text + "/" + std::to_string(prefix);
}

Result<Cidr> Cidr::Parse(std::string_view text) {
  const std::string_view s = Trim(text);
  const std::size_t slash = s.find('/');
  Ip ip;
  if (!ParseIp(s.substr(0, slash), ip)) {
    return Fail(Error::InvalidArgument("bad address"));
  }
  const int max = ip.v6 ? 128 : 32;
  int prefix = max;
  if (slash != std::string_view::npos) {
    const std::string_view digits = s.substr(slash + 1);
    if (digits.empty() || digits.size() > 3) {
      return Fail(Error::InvalidArgument("bad prefix length"));
    }
    prefix = 0;
    for (char c : digits) {
      if (!IsDigit(c)) return Fail(Error::InvalidArgument("bad prefix length"));
      prefix = prefix * 10 + (c - '0');
    }
    if (prefix > max) return Fail(Error::InvalidArgument("bad prefix length"));
  }
  Cidr cidr;
  cidr.v6_ = ip.v6;
  cidr.prefix_ = prefix;
  // Host bits are dropped: "192.0.2.7/24" is the block 192.0.2.0/24.
  Mask(ip.bytes, ip.v6 ? 16 : 4, prefix);
  std::memcpy(cidr.bytes_, ip.bytes, sizeof cidr.bytes_);
  return cidr;
}

bool Cidr::Contains(std::string_view ip) const {
  Ip parsed;
  if (!ParseIp(ip, parsed) || parsed.v6 != v6_) return false;
  Mask(parsed.bytes, v6_ ? 16 : 4, prefix_);
  return std::memcmp(parsed.bytes, bytes_, v6_ ? 16 : 4) == 0;
}

}  // namespace mw::sender
