// Trusted relays: clients whose X-Mailwave-* headers are verdicts, not
// forgeries. A site whose mail passes two mailwave milters (an edge MX, then
// an internal relay) lists the first hop here; a message from it that
// already carries our headers keeps them and is not analysed again. Off by
// default: an empty list trusts nobody.
#ifndef MW_MILTER_RELAYS_H_
#define MW_MILTER_RELAYS_H_

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "mw/result.h"

namespace mw::milter {

class Relays {
 public:
  // `text`: addresses and prefixes ("192.0.2.7", "192.0.2.0/24",
  // "2001:db8::/32") separated by spaces or commas; empty: none. An entry
  // that is neither fails with "milter.trusted_relays: 'ENTRY' is not an IP
  // address or prefix".
  [[nodiscard]] static Result<Relays> Parse(std::string_view text);

  bool empty() const { return prefixes_.empty(); }
  // Whether `addr` (AF_INET or AF_INET6; an IPv4-mapped IPv6 address counts
  // as IPv4) lies in one of the prefixes. Null or another family: false.
  bool Contains(const sockaddr* addr) const;

 private:
  struct Prefix {
    bool v6 = false;
    std::array<std::uint8_t, 16> bytes{};
    int bits = 0;
  };
  static bool Match(const Prefix& p, bool v6, const std::uint8_t* bytes);
  std::vector<Prefix> prefixes_;
};

}  // namespace mw::milter

#endif  // MW_MILTER_RELAYS_H_
