// Who sent a message, in a form a forger cannot borrow: the DKIM domain or
// the SPF-pass domain from the site's own Authentication-Results, else the
// envelope sender's domain (unauthenticated), each reduced to its registrable
// domain; plus the client's network.
//
// Trust: an Authentication-Results field counts only when its authserv-id is
// one of Options::trusted_authserv_ids (compared without case) and it stands
// above the first Received field, where the site's own authentication
// milter puts it. Any other (a forged one lower down, another authserv-id)
// counts for nothing.
//
// Thread-safety: pure function over values.
#ifndef MW_SENDER_IDENTITY_H_
#define MW_SENDER_IDENTITY_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sender/address.h"
#include "sender/header_fields.h"

namespace mw::sender {

struct Options {
  std::vector<std::string> trusted_authserv_ids;  // empty: trust none
  // Registrable domains; null: domains are used as written (lower case).
  const SuffixList* suffixes = nullptr;
};

// What the MTA knows beside the header.
struct Envelope {
  std::string sender;     // MAIL FROM, "" for the null sender
  std::string client_ip;  // the SMTP client's address, "" unknown
};

enum class Source {
  kNone,      // nothing to name the sender by (null sender, no From)
  kDkim,      // a passing DKIM signature's header.d (trusted A-R)
  kSpf,       // SPF pass for smtp.mailfrom (trusted A-R)
  kEnvelope,  // the envelope sender's domain (else the From domain): not
              // authenticated
};

// "none", "dkim", "spf", "envelope".
std::string_view SourceName(Source source);

struct Identity {
  std::string domain;  // registrable domain, lower case; "" with kNone
  Source source = Source::kNone;
  bool authenticated = false;  // kDkim or kSpf

  // The folded envelope sender (FoldAddress); "" for the null sender.
  std::string sender;
  std::string client_ip;  // as given
  std::string network;    // ClientNetwork(client_ip); "" unknown

  // What the trusted results said, for allow-list entries: the header.d of
  // every passing DKIM signature, and the SPF-pass smtp.mailfrom domain
  // (lower case, as written, not reduced).
  std::vector<std::string> dkim_domains;
  std::string spf_domain;
  bool dmarc_pass = false;
  // The From address's domain, and List-Id's id ("users.lists.example.org",
  // lower case, without the angle brackets), "" when absent.
  std::string from_domain;
  std::string list_id;

  // "a:example.com" (authenticated), "u:example.org" (not), "" (kNone): the
  // value the store keeps as a keyed hash and counts distinct.
  std::string Key() const;
};

// Identity = the DKIM header.d that passed (the one aligned with From,
// relaxed, when several passed, so that an ESP's second signature does not
// split one sender in two), else the SPF-pass smtp.mailfrom domain, else the
// envelope sender's domain (the From domain for the null sender),
// unauthenticated.
Identity Identify(std::span<const Field> header, const Envelope& envelope,
                  const Options& options);

}  // namespace mw::sender

#endif  // MW_SENDER_IDENTITY_H_
