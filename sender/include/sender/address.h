// Addresses folded to the sender they stand for, domains to the registrable
// domain (Public Suffix List), client addresses to their network.
//
// Thread-safety: pure functions; a SuffixList is immutable once opened.
#ifndef MW_SENDER_ADDRESS_H_
#define MW_SENDER_ADDRESS_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "mw/result.h"

namespace mw::sender {

// The address inside "Name <local@domain>" or "<local@domain>", else the
// trimmed text; "" when there is none. Lower-cases nothing.
std::string AddressOf(std::string_view mailbox);

// Lower-case domain of an address ("" when there is no '@').
std::string DomainOf(std::string_view address);

// One stable address for the forms mailers write per recipient or per
// message, lower-cased:
//   BATV   prvs=1234abcd=user@d.example, btv1==...==user@d   -> user@d.example
//   SRS    SRS0=HHH=TT=orig.example=user@fwd.example         -> user@orig.example
//          SRS1=HHH=fwd1.example==HHH=TT=orig.example=user@fwd.example
//                                                            -> user@orig.example
//   VERP   list-bounces+user=rcpt.example@list.example       -> list-bounces@list.example
//   +tag   user+tag@d.example                                -> user@d.example
//   tokens bounce-4f3a9c21d0-20240517@esp.example             -> bounce-#-#@esp.example
//          (a '-', '.', '_' or '=' separated part of the local part with six
//          or more digits or hex digits, and at least one digit, is '#')
// "" stays "".
std::string FoldAddress(std::string_view address);

// "192.0.2.0/24" for IPv4, "2001:db8:1::/48" for IPv6 (an IPv4-mapped IPv6
// address as IPv4), canonical text; "" when `ip` is not an address.
std::string ClientNetwork(std::string_view ip);

// A CIDR block ("192.0.2.0/24", "2001:db8::/32", or one address).
class Cidr {
 public:
  // Fails with a reason ("bad prefix length") when `text` is not one.
  static Result<Cidr> Parse(std::string_view text);
  bool Contains(std::string_view ip) const;  // false for a non-address

 private:
  bool v6_ = false;
  unsigned char bytes_[16] = {};
  int prefix_ = 0;
};

// The Public Suffix List (libpsl, Debian's `publicsuffix` file).
class SuffixList {
 public:
  // The distribution's list (/usr/share/publicsuffix, as libpsl finds it),
  // else libpsl's built-in copy; fails only when neither loads.
  static Result<std::shared_ptr<const SuffixList>> Open();
  ~SuffixList();
  SuffixList(const SuffixList&) = delete;
  SuffixList& operator=(const SuffixList&) = delete;

  // "mail.news.example.co.uk" -> "example.co.uk"; a public suffix or a name
  // that is not a domain gives itself, lower-cased; a trailing dot is
  // dropped.
  std::string RegistrableDomain(std::string_view domain) const;

 private:
  explicit SuffixList(void* ctx) : ctx_(ctx) {}
  void* ctx_;  // psl_ctx_t, freed with psl_free
};

}  // namespace mw::sender

#endif  // MW_SENDER_ADDRESS_H_
