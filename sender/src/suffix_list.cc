// SuffixList over libpsl. psl_latest(NULL) loads the newer of the
// distribution's file (Debian's `publicsuffix` package, updated with the
// system) and libpsl's built-in copy; psl_builtin() is the fallback. The
// built-in context is static inside libpsl and must never be freed.
#include <arpa/inet.h>
#include <libpsl.h>

#include <string>

#include "sender/address.h"
#include "text.h"

namespace mw::sender {

namespace {

using internal::Lowered;
using internal::Trim;

psl_ctx_t* Ctx(void* p) { return static_cast<psl_ctx_t*>(p); }

// A name libpsl can reduce: LDH labels (and '_', as DKIM and SRV names have
// them) separated by single dots. An address literal, an IP address or
// anything with other bytes is "not a domain" and stays as it is.
bool IsDomainName(std::string_view s) {
  if (s.empty() || s.size() > 253 || s.front() == '.') return false;
  char prev = '.';
  bool letter = false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok || (c == '.' && prev == '.')) return false;
    letter = letter || (c >= 'a' && c <= 'z');
    prev = c;
  }
  if (!letter) return false;  // "192.0.2.1"
  unsigned char buf[16];
  const std::string z(s);
  return inet_pton(AF_INET, z.c_str(), buf) != 1;
}

}  // namespace

Result<std::shared_ptr<const SuffixList>> SuffixList::Open() {
  psl_ctx_t* ctx = psl_latest(nullptr);
  if (ctx == nullptr) ctx = const_cast<psl_ctx_t*>(psl_builtin());
  if (ctx == nullptr) {
    return Fail(Error::Unavailable(
        "no Public Suffix List: neither the distribution's file nor libpsl's "
        "built-in copy loads (install the publicsuffix package)"));
  }
  // Not make_shared: the constructor is private.
  return std::shared_ptr<const SuffixList>(new SuffixList(ctx));
}

SuffixList::~SuffixList() {
  if (ctx_ != nullptr && ctx_ != psl_builtin()) psl_free(Ctx(ctx_));
}

std::string SuffixList::RegistrableDomain(std::string_view domain) const {
  std::string name = Lowered(Trim(domain));
  if (!name.empty() && name.back() == '.') name.pop_back();
  if (!IsDomainName(name)) return name;
  // A pointer into `name`, or null for a public suffix ("co.uk",
  // "github.io") and names under no rule libpsl accepts.
  const char* reg = psl_registrable_domain(Ctx(ctx_), name.c_str());
  if (reg == nullptr) return name;
  return std::string(reg);
}

}  // namespace mw::sender
