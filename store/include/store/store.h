// The wave store: a memory of recent mail, hashes only, and the clusters
// (spam waves) that near-duplicate messages form in it.
//
// A Store answers two questions per message, each one round trip's worth of
// data so that a networked backend (Redis, a later issue) can serve each with
// one pipelined exchange:
//   Lookup  - which stored messages share an index key with this fingerprint
//             (exact body SHA-1, sampled block keys, SimHash bands, CTPH
//             grams), best first and capped, with their fingerprints and the
//             clusters they belong to (each cluster's canonical, i.e. first,
//             message's fingerprint included);
//   Record  - store this message, joining the cluster the caller chose (or
//             starting one), and return the cluster as it stands afterwards.
// Which cluster a message joins is decided between the two by the caller
// (pipeline's wave decision, pure code over Compare), never inside the store,
// so no comparison work ever runs while a backend holds a write lock.
//
// Nothing in the store holds text: message ids and senders are kept as keyed
// hashes (HMAC-SHA-256 under a per-site secret, truncated to 64 bits), bodies
// as their fingerprints.
//
// Errors: every call returns a Result; kUnavailable means "busy or down, try
// the configured action" and kCorrupt a file that is not a mailwave store or
// is damaged. A store whose writes were turned off (full disk, read-only file)
// still answers Lookup; Record then fails with kUnavailable and the store says
// so once in its log, not per message.
//
// Thread-safety: a Store is safe to call from many threads at once.
#ifndef MW_STORE_STORE_H_
#define MW_STORE_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fingerprint/fingerprint.h"
#include "mw/result.h"

namespace mw::store {

// Milliseconds since the Unix epoch, UTC.
using UnixMillis = std::int64_t;

// The system clock as UnixMillis.
inline UnixMillis NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Receives the store's log lines (one line each, no trailing newline); the
// programs send them to stderr or syslog. Called from any thread.
using LogFn = std::function<void(std::string_view line)>;

// A cluster id as the headers show it: 32 bits, printed as 8 hex digits.
// Never 0.
using ClusterId = std::uint32_t;

// "7f3a9c21".
std::string ClusterIdString(ClusterId id);

// Parses ClusterIdString's form (1-8 hex digits); nullopt otherwise.
std::optional<ClusterId> ParseClusterId(std::string_view text);

// What the site said about a cluster (`mailwave learn`, `mailwave store
// allow|deny|forget`): kHam makes its copies wanted bulk whatever the counts
// say, kSpam a spread wave; kNone leaves it to the counts. The latest word
// stands.
enum class Mark : std::uint8_t { kNone = 0, kHam = 1, kSpam = 2 };
// "none", "ham", "spam".
std::string_view MarkName(Mark mark);

// The message to look up or record. The fingerprint must have been computed
// under the same fingerprint::Options the store was opened with (the encoding
// records them; see fingerprint/encoding.h).
struct Message {
  fingerprint::Fingerprint fingerprint;
  UnixMillis arrival = 0;
  std::string queue_id;    // kept as given (it names a file in the MTA's queue)
  std::string message_id;  // Message-ID header value; kept only as a keyed hash
  std::string sender;      // envelope sender; kept only as a keyed hash
  // Who sent it, as sender::Identity::Key() gives it ("a:example.com" for an
  // authenticated identity, "u:example.org" for one that is not): kept only
  // as a keyed hash; the cluster's `senders` counts distinct ones. Empty:
  // the envelope sender counts instead (callers that know no identity).
  std::string identity;
  bool authenticated = false;  // `identity` was authenticated
  // The SMTP client's network ("192.0.2.0/24", "2001:db8:1::/48"), kept only
  // as a keyed hash; empty when unknown (not counted).
  std::string network;
  // RCPT TO addresses of this delivery; 0 (unknown) counts as 1.
  std::uint32_t recipients = 0;
  std::string language;    // the language verdict's code ("en", "und")
  std::uint64_t size = 0;  // raw message bytes
};

// One stored message that shares at least one index key with the query.
struct Candidate {
  std::int64_t id = 0;  // the store's message id
  ClusterId cluster = 0;
  UnixMillis arrival = 0;
  std::uint32_t shared_keys = 0;  // index keys shared with the query
  bool exact = false;             // same body SHA-1
  fingerprint::Fingerprint fingerprint;
};

struct Cluster {
  ClusterId id = 0;
  std::int64_t canonical = 0;  // message id of the first member
  UnixMillis first_seen = 0;
  UnixMillis last_seen = 0;
  std::uint64_t size = 0;     // members still stored
  std::uint64_t senders = 0;  // distinct identities (Message::identity)
  // Distinct authenticated identities among them.
  std::uint64_t authenticated = 0;
  std::uint64_t networks = 0;    // distinct known client networks
  std::uint64_t recipients = 0;  // recipients of the members still stored
  Mark mark = Mark::kNone;       // the site's word (SetMark)
  UnixMillis marked_at = 0;      // when it was said (0: never)
  std::string language;          // the canonical message's language
  bool wave = false;             // it became a wave at some point
  UnixMillis wave_since = 0;     // when it became one (0 if never)
};

struct Lookup {
  // Best first: exact matches, then by shared_keys, then newest. At most
  // Options::max_candidates, each cluster's canonical always included when
  // one of its members is.
  std::vector<Candidate> candidates;
  // Every cluster a candidate belongs to, with its canonical message's
  // fingerprint (nullopt when that message was pruned or its row is corrupt).
  std::vector<std::pair<Cluster, std::optional<fingerprint::Fingerprint>>>
      clusters;
  // Rows whose fingerprint could not be decoded (corrupt, or written under
  // other fingerprint options); they are skipped, never compared.
  std::uint32_t skipped_rows = 0;
  // The newest message id the store held when it answered (0: none). A Join
  // that starts a new cluster passes it back (Join::seen).
  std::int64_t seen = 0;
};

// A member of a cluster, as a wave event names it.
struct Member {
  std::int64_t id = 0;
  UnixMillis arrival = 0;
  std::string queue_id;
  std::string message_id_hash;  // 16 hex digits
};

struct Recorded {
  std::int64_t id = 0;  // the new message's id
  Cluster cluster;      // after the join; size counts this message
  // Members that arrived inside the wave window, counted up to the rule's
  // min_size: all that a caller compares it with, and it bounds what a
  // Record reads in a wave of millions of copies.
  std::uint64_t window_size = 0;
  // True exactly once per cluster: on the Record call that made window_size
  // reach the wave's min_size. `earlier` then lists the members before this
  // message (oldest first), for the wave event.
  bool became_wave = false;
  std::vector<Member> earlier;
};

// Which cluster Record puts the message in.
struct Join {
  std::optional<ClusterId> cluster;  // nullopt: start a new cluster
  // With `cluster` nullopt: the Lookup::seen the decision was made on. Record
  // then fails with kConflict, storing nothing, when a message recorded after
  // it shares an index key with this one: another writer (a milter thread,
  // another MX host) started or joined a cluster meanwhile that this message
  // was not compared with. The caller finds and decides again; without the
  // check two hosts that see the first two copies of a wave at the same moment
  // would start two clusters. nullopt: no check.
  std::optional<std::int64_t> seen;
};

struct WaveRule {
  std::uint64_t min_size = 5;
  std::chrono::milliseconds window = std::chrono::hours(1);
};

struct Stats {
  std::uint64_t messages = 0;
  std::uint64_t clusters = 0;  // with at least two members
  std::uint64_t waves = 0;     // clusters that are waves now
  // Index entries stored. Redis: with those of pruned messages that no
  // Record has cut from their bucket yet (docs/store.md, "Retention").
  std::uint64_t index_rows = 0;
  std::uint64_t file_bytes = 0;  // the database file on disk
  std::uint64_t wal_bytes = 0;   // its write-ahead log, not yet folded back
  UnixMillis oldest = 0;
  UnixMillis newest = 0;
  bool writable = true;
  std::string path;
};

class Store {
 public:
  virtual ~Store() = default;

  // The candidates for `message` (its fingerprint alone is read).
  virtual Result<Lookup> Find(const Message& message) = 0;

  // The stored messages `ids` (the comparison engine's answers, best first),
  // as Find gives its candidates: their fingerprints, their clusters and each
  // cluster's canonical fingerprint; at most max_candidates of them, ids no
  // longer stored left out. Candidate::shared_keys and exact are 0 / false.
  virtual Result<Lookup> Fetch(std::span<const std::int64_t> ids) = 0;

  // Calls fn(id, arrival, fingerprint) for every stored message that arrived
  // at or after `since`, oldest first, until fn returns false (rows that do
  // not decode are skipped); returns how many were passed. One read
  // snapshot: the comparison engine's window is loaded from it at start.
  virtual Result<std::uint64_t> ForEach(
      UnixMillis since,
      const std::function<bool(std::int64_t, UnixMillis,
                               const fingerprint::Fingerprint&)>& fn) = 0;

  // Calls fn(id, arrival, fingerprint) for the stored messages with an id
  // above `after`, in id order (the order they were recorded), at most
  // `limit` of them, until fn returns false (rows that do not decode are
  // skipped); returns the id to pass as `after` next time (`after` itself when
  // nothing newer was stored). The comparison engine's window follows what
  // other hosts record into a shared store with it.
  virtual Result<std::int64_t> ForEachNewer(
      std::int64_t after, std::size_t limit,
      const std::function<bool(std::int64_t, UnixMillis,
                               const fingerprint::Fingerprint&)>& fn) = 0;

  // Stores `message` in the cluster `join` names (which must exist; when it
  // was pruned meanwhile a new cluster is started) and returns the cluster
  // afterwards. `rule` decides window_size and became_wave. kConflict: see
  // Join::seen.
  virtual Result<Recorded> Record(const Message& message, const Join& join,
                                  const WaveRule& rule) = 0;

  // Clusters with at least two members, newest activity first; `waves_only`
  // keeps those that are waves at `now` under `rule`.
  virtual Result<std::vector<Cluster>> Clusters(bool waves_only,
                                                const WaveRule& rule,
                                                UnixMillis now,
                                                std::size_t limit) = 0;
  virtual Result<std::optional<Cluster>> FindCluster(ClusterId id) = 0;
  // Sets (kHam, kSpam) or clears (kNone) the site's mark on cluster `id`,
  // said at `now`, and returns the cluster afterwards; kNotFound when the
  // store holds no such cluster. The mark lives as long as the cluster.
  virtual Result<Cluster> SetMark(ClusterId id, Mark mark, UnixMillis now) = 0;
  // Members of a cluster, oldest first, at most `limit`.
  virtual Result<std::vector<Member>> Members(ClusterId id,
                                              std::size_t limit) = 0;

  // Removes messages that arrived before `before`, at most `batch` per
  // transaction, until none is left or `max_batches` ran; returns how many
  // were removed. Empty clusters go with their last member.
  virtual Result<std::uint64_t> Prune(UnixMillis before, std::size_t batch,
                                      std::size_t max_batches) = 0;

  virtual Result<Stats> GetStats() = 0;
  // Full integrity check (PRAGMA integrity_check for SQLite): "ok" or the
  // problems found.
  virtual Result<std::string> Check() = 0;
};

}  // namespace mw::store

#endif  // MW_STORE_STORE_H_
