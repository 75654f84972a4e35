#include "sender/allow.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "text.h"

namespace mw::sender {

namespace {

using internal::IsHexDigit;
using internal::IsSameOrSubdomain;
using internal::Lowered;
using internal::Trim;

constexpr std::string_view kKinds = "dkim, spf, sender, list-id, ip, cluster";

bool KindOf(std::string_view name, AllowKind& kind) {
  static constexpr AllowKind kAll[] = {AllowKind::kDkim,   AllowKind::kSpf,
                                       AllowKind::kSender, AllowKind::kListId,
                                       AllowKind::kIp,     AllowKind::kCluster};
  for (AllowKind k : kAll) {
    if (AllowKindName(k) == name) {
      kind = k;
      return true;
    }
  }
  return false;
}

// LDH labels ('_' allowed, as in DKIM and SRV names), single dots between.
bool IsDomain(std::string_view s) {
  if (s.empty() || s.size() > 253 || s.front() == '.' || s.back() == '.') {
    return false;
  }
  char prev = '.';
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok || (c == '.' && prev == '.')) return false;
    prev = c;
  }
  return true;
}

// `*` matches any run of characters; both sides are lower case. Greedy with
// one backtrack point: O(pattern x text) at worst, and both are one line.
bool Glob(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// `domain` and `other` belong to one organisation: the same registrable
// domain, or without a suffix list one being the other or a subdomain of it.
bool SameOrganisation(std::string_view domain, std::string_view other,
                      const SuffixList* suffixes) {
  if (domain.empty() || other.empty()) return false;
  if (suffixes != nullptr) {
    return suffixes->RegistrableDomain(domain) ==
           suffixes->RegistrableDomain(other);
  }
  return IsSameOrSubdomain(domain, other) || IsSameOrSubdomain(other, domain);
}

// The message carries a trusted DKIM or SPF pass for `domain`'s organisation.
bool AuthenticatedFor(const Identity& id, std::string_view domain,
                      const SuffixList* suffixes) {
  for (const std::string& d : id.dkim_domains) {
    if (SameOrganisation(d, domain, suffixes)) return true;
  }
  return SameOrganisation(id.spf_domain, domain, suffixes);
}

bool ParseCluster(std::string_view value, std::uint32_t& cluster) {
  if (value.size() != 8) return false;
  cluster = 0;
  for (char c : value) {
    if (!IsHexDigit(c)) return false;
    const int digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
    cluster = (cluster << 4) | static_cast<std::uint32_t>(digit);
  }
  return true;
}

}  // namespace

std::string_view AllowKindName(AllowKind kind) {
  switch (kind) {
    case AllowKind::kDkim:
      return "dkim";
    case AllowKind::kSpf:
      return "spf";
    case AllowKind::kSender:
      return "sender";
    case AllowKind::kListId:
      return "list-id";
    case AllowKind::kIp:
      return "ip";
    case AllowKind::kCluster:
      return "cluster";
  }
  return "";
}

Result<AllowList> AllowList::Parse(std::string_view text,
                                   std::string_view file) {
  AllowList list;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    ++line_no;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (const std::size_t hash = line.find('#');
        hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    line = Trim(line);
    if (line.empty()) continue;

    const auto fail = [&](std::string_view reason) {
      std::string m(file);
      m += ':';
      m += std::to_string(line_no);
      m += ": ";
      m += reason;
      return Fail(Error::InvalidArgument(std::move(m)));
    };
    std::size_t gap = 0;
    while (gap < line.size() && line[gap] != ' ' && line[gap] != '\t') ++gap;
    const std::string kind_name = Lowered(line.substr(0, gap));
    const std::string_view raw_value = Trim(line.substr(gap));
    AllowKind kind;
    if (!KindOf(kind_name, kind)) {
      return fail("unknown kind \"" + std::string(line.substr(0, gap)) +
                  "\" (" + std::string(kKinds) + ")");
    }
    const std::string kind_text(AllowKindName(kind));
    if (raw_value.empty()) return fail(kind_text + ": missing value");
    if (raw_value.find_first_of(" \t") != std::string_view::npos) {
      return fail(kind_text + ": expected one value, got \"" +
                  std::string(raw_value) + "\"");
    }
    AllowEntry entry{kind, std::string(raw_value), line_no};
    switch (kind) {
      case AllowKind::kDkim:
      case AllowKind::kSpf: {
        std::string domain = Lowered(raw_value);
        if (domain.size() > 1 && domain.back() == '.') domain.pop_back();
        if (!IsDomain(domain)) {
          return fail(kind_text + ": bad domain \"" + std::string(raw_value) +
                      "\" (subdomains match already; no wildcards)");
        }
        entry.value = std::move(domain);
        break;
      }
      case AllowKind::kSender:
        if (raw_value.find('@') == std::string_view::npos) {
          return fail("sender: expected an address pattern with '@', got \"" +
                      std::string(raw_value) + "\"");
        }
        entry.value = Lowered(raw_value);
        break;
      case AllowKind::kListId: {
        std::string_view id = raw_value;
        if (id.size() >= 2 && id.front() == '<' && id.back() == '>') {
          id = id.substr(1, id.size() - 2);
        }
        if (id.empty()) return fail("list-id: missing value");
        entry.value = Lowered(id);
        break;
      }
      case AllowKind::kIp: {
        Result<Cidr> cidr = Cidr::Parse(raw_value);
        if (!cidr) {
          return fail("ip: bad CIDR \"" + std::string(raw_value) + "\"");
        }
        list.cidrs_.push_back(*cidr);
        break;
      }
      case AllowKind::kCluster: {
        std::uint32_t cluster = 0;
        if (!ParseCluster(raw_value, cluster)) {
          return fail("cluster: expected 8 hex digits");
        }
        entry.value = Lowered(raw_value);
        break;
      }
    }
    list.entries_.push_back(std::move(entry));
  }
  return list;
}

Result<AllowList> AllowList::Load(const std::string& path) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(
      std::fopen(path.c_str(), "rb"), &std::fclose);
  const auto io_error = [&](int err) {
    std::string m = path + ": " + std::strerror(err);
    return Fail(err == ENOENT ? Error::NotFound(std::move(m))
                              : Error::Io(std::move(m)));
  };
  if (!f) return io_error(errno);
  std::string text;
  char buf[8192];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) text.append(buf, n);
  if (std::ferror(f.get())) return io_error(errno != 0 ? errno : EIO);
  return Parse(text, path);
}

const AllowEntry* AllowList::Match(const Identity& identity,
                                   const SuffixList* suffixes) const {
  std::size_t cidr = 0;
  for (const AllowEntry& e : entries_) {
    switch (e.kind) {
      case AllowKind::kDkim:
        for (const std::string& d : identity.dkim_domains) {
          if (IsSameOrSubdomain(d, e.value)) return &e;
        }
        break;
      case AllowKind::kSpf:
        if (IsSameOrSubdomain(identity.spf_domain, e.value)) return &e;
        break;
      case AllowKind::kSender:
        // The pattern buys trust only with a trusted pass for the sender's
        // own domain: an envelope address alone is what a forger writes.
        if (!identity.sender.empty() && Glob(e.value, identity.sender) &&
            AuthenticatedFor(identity, DomainOf(identity.sender), suffixes)) {
          return &e;
        }
        break;
      case AllowKind::kListId:
        // A List-Id is a header line anyone can write: it counts only when
        // the message is authenticated as the list host's organisation.
        if (identity.authenticated && !identity.list_id.empty() &&
            Glob(e.value, identity.list_id) &&
            SameOrganisation(identity.list_id, identity.domain, suffixes)) {
          return &e;
        }
        break;
      case AllowKind::kIp:
        if (cidrs_[cidr++].Contains(identity.client_ip)) return &e;
        break;
      case AllowKind::kCluster:
        break;
    }
  }
  return nullptr;
}

const AllowEntry* AllowList::MatchCluster(std::uint32_t cluster) const {
  for (const AllowEntry& e : entries_) {
    std::uint32_t value = 0;
    if (e.kind == AllowKind::kCluster && ParseCluster(e.value, value) &&
        value == cluster) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace mw::sender
