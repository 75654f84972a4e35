// The wave verdict: which earlier mail a message matches, and the header
// values the milter adds (and `mailwave check` prints) for it.
//
// Pure functions over the store's answer (store::Lookup) and the message's
// analysis; the store round trips and the clock live in pipeline/check.h.
//
// Header grammar (docs/waves.md), one regular expression each:
//   X-Mailwave-Wave: dup=(exact|near); method=(exact|blocks|containment|
//     trailer|reordered|ctph|simhash); sim=[01]\.[0-9]{2};
//     cluster=[0-9a-f]{8}; size=[0-9]+; senders=[0-9]+;
//     first=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z;
//     rcpts=[0-9]+; networks=[0-9]+; kind=(bulk|spread);
//     why=(allow|ham|spam|auth|unauth|senders|networks); wave=(yes|no)
//   X-Mailwave-Language: [a-z]{2,3}(-Han[st])?(\+[a-z]{2,3}(-Han[st])?)?|und;
//     score=[0-9]+; bilingual=(yes|no)
// (the fields in this order, separated by "; ").
//
// Thread-safety: pure functions.
#ifndef MW_PIPELINE_VERDICT_H_
#define MW_PIPELINE_VERDICT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fingerprint/fingerprint.h"
#include "langid/langid.h"
#include "mw/header_names.h"
#include "store/store.h"

namespace mw::pipeline {

// The earlier message a new one duplicates.
struct Match {
  store::ClusterId cluster = 0;
  std::int64_t message = 0;  // the store's id of the message it matched
  bool canonical = false;    // that message is its cluster's first
  fingerprint::Comparison comparison;
};

// Decides which cluster `fp` joins: it is compared with each candidate
// cluster's canonical (first) message first, in the order the clusters'
// members rank among the candidates, and only when none of those is a
// duplicate, with the other candidates, best first. Comparing with the
// canonical first keeps a chain of small edits (A~B, B~C, ... ) from drifting
// into unrelated mail. nullopt when nothing is a duplicate, or `fp` is empty.
std::optional<Match> Decide(const fingerprint::Fingerprint& fp,
                            const store::Lookup& lookup,
                            const fingerprint::Options& options);

// The score the header's sim= shows for a duplicate, in [0, 1]: 1 for exact,
// the block similarity (blocks), the containment (containment), the block
// similarity or else containment (trailer), 1 - edit rate (ctph) and
// 1 - Hamming/64 (reordered, simhash).
double Similarity(const fingerprint::Comparison& comparison);

// Whether the site wants a cluster's copies (docs/waves.md, "Kinds").
enum class WaveKind {
  kBulk,    // wanted bulk: newsletters, lists, receipts
  kSpread,  // a spread wave: what spam waves look like
};

// Why a message's cluster is of its kind, strongest first.
enum class WaveReason {
  kAllowed,          // bulk: an allow-list entry ([wave] allow) matched
  kHam,              // bulk: the cluster was learned or marked ham
  kSpam,             // spread: the cluster was learned or marked spam
  kAuthenticated,    // bulk: one authenticated identity, few networks
  kUnauthenticated,  // spread: this message's identity is not authenticated
  kSenders,          // spread: more than one identity in the cluster
  kNetworks,         // spread: more than [wave] bulk_networks networks
};

// "bulk", "spread"; "allow", "ham", "spam", "auth", "unauth", "senders",
// "networks".
std::string_view WaveKindName(WaveKind kind);
std::string_view WaveReasonName(WaveReason reason);

// The facts the kind is decided on, for one message in its cluster.
struct KindFacts {
  bool allowed = false;                   // an allow entry matched
  store::Mark mark = store::Mark::kNone;  // the cluster's mark
  bool authenticated = false;             // this message's identity
  // The cluster's distinct authenticated identities. Unauthenticated ones
  // are left out: a copy whose signature a forwarder broke, or a forger's
  // copy of the text, is spread itself but does not make the authenticated
  // sender's copies so.
  std::uint64_t authenticated_senders = 0;
  std::uint64_t networks = 0;       // the cluster's client networks
  std::uint32_t bulk_networks = 0;  // [wave] bulk_networks
};

// Allowed, then the cluster's mark, then the counts: bulk when this message
// is authenticated, its cluster holds one authenticated identity (this one)
// and at most bulk_networks networks; spread otherwise.
std::pair<WaveKind, WaveReason> DecideKind(const KindFacts& facts);

// What the wave header says.
struct WaveVerdict {
  fingerprint::Method method = fingerprint::Method::kNone;
  double similarity = 0;
  store::ClusterId cluster = 0;
  std::uint64_t size = 0;  // members including this message
  std::uint64_t senders = 0;
  store::UnixMillis first_seen = 0;
  std::uint64_t recipients = 0;  // of the cluster's members, this one's too
  std::uint64_t networks = 0;
  WaveKind kind = WaveKind::kSpread;
  WaveReason reason = WaveReason::kUnauthenticated;
  bool wave = false;
};

// What the MTA is asked to do with a message ([wave] action), beyond the
// headers: only for a spread wave (wave=yes), never for wanted bulk.
enum class Action {
  kNone,        // headers only ("header", or not a spread wave)
  kQuarantine,  // hold in the MTA's quarantine (smfi_quarantine)
  kReject,      // 550
  kTempfail,    // 451 while the cluster is young ([wave] young)
};
// "none", "quarantine", "reject", "tempfail".
std::string_view ActionName(Action action);

// "dup=near; method=blocks; sim=0.93; cluster=7f3a9c21; size=148;
// senders=97; first=2026-11-22T09:14:03Z; rcpts=150; networks=41;
// kind=spread; why=senders; wave=yes".
std::string WaveHeaderValue(const WaveVerdict& verdict);
// "en; score=87; bilingual=no", "en+es; score=61; bilingual=yes", "und; ...".
std::string LanguageHeaderValue(const langid::Language& language);

// RFC 3339 UTC, seconds: "2026-11-22T09:14:03Z".
std::string FormatTime(store::UnixMillis t);

// The header names (mw/header_names.h), as the pipeline has always named
// them.
using mw::kHeaderPrefix;
using mw::kLanguageHeader;
using mw::kWaveHeader;

struct Header {
  std::string name;
  std::string value;
  friend bool operator==(const Header&, const Header&) = default;
};

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_VERDICT_H_
