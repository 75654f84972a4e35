#include "sender/identity.h"

#include <algorithm>

#include "sender/auth_results.h"
#include "text.h"

namespace mw::sender {

namespace {

using internal::EqualNoCase;
using internal::IsSameOrSubdomain;
using internal::Lowered;
using internal::Trim;

// A domain as the results write it, lower case, without a trailing dot.
std::string CleanDomain(std::string_view d) {
  std::string out = Lowered(Trim(d));
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

std::string Registrable(std::string_view domain, const SuffixList* suffixes) {
  return suffixes != nullptr ? suffixes->RegistrableDomain(domain)
                             : CleanDomain(domain);
}

// Relaxed alignment (DMARC, RFC 7489 3.1.1): the same registrable domain.
// Without a suffix list the best stand-in is one being the other or a
// subdomain of it.
bool Aligned(std::string_view a, std::string_view b,
             const SuffixList* suffixes) {
  if (a.empty() || b.empty()) return false;
  if (suffixes != nullptr) {
    return suffixes->RegistrableDomain(a) == suffixes->RegistrableDomain(b);
  }
  return IsSameOrSubdomain(a, b) || IsSameOrSubdomain(b, a);
}

bool Trusted(const AuthResults& ar, const Options& options) {
  return std::any_of(options.trusted_authserv_ids.begin(),
                     options.trusted_authserv_ids.end(),
                     [&](const std::string& id) {
                       return EqualNoCase(Trim(id), ar.authserv_id);
                     });
}

// List-Id: "Phrase <list-id>" (RFC 2919); the id inside the brackets, else
// the trimmed value when a mailer left them out.
std::string ListIdOf(std::string_view value) {
  const std::size_t open = value.rfind('<');
  if (open != std::string_view::npos) {
    const std::size_t close = value.find('>', open);
    if (close != std::string_view::npos) {
      return Lowered(Trim(value.substr(open + 1, close - open - 1)));
    }
  }
  return Lowered(Trim(value));
}

void Collect(const AuthResults& ar, Identity& id) {
  for (const AuthResult& r : ar.results) {
    if (r.result != "pass") continue;
    if (r.method == "dkim") {
      std::string d;
      if (const auto hd = r.Property("header.d")) d = CleanDomain(*hd);
      if (d.empty()) {
        if (const auto hi = r.Property("header.i")) d = DomainOf(*hi);
      }
      if (!d.empty() &&
          std::find(id.dkim_domains.begin(), id.dkim_domains.end(), d) ==
              id.dkim_domains.end()) {
        id.dkim_domains.push_back(std::move(d));
      }
    } else if (r.method == "spf") {
      // smtp.mailfrom only: a HELO pass names the client's host, not the
      // sender.
      if (!id.spf_domain.empty()) continue;
      if (const auto from = r.Property("smtp.mailfrom")) {
        id.spf_domain = from->find('@') != std::string_view::npos
                            ? DomainOf(*from)
                            : CleanDomain(*from);
      }
    } else if (r.method == "dmarc") {
      id.dmarc_pass = true;
    }
  }
}

}  // namespace

std::string_view SourceName(Source source) {
  switch (source) {
    case Source::kNone:
      return "none";
    case Source::kDkim:
      return "dkim";
    case Source::kSpf:
      return "spf";
    case Source::kEnvelope:
      return "envelope";
  }
  return "none";
}

std::string Identity::Key() const {
  if (domain.empty()) return "";
  switch (source) {
    case Source::kDkim:
    case Source::kSpf:
      return "a:" + domain;
    case Source::kEnvelope:
      return "u:" + domain;
    case Source::kNone:
      break;
  }
  return "";
}

Identity Identify(std::span<const Field> header, const Envelope& envelope,
                  const Options& options) {
  Identity id;
  id.sender = FoldAddress(AddressOf(envelope.sender));
  id.client_ip = envelope.client_ip;
  id.network = ClientNetwork(envelope.client_ip);

  // Only results above the first Received count: the site's MTA and its
  // authentication milter put theirs on top, and everything below arrived
  // with the message, written by whoever sent it.
  bool below_received = false;
  bool have_from = false;
  bool have_list_id = false;
  for (const Field& f : header) {
    if (NameIs(f, "Received")) {
      below_received = true;
    } else if (NameIs(f, "Authentication-Results")) {
      if (below_received) continue;
      const std::optional<AuthResults> ar = ParseAuthResults(f.value);
      if (ar && Trusted(*ar, options)) Collect(*ar, id);
    } else if (!have_from && NameIs(f, "From")) {
      have_from = true;
      id.from_domain = DomainOf(AddressOf(f.value));
    } else if (!have_list_id && NameIs(f, "List-Id")) {
      have_list_id = true;
      id.list_id = ListIdOf(f.value);
    }
  }

  const SuffixList* suffixes = options.suffixes;
  if (!id.dkim_domains.empty()) {
    // Several passing signatures (the author's and the ESP's): the one
    // aligned with From, so one sender keeps one identity whichever ESP
    // signs alongside; else the first.
    const std::string* chosen = &id.dkim_domains.front();
    for (const std::string& d : id.dkim_domains) {
      if (Aligned(d, id.from_domain, suffixes)) {
        chosen = &d;
        break;
      }
    }
    id.domain = Registrable(*chosen, suffixes);
    id.source = Source::kDkim;
  } else if (!id.spf_domain.empty()) {
    id.domain = Registrable(id.spf_domain, suffixes);
    id.source = Source::kSpf;
  } else {
    // Unauthenticated: the (folded, so SRS-unwrapped) envelope domain; for
    // the null sender, or a sender without a domain, the From domain.
    std::string domain = DomainOf(id.sender);
    if (domain.empty()) domain = id.from_domain;
    if (!domain.empty()) {
      id.domain = Registrable(domain, suffixes);
      id.source = Source::kEnvelope;
    }
  }
  if (id.domain.empty()) id.source = Source::kNone;
  id.authenticated = id.source == Source::kDkim || id.source == Source::kSpf;
  return id;
}

}  // namespace mw::sender
