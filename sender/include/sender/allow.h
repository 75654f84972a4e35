// The site's allow list ([wave] allow): senders whose waves it wants.
//
// File format, one entry a line, `#` to the end of a line is a comment,
// blank lines ignored, KIND and VALUE separated by white space:
//   dkim DOMAIN       a passing trusted DKIM signature of DOMAIN or a
//                     subdomain of it
//   spf DOMAIN        SPF pass (trusted) for DOMAIN or a subdomain
//   sender PATTERN    the envelope sender, `*` matching any run of
//                     characters, without case; only when the message is
//                     authenticated for that address's domain (a trusted
//                     DKIM or SPF pass of its registrable domain): an
//                     unauthenticated address alone never buys trust
//   list-id ID        List-Id's id, `*` wildcards; only when the message's
//                     identity is authenticated and is the registrable
//                     domain of the list's host
//   ip CIDR           the SMTP client's address is in CIDR
//   cluster ID        the cluster id (8 hex digits) the headers show
// Errors name the place: "FILE:LINE: reason"; a file with any error is
// refused as a whole.
//
// Thread-safety: immutable once parsed.
#ifndef MW_SENDER_ALLOW_H_
#define MW_SENDER_ALLOW_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mw/result.h"
#include "sender/address.h"
#include "sender/identity.h"

namespace mw::sender {

enum class AllowKind { kDkim, kSpf, kSender, kListId, kIp, kCluster };

// "dkim", "spf", "sender", "list-id", "ip", "cluster".
std::string_view AllowKindName(AllowKind kind);

struct AllowEntry {
  AllowKind kind;
  std::string value;  // as written (domains and ids lower-cased)
  int line = 0;       // in its file, from 1
};

class AllowList {
 public:
  AllowList() = default;  // allows nothing

  // `file` names the source in errors.
  static Result<AllowList> Parse(std::string_view text, std::string_view file);
  // Reads and parses `path`; an unreadable file is "PATH: reason".
  static Result<AllowList> Load(const std::string& path);

  // The first entry (in file order) that allows `identity`; nullptr when
  // none. Cluster entries are asked with MatchCluster.
  const AllowEntry* Match(const Identity& identity,
                          const SuffixList* suffixes) const;
  // The cluster entry for `cluster`; nullptr when none.
  const AllowEntry* MatchCluster(std::uint32_t cluster) const;

  const std::vector<AllowEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<AllowEntry> entries_;
  std::vector<Cidr> cidrs_;  // one per kIp entry, in order
};

}  // namespace mw::sender

#endif  // MW_SENDER_ALLOW_H_
