// FoldAddress: one address for the sender a per-recipient or per-message
// envelope stands for. Bulk mailers write the recipient, a message number or
// a signature into the local part so that bounces can be told apart; folded,
// a newsletter's ten thousand return paths are one sender again.
#include <utility>

#include "mw/ascii.h"
#include "sender/address.h"
#include "text.h"

namespace mw::sender {

namespace {

using mw::IsDigit;
using internal::IsHexDigit;
using internal::Lowered;
using internal::Trim;

// Unwrapping may nest (BATV inside SRS, SRS1 around SRS0); a few rounds cover
// every real case and bound the work on a hostile one.
constexpr int kMaxUnwrap = 4;

// The tail of an SRS0 address after "SRS0=": HHH=TT=domain=user.
bool SplitSrs0(std::string_view tail, std::string& local, std::string& domain) {
  std::size_t p = tail.find('=');  // after the hash
  if (p == std::string_view::npos) return false;
  p = tail.find('=', p + 1);  // after the timestamp
  if (p == std::string_view::npos) return false;
  const std::size_t q = tail.find('=', p + 1);  // after the domain
  if (q == std::string_view::npos) return false;
  const std::string_view orig = tail.substr(p + 1, q - p - 1);
  const std::string_view user = tail.substr(q + 1);
  if (orig.empty() || user.empty()) return false;
  // `tail` may point into `local`: copy both before assigning either.
  std::string new_local(user);
  std::string new_domain(orig);
  local = std::move(new_local);
  domain = std::move(new_domain);
  return true;
}

bool IsSrsSeparator(char c) { return c == '=' || c == '+' || c == '-'; }

// One layer of BATV or SRS off `local` (and `domain`); false when there is
// none.
bool Unwrap(std::string& local, std::string& domain) {
  const std::string_view l = local;
  if (l.starts_with("prvs=")) {
    // prvs=KDDDSSSSSS=user (BATV draft, section 4.1).
    const std::string_view rest = l.substr(5);
    const std::size_t eq = rest.find('=');
    if (eq == std::string_view::npos || eq + 1 >= rest.size()) return false;
    local = std::string(rest.substr(eq + 1));
    return true;
  }
  if (l.starts_with("btv1==")) {
    // Barracuda's btv1==TAG==user.
    const std::string_view rest = l.substr(6);
    const std::size_t eq = rest.find("==");
    if (eq == std::string_view::npos || eq + 2 >= rest.size()) return false;
    local = std::string(rest.substr(eq + 2));
    return true;
  }
  if (l.size() > 5 && l.starts_with("srs0") && IsSrsSeparator(l[4])) {
    return SplitSrs0(l.substr(5), local, domain);
  }
  if (l.size() > 5 && l.starts_with("srs1") && IsSrsSeparator(l[4])) {
    // SRS1=HHH=first.hop==HHH=TT=orig=user: the SRS0 part follows the first
    // forwarder's domain and its own separator.
    const std::string_view rest = l.substr(5);
    std::size_t p = rest.find('=');  // after the hash
    if (p == std::string_view::npos) return false;
    p = rest.find('=', p + 1);  // after the first forwarder
    if (p == std::string_view::npos || p + 1 >= rest.size() ||
        !IsSrsSeparator(rest[p + 1])) {
      return false;
    }
    return SplitSrs0(rest.substr(p + 2), local, domain);
  }
  return false;
}

// A part of six or more hex digits with a digit among them is a number, a
// hash or a message id; names ("john", "deadbeef", "news2") stay.
bool IsToken(std::string_view part) {
  if (part.size() < 6) return false;
  bool digit = false;
  for (char c : part) {
    if (!IsHexDigit(c)) return false;
    digit = digit || IsDigit(c);
  }
  return digit;
}

std::string FoldTokens(std::string_view local) {
  std::string out;
  out.reserve(local.size());
  std::size_t start = 0;
  for (std::size_t i = 0; i <= local.size(); ++i) {
    if (i < local.size() && local[i] != '-' && local[i] != '.' &&
        local[i] != '_' && local[i] != '=') {
      continue;
    }
    const std::string_view part = local.substr(start, i - start);
    if (IsToken(part)) {
      out.push_back('#');
    } else {
      out.append(part);
    }
    if (i < local.size()) out.push_back(local[i]);
    start = i + 1;
  }
  return out;
}

}  // namespace

std::string FoldAddress(std::string_view address) {
  std::string_view a = Trim(address);
  if (a.size() >= 2 && a.front() == '<' && a.back() == '>') {
    a = Trim(a.substr(1, a.size() - 2));
  }
  if (a.empty()) return "";
  const std::string lowered = Lowered(a);
  const std::size_t at = lowered.rfind('@');
  std::string local = lowered.substr(0, at);
  std::string domain =
      at == std::string::npos ? std::string() : lowered.substr(at + 1);
  for (int round = 0; round < kMaxUnwrap && Unwrap(local, domain); ++round) {
  }
  // VERP (list-bounces+user=rcpt.example) and sub-addresses (user+tag) both
  // end at the first '+'; a local part that starts with '+' is left alone.
  if (const std::size_t plus = local.find('+');
      plus != std::string::npos && plus > 0) {
    local.resize(plus);
  }
  std::string out = FoldTokens(local);
  if (at != std::string::npos) {
    out.push_back('@');
    out += domain;
  }
  return out;
}

}  // namespace mw::sender
