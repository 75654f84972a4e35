// The Redis store: every Record is one EVALSHA of a Lua script
// (redis_scripts.cc), so it costs one round trip and runs atomically on the
// server, beside other hosts' scripts; nothing here holds a lock across a
// round trip. Find is two: one MGET of the index buckets, ranked here
// (redis_buckets.h), then a script that reads the candidates and their
// clusters. The server's CPU is the shared resource of every MX host, and
// Lua's string work on the buckets was most of a Find's (docs/store.md).
// Between the two steps a message may be pruned (it is left out) or recorded
// (it is newer than Lookup::seen, which is the first step's).
//
// Why a pool of connections rather than one behind a mutex: a milter thread
// waits for its round trip; on one shared connection every thread would
// queue behind the slowest script, and one thread's timeout would break the
// connection under all the others. A connection per concurrent caller (idle
// ones kept, as the SQLite store keeps its readers) costs a socket each and
// keeps each caller's time its own.
#include <openssl/sha.h>
#include <signal.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "counts.h"
#include "fingerprint/encoding.h"
#include "keys.h"
#include "mark.h"
#include "rank.h"
#include "redis_buckets.h"
#include "redis_conn.h"
#include "redis_link.h"
#include "redis_message.h"
#include "redis_scripts.h"
#include "redis_slot.h"
#include "secret.h"
#include "store/redis.h"

namespace mw::store {
namespace {

// Old messages removed per Record when retention is set: more than one, so
// that removal keeps up with arrival, and few, so Record stays short.
constexpr int kPrunePerRecord = 4;
// ForEach reads the messages in pages of this many.
constexpr int kPageSize = 500;

struct Script {
  std::string source;  // kRedisLuaCommon and the script's own text
  std::string sha;     // hex SHA-1, as EVALSHA names the script
};

std::string Sha1Hex(std::string_view text) {
  unsigned char md[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), md);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char b : md) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::int64_t ParseInt(std::string_view s) {
  long long v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

Cluster ReadCluster(const Reply& r, std::size_t at) {
  Cluster c;
  c.id = static_cast<ClusterId>(r.at(at).integer());
  c.canonical = r.at(at + 1).integer();
  c.first_seen = r.at(at + 2).integer();
  c.last_seen = r.at(at + 3).integer();
  c.size = CountOf(r.at(at + 4).integer());
  c.senders = CountOf(r.at(at + 5).integer());
  c.language = std::string(r.at(at + 6).str());
  c.wave = r.at(at + 7).integer() != 0;
  c.wave_since = r.at(at + 8).integer();
  c.authenticated = CountOf(r.at(at + 9).integer());
  c.networks = CountOf(r.at(at + 10).integer());
  c.recipients = CountOf(r.at(at + 11).integer());
  c.mark = MarkOf(r.at(at + 12).integer());
  c.marked_at = r.at(at + 13).integer();
  return c;
}
constexpr std::size_t kClusterFields = 14;

// A cluster's hash as HGETALL gives it (the fields: redis_scripts.h).
// Absent fields read 0, but recipients, absent from hashes written before
// the field existed, reads as the size: each member counted one then.
Cluster ReadClusterHash(ClusterId id, const Reply& hash) {
  Cluster c;
  c.id = id;
  bool recipients = false;
  for (std::size_t i = 0; i + 1 < hash.size(); i += 2) {
    const std::string_view f = hash.at(i).str();
    const std::int64_t n = hash.at(i + 1).integer();
    if (f == "k") {
      c.canonical = n;
    } else if (f == "f") {
      c.first_seen = n;
    } else if (f == "l") {
      c.last_seen = n;
    } else if (f == "n") {
      c.size = CountOf(n);
    } else if (f == "s") {
      c.senders = CountOf(n);
    } else if (f == "g") {
      c.language = std::string(hash.at(i + 1).str());
    } else if (f == "w") {
      c.wave = n != 0;
    } else if (f == "t") {
      c.wave_since = n;
    } else if (f == "a") {
      c.authenticated = CountOf(n);
    } else if (f == "e") {
      c.networks = CountOf(n);
    } else if (f == "r") {
      c.recipients = CountOf(n);
      recipients = true;
    } else if (f == "mk") {
      c.mark = MarkOf(n);
    } else if (f == "ma") {
      c.marked_at = n;
    }
  }
  if (!recipients) c.recipients = c.size;
  return c;
}

// A keyed hash as the message strings keep it: 8 bytes, big-endian.
std::string PackHash(std::int64_t hash) {
  std::string out(8, '\0');
  auto v = static_cast<std::uint64_t>(hash);
  for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<char>(v & 0xff);
  return out;
}
std::int64_t UnpackHash(std::string_view bytes) {
  std::uint64_t v = 0;
  for (const char c : bytes.substr(0, 8)) {
    v = (v << 8) | static_cast<unsigned char>(c);
  }
  return static_cast<std::int64_t>(v);
}

Member ReadMember(const Reply& r, std::size_t at) {
  Member m;
  m.id = r.at(at).integer();
  m.arrival = r.at(at + 1).integer();
  m.queue_id = std::string(r.at(at + 2).str());
  m.message_id_hash = HashHex(UnpackHash(r.at(at + 3).str()));
  return m;
}
constexpr std::size_t kMemberFields = 4;

class RedisStore final : public Store {
 public:
  RedisStore(RedisOptions options, LinkOptions link, Secret secret)
      : options_(std::move(options)),
        link_(std::move(link)),
        secret_(secret),
        prefix_(RedisKeyPrefix(options_.prefix)),
        anchor_(prefix_ + "n"),
        permutation_key_(PackHash(secret_.Hash("cluster-id", "1")) +
                         PackHash(secret_.Hash("cluster-id", "2"))),
        permutation_(permutation_key_),
        rng_(std::random_device{}()) {
    for (const char* s :
         {kRedisFindScript, kRedisRecordScript, kRedisPruneScript,
          kRedisPageScript, kRedisClustersScript, kRedisClusterScript,
          kRedisMembersScript, kRedisStatsScript, kRedisCheckScript,
          kRedisSetMarkScript}) {
      std::string source = std::string(kRedisLuaCommon) + s;
      std::string sha = Sha1Hex(source);
      scripts_.push_back({std::move(source), std::move(sha)});
    }
  }

  Result<Lookup> Find(const Message& message) override;
  Result<Lookup> Fetch(std::span<const std::int64_t> ids) override;
  Result<std::uint64_t> ForEach(
      UnixMillis since,
      const std::function<bool(std::int64_t, UnixMillis,
                               const fingerprint::Fingerprint&)>& fn) override;
  Result<std::int64_t> ForEachNewer(
      std::int64_t after, std::size_t limit,
      const std::function<bool(std::int64_t, UnixMillis,
                               const fingerprint::Fingerprint&)>& fn) override;
  Result<Recorded> Record(const Message& message, const Join& join,
                          const WaveRule& rule) override;
  Result<std::vector<Cluster>> Clusters(bool waves_only, const WaveRule& rule,
                                        UnixMillis now,
                                        std::size_t limit) override;
  Result<std::optional<Cluster>> FindCluster(ClusterId id) override;
  Result<Cluster> SetMark(ClusterId id, Mark mark, UnixMillis now) override;
  Result<std::vector<Member>> Members(ClusterId id, std::size_t limit) override;
  Result<std::uint64_t> Prune(UnixMillis before, std::size_t batch,
                              std::size_t max_batches) override;
  Result<Stats> GetStats() override;
  Result<std::string> Check() override;

  // Connects once (OpenRedis reports a wrong address or password at once).
  Result<void> Probe();
  Result<void> CheckLayout(Link& c);

 private:
  enum ScriptId {
    kFind,
    kRecord,
    kPrune,
    kPage,
    kClusters,
    kCluster,
    kMembers,
    kStats,
    kCheck,
    kSetMark
  };

  // Runs script `id` with KEYS[1] = the site's anchor key and `args`, on a
  // pooled connection. Connection failures mark the server down (see
  // redis.h); an error reply becomes kUnavailable with Redis's text.
  Result<Reply> Eval(ScriptId id, const std::vector<std::string>& args);
  // EVALSHA on `link`, and EVAL when the server answers NOSCRIPT; an error
  // reply is returned as a reply.
  Result<Reply> EvalOn(Link& link, ScriptId id,
                       const std::vector<std::string>& args);
  // Ends a call on a borrowed link: a failure marks the server down and
  // drops the link; otherwise the link goes back to the pool and an error
  // reply becomes kUnavailable with Redis's text, after `command` when one
  // is named.
  Result<Reply> Settle(std::unique_ptr<Link> link, Result<Reply> r,
                       std::string_view command = {});
  // One plain command on a pooled connection, settled as a script is.
  // REQUIRES: !argv.empty().
  Result<Reply> Run(const std::vector<std::string_view>& argv);

  Result<std::unique_ptr<Link>> Borrow();
  void GiveBack(std::unique_ptr<Link> c);
  void WentDown(const Error& e);
  void CameBack();

  // `hits`: the ranking Find made of the ids it sent (their shared keys);
  // empty for Fetch.
  Result<Lookup> ReadLookup(const Reply& r,
                            const fingerprint::Fingerprint* query,
                            std::span<const BucketHit> hits);
  // One Page script call: the messages with ids from `from` (arrived at or
  // after `since`), passed to fn and counted in *seen.
  struct Page {
    std::int64_t next = 0;  // the id to read from next
    bool more = false;      // ids past `next` may hold messages
    bool stopped = false;   // fn returned false
    std::int64_t last = 0;  // the last id passed to fn
  };
  Result<Page> ReadPage(
      UnixMillis since, std::int64_t from, std::size_t count,
      const std::function<bool(std::int64_t, UnixMillis,
                               const fingerprint::Fingerprint&)>& fn,
      std::uint64_t* seen);

  const RedisOptions options_;
  const LinkOptions link_;
  const Secret secret_;
  const std::string prefix_;
  const std::string anchor_;
  // Keys the permutation that gives a single message its cluster id
  // (redis_scripts.h); from the site's secret, so every host agrees and the
  // ids reveal nothing of the message count.
  const std::string permutation_key_;
  const ClusterPermutation permutation_;  // of permutation_key_
  std::vector<Script> scripts_;

  std::mutex mu_;
  std::vector<std::unique_ptr<Link>> idle_;         // guarded by mu_
  std::mt19937_64 rng_;                             // guarded by mu_
  bool down_ = false;                               // guarded by mu_
  std::chrono::steady_clock::time_point retry_at_;  // guarded by mu_
  std::chrono::milliseconds backoff_{0};            // guarded by mu_
  std::string down_reason_;                         // guarded by mu_
  // Where Find has seen keys' buckets decided (a bucket, or a missing part
  // under markers), so that it asks for those depths and not all five: per
  // top bucket (a key's top 14 bits) the deepest such depth plus one, 0 for
  // one not seen yet; and the deepest over all of them, asked for under a
  // top bucket not seen yet. A key that is markers down to there is read
  // deeper in a second MGET and raises both. Splits only go deeper, so
  // these grow with the store; a stale one (the buckets expired) costs
  // names, never answers. (At a million messages every top bucket had split
  // once and 64 of 16,384 twice: two names a key almost everywhere.)
  static constexpr std::size_t kTopBuckets = std::size_t{1} << 14;
  std::unique_ptr<std::atomic<std::uint8_t>[]> top_depth_ =
      std::make_unique<std::atomic<std::uint8_t>[]>(kTopBuckets);
  std::atomic<int> bucket_depth_{0};
};

Result<std::unique_ptr<Link>> RedisStore::Borrow() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
    // While down, only one call per backoff period tries the server; the
    // others fail at once rather than each paying a connect timeout.
    if (down_) {
      const auto now = std::chrono::steady_clock::now();
      if (now < retry_at_) {
        return Fail(Error::Unavailable("redis: down: " + down_reason_));
      }
      retry_at_ = now + backoff_;
    }
  }
  auto c = Link::Open(link_);
  if (!c) {
    WentDown(c.error());
    return Fail(c.error());
  }
  // A fresh connection after a restart: the scripts are gone with the old
  // server; load them now so the first EVALSHA of each finds it.
  for (const Script& s : scripts_) {
    auto r = (*c)->Command({"SCRIPT", "LOAD", s.source});
    if (!r) {
      WentDown(r.error());
      return Fail(r.error());
    }
    if (r->type() == Reply::Type::kError) {
      return Fail(
          Error::Unavailable("redis: SCRIPT LOAD: " + std::string(r->str())));
    }
  }
  auto layout = CheckLayout(**c);
  if (!layout) {
    WentDown(layout.error());
    return Fail(layout.error());
  }
  return c;
}

void RedisStore::GiveBack(std::unique_ptr<Link> c) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(c));
}

void RedisStore::WentDown(const Error& e) {
  std::vector<std::unique_ptr<Link>> stale;
  bool say = false;
  // "redis: down: Broken pipe", not "redis: down: redis: Broken pipe".
  std::string reason = e.message();
  if (reason.rfind("redis: ", 0) == 0) reason.erase(0, 7);
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The other idle connections lead to the same server: after a restart
    // every one of them would fail once more.
    stale.swap(idle_);
    say = !down_;
    if (!down_) {
      down_ = true;
      backoff_ = options_.reconnect_min;
    } else {
      backoff_ = std::min(backoff_ * 2, options_.reconnect_max);
    }
    down_reason_ = reason;
    retry_at_ = std::chrono::steady_clock::now() + backoff_;
  }
  if (say && options_.log) options_.log("redis: down: " + reason);
}

void RedisStore::CameBack() {
  bool say = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    say = down_;
    down_ = false;
  }
  if (say && options_.log) options_.log("redis: back");
}

Result<Reply> RedisStore::Run(const std::vector<std::string_view>& argv) {
  auto c = Borrow();
  if (!c) return Fail(c.error());
  auto r = (*c)->Command(argv);
  return Settle(std::move(*c), std::move(r), argv.front());
}

Result<Reply> RedisStore::Eval(ScriptId id,
                               const std::vector<std::string>& args) {
  auto c = Borrow();
  if (!c) return Fail(c.error());
  auto r = EvalOn(**c, id, args);
  return Settle(std::move(*c), std::move(r));
}

Result<Reply> RedisStore::EvalOn(Link& link, ScriptId id,
                                 const std::vector<std::string>& args) {
  const Script& s = scripts_[id];
  std::vector<std::string_view> argv = {"EVALSHA", s.sha, "1", anchor_,
                                        permutation_key_};
  for (const std::string& a : args) argv.push_back(a);
  auto r = link.Command(argv);
  if (!r) return r;
  if (r->type() == Reply::Type::kError && r->str().substr(0, 8) == "NOSCRIPT") {
    argv[0] = "EVAL";
    argv[1] = s.source;
    r = link.Command(argv);
  }
  return r;
}

Result<Reply> RedisStore::Settle(std::unique_ptr<Link> link, Result<Reply> r,
                                 std::string_view command) {
  if (!r) {
    WentDown(r.error());  // the connection is dropped with `link`
    return r;
  }
  GiveBack(std::move(link));
  CameBack();
  if (r->type() == Reply::Type::kError) {
    std::string text = "redis: ";
    if (!command.empty()) text.append(command).append(": ");
    return Fail(Error::Unavailable(text.append(r->str())));
  }
  return r;
}

Result<void> RedisStore::Probe() {
  auto r = Run({"PING"});
  if (!r) return Fail(r.error());
  return {};
}

Result<void> RedisStore::CheckLayout(Link& c) {
  // The key layout a site's keys were written in (redis_scripts.h): scripts
  // of another layout would misread every message. Checked on every new
  // connection, so a server reached only after start is checked too.
  const std::string key = prefix_ + "v";
  auto set = c.Command({"SET", key, kRedisLayout, "NX"});
  if (!set) return Fail(set.error());
  auto got = c.Command({"GET", key});
  if (!got) return Fail(got.error());
  if (got->type() == Reply::Type::kError) {
    return Fail(Error::Unavailable("redis: GET: " + std::string(got->str())));
  }
  if (got->str() == kRedisLayoutBeforeSplits) {
    auto upgraded = c.Command({"SET", key, kRedisLayout});
    if (!upgraded) return Fail(upgraded.error());
    if (upgraded->type() == Reply::Type::kError) {
      return Fail(
          Error::Unavailable("redis: SET: " + std::string(upgraded->str())));
    }
    return {};
  }
  if (got->str() != kRedisLayout) {
    return Fail(Error::Corrupt(
        "redis: the keys under " + prefix_ + " are of store layout " +
        std::string(got->str()) + "; this mailwave reads layout " +
        kRedisLayout + " (choose another [store] redis_prefix, or delete " +
        prefix_ + "* after the retention)"));
  }
  return {};
}

Result<Lookup> RedisStore::ReadLookup(const Reply& r,
                                      const fingerprint::Fingerprint* query,
                                      std::span<const BucketHit> hits) {
  Lookup lookup;
  const auto malformed = [] {
    return Fail(Error::Unavailable("redis: malformed Find reply"));
  };
  // A torn message string or an undecodable fingerprint: nothing.
  const auto decode = [this](const std::optional<RedisMessage>& m)
      -> std::optional<fingerprint::Fingerprint> {
    if (!m) return std::nullopt;
    auto fp = fingerprint::Decode(m->fingerprint, options_.fingerprint);
    if (!fp) return std::nullopt;
    return std::move(*fp);
  };
  if (r.type() != Reply::Type::kArray || r.size() < 2) return malformed();
  const std::int64_t max_id = r.at(0).integer();
  lookup.seen = max_id;
  const auto n = static_cast<std::size_t>(r.at(1).integer());
  std::size_t at = 2;
  if (r.size() < 2 + n * 2) return malformed();
  // Candidates whose message cannot be read are skipped; their packed
  // strings stay in `r`, which outlives every view below.
  std::vector<RedisMessage> read;
  for (std::size_t i = 0; i < n; ++i, at += 2) {
    const auto m = ParseRedisMessage(r.at(at + 1).str());
    auto fp = decode(m);
    if (!fp) {
      ++lookup.skipped_rows;
      continue;
    }
    Candidate c;
    c.id = r.at(at).integer();
    c.arrival = m->arrival;
    c.cluster = m->cluster;
    for (const BucketHit& h : hits) {
      if (h.id == c.id) {
        c.shared_keys = h.shared;
        break;
      }
    }
    c.exact = query != nullptr && fp->body_bytes != 0 &&
              fp->body_sha1 == query->body_sha1;
    c.fingerprint = std::move(*fp);
    lookup.candidates.push_back(std::move(c));
    read.push_back(*m);
  }
  const auto candidate = [&](std::int64_t id) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < read.size(); ++i) {
      if (lookup.candidates[i].id == id) return i;
    }
    return std::nullopt;
  };
  // Each cluster row: cid, its hash's field/value pairs (none: a cluster
  // of one) and the canonical's packed message or nil.
  constexpr std::size_t kClusterRow = 3;
  std::vector<std::pair<Cluster, std::optional<fingerprint::Fingerprint>>>
      clusters;
  for (; at + kClusterRow <= r.size(); at += kClusterRow) {
    const auto cid = static_cast<ClusterId>(r.at(at).integer());
    const Reply hash = r.at(at + 1);
    Cluster c;
    c.id = cid;
    std::optional<fingerprint::Fingerprint> canonical;
    if (hash.size() >= 2) {
      c = ReadClusterHash(cid, hash);
      const Reply packed = r.at(at + 2);
      if (const auto i = candidate(c.canonical)) {
        canonical = lookup.candidates[*i].fingerprint;
      } else if (packed.type() == Reply::Type::kString) {
        auto fp = decode(ParseRedisMessage(packed.str()));
        if (fp) {
          canonical = std::move(*fp);
        } else {
          ++lookup.skipped_rows;
        }
      }
    } else {
      // A cluster of one: its id leads back to its message, which is a
      // candidate (the one that names it) unless its keys expired under a
      // member; then the cluster is left out, as a vanished one.
      const std::int64_t id =
          ResolveMessageId(permutation_.Inverse(cid), max_id);
      const auto i = id > 0 ? candidate(id) : std::nullopt;
      if (!i || read[*i].cluster != cid) continue;
      const RedisMessage& m = read[*i];
      c.canonical = id;
      c.first_seen = c.last_seen = m.arrival;
      c.size = c.senders = 1;
      c.language = std::string(m.language);
      c.authenticated = m.authenticated ? 1 : 0;
      c.networks = m.network.empty() ? 0 : 1;
      c.recipients = m.recipients;
      canonical = lookup.candidates[*i].fingerprint;
    }
    clusters.emplace_back(std::move(c), std::move(canonical));
  }
  // Find ranked by the exact key; `exact` proper is the whole SHA-1.
  SortCandidates(lookup.candidates);
  // In the order of the candidates that name them, as the SQLite store
  // gives them; a cluster whose candidates were all undecodable is left out.
  for (const Candidate& c : lookup.candidates) {
    for (auto& entry : clusters) {
      if (entry.first.id == c.cluster && entry.first.id != 0) {
        lookup.clusters.push_back(std::move(entry));
        entry.first.id = 0;  // taken
        break;
      }
    }
  }
  return lookup;
}

Result<Lookup> RedisStore::Find(const Message& message) {
  const std::vector<std::uint32_t> keys =
      IndexKeys(message.fingerprint, options_.fingerprint);
  if (keys.empty()) return Lookup{};
  const std::uint32_t exact_key = KeyOf(
      KeyKind::kExact,
      static_cast<std::uint64_t>(Sha1Prefix(message.fingerprint.body_sha1)));
  // Step one: the last id, the lowest one and the names each key's bucket
  // may have down to the deepest depth seen under its top bucket, in one
  // MGET (one snapshot); the ranking is the client's.
  const int anywhere =
      std::min(bucket_depth_.load(std::memory_order_relaxed), kBucketMaxDepth);
  const auto top = [](std::uint32_t key) { return key >> 18; };
  std::vector<int> asked(keys.size());
  std::vector<std::array<std::string, kBucketDepths>> names;
  names.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    // Read once per top bucket (IndexKeys are sorted), so that keys that
    // share one ask for the same depths even while another thread raises it.
    if (i > 0 && top(keys[i]) == top(keys[i - 1])) {
      asked[i] = asked[i - 1];
    } else {
      const int seen = top_depth_[top(keys[i])].load(std::memory_order_relaxed);
      asked[i] =
          (seen > 0 ? std::min(seen - 1, kBucketMaxDepth) : anywhere) + 1;
    }
    names.push_back(BucketNames(prefix_, keys[i]));
  }
  const std::string n_name = prefix_ + "n";
  const std::string lo_name = prefix_ + "lo";
  std::vector<std::string_view> argv = {"MGET", n_name, lo_name};
  // Where each key's name at each depth is in its MGET's reply. Only keys
  // of one top bucket share names, and they are neighbours asking for the
  // same depths: `ask` adds key i's names for depths [from, to) unless
  // `last` (the key asked for before it in the same MGET) added them.
  std::vector<std::array<std::size_t, kBucketDepths>> at(keys.size());
  const auto ask = [&](std::size_t i, int from, int to,
                       std::optional<std::size_t> last) {
    for (int d = from; d < to; ++d) {
      if (last && names[*last][d] == names[i][d]) {
        at[i][d] = at[*last][d];
      } else {
        at[i][d] = argv.size() - 1;
        argv.push_back(names[i][d]);
      }
    }
  };
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ask(i, 0, asked[i],
        i > 0 ? std::optional<std::size_t>(i - 1) : std::nullopt);
  }
  // Every step on one connection, and together no longer than one command
  // may take (redis.h): each step after the first gets what is left. The
  // socket's timeout is set only once the steps took a millisecond: two
  // system calls each way, which a healthy server never costs.
  auto borrowed = Borrow();
  if (!borrowed) return Fail(borrowed.error());
  std::unique_ptr<Link> link = std::move(*borrowed);
  const auto start = std::chrono::steady_clock::now();
  const std::chrono::microseconds whole = options_.command_timeout;
  bool shortened = false;
  const auto next_step = [&]() -> Result<void> {
    const auto left =
        whole - std::chrono::duration_cast<std::chrono::microseconds>(
                    std::chrono::steady_clock::now() - start);
    if (left >= whole - std::chrono::milliseconds(1)) return {};
    shortened = true;
    return link->SetTimeout(std::max(left, std::chrono::microseconds(1000)));
  };
  // One MGET of argv; on failure the link is settled (a connection failure
  // marks the server down) or, for a reply of the wrong shape, dropped.
  const auto mget = [&]() -> Result<Reply> {
    auto step = next_step();
    Result<Reply> r =
        step ? link->Command(argv) : Result<Reply>(Fail(step.error()));
    if (!r || r->type() == Reply::Type::kError) {
      return Fail(Settle(std::move(link), std::move(r), "MGET").error());
    }
    if (r->type() != Reply::Type::kArray || r->size() != argv.size() - 1) {
      link.reset();
      return Fail(Error::Unavailable("redis: malformed MGET reply"));
    }
    return r;
  };
  const auto value = [](const Reply& r,
                        std::size_t i) -> std::optional<std::string_view> {
    const Reply v = r.at(i);
    if (v.type() != Reply::Type::kString) return std::nullopt;
    return v.str();
  };
  auto read = mget();
  if (!read) return Fail(read.error());
  const std::int64_t max_id = value(*read, 0) ? ParseInt(*value(*read, 0)) : 0;
  const std::int64_t lowest = value(*read, 1) ? ParseInt(*value(*read, 1)) : 1;
  std::vector<std::array<std::optional<std::string_view>, kBucketDepths>>
      depths(keys.size());
  std::vector<BucketRead> reads(keys.size());
  std::vector<std::size_t> deeper;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    for (int d = 0; d < asked[i]; ++d) depths[i][d] = value(*read, at[i][d]);
    reads[i] = ReadBucketDepths(std::span(depths[i]).first(asked[i]));
    if (reads[i].state == BucketRead::State::kDeeper) deeper.push_back(i);
  }
  // Markers down to the last depth read: those keys' deeper names in a
  // second MGET. A later snapshot, which is harmless: a marker stays a
  // marker, and an entry newer than max_id resolves to no message (or to
  // one 2^32 ids older: below `lowest`, left out).
  std::optional<Reply> more;
  if (!deeper.empty()) {
    argv.resize(1);
    for (std::size_t j = 0; j < deeper.size(); ++j) {
      ask(deeper[j], asked[deeper[j]], kBucketDepths,
          j > 0 ? std::optional<std::size_t>(deeper[j - 1]) : std::nullopt);
    }
    auto got = mget();
    if (!got) return Fail(got.error());
    more.emplace(std::move(*got));
    for (const std::size_t i : deeper) {
      for (int d = asked[i]; d < kBucketDepths; ++d) {
        depths[i][d] = value(*more, at[i][d]);
      }
      reads[i] = ReadBucketDepths(depths[i]);
    }
  }
  std::vector<KeyBucket> buckets;
  int deepest = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const int depth = reads[i].depth;
    deepest = std::max(deepest, depth);
    std::atomic<std::uint8_t>& hint = top_depth_[top(keys[i])];
    // Raced by other threads at worst to a smaller value: a name short,
    // which costs one more MGET once, never an answer.
    if (hint.load(std::memory_order_relaxed) < depth + 1) {
      hint.store(static_cast<std::uint8_t>(depth + 1),
                 std::memory_order_relaxed);
    }
    if (reads[i].state == BucketRead::State::kHolds) {
      buckets.push_back({keys[i], reads[i].entries});
    }
  }
  for (int seen = bucket_depth_.load(std::memory_order_relaxed);
       deepest > seen && !bucket_depth_.compare_exchange_weak(
                             seen, deepest, std::memory_order_relaxed);) {
  }
  const std::vector<BucketHit> hits =
      RankBucketHits(buckets, exact_key, options_.max_per_key, max_id, lowest);
  const auto restore = [&]() -> Result<void> {
    if (!shortened) return {};
    return link->SetTimeout(whole);
  };
  if (hits.empty()) {
    if (auto back = restore(); !back) {
      WentDown(back.error());  // the link is dropped
      return Fail(back.error());
    }
    GiveBack(std::move(link));
    CameBack();
    Lookup none;
    none.seen = max_id;
    return none;
  }
  // Step two: the script reads the first max_candidates of them that are
  // still stored, with their clusters.
  std::vector<std::string> args = {std::to_string(options_.max_candidates)};
  for (const BucketHit& h : hits) args.push_back(std::to_string(h.id));
  auto set = next_step();
  Result<Reply> r =
      set ? EvalOn(*link, kFind, args) : Result<Reply>(Fail(set.error()));
  if (r) {
    if (auto back = restore(); !back) r = Fail(back.error());
  }
  auto settled = Settle(std::move(link), std::move(r));
  if (!settled) return Fail(settled.error());
  auto lookup = ReadLookup(*settled, &message.fingerprint, hits);
  // The buckets were read at max_id: a message recorded since is newer than
  // what this lookup saw (Join::seen), whatever step two found.
  if (lookup) lookup->seen = max_id;
  return lookup;
}

Result<Lookup> RedisStore::Fetch(std::span<const std::int64_t> ids) {
  if (ids.empty()) return Lookup{};
  std::vector<std::string> args = {std::to_string(options_.max_candidates)};
  for (const std::int64_t id : ids) args.push_back(std::to_string(id));
  auto r = Eval(kFind, args);
  if (!r) return Fail(r.error());
  // Capped in the caller's order, then ranked as SQLite ranks them.
  return ReadLookup(*r, nullptr, {});
}

Result<std::uint64_t> RedisStore::ForEach(
    UnixMillis since,
    const std::function<bool(std::int64_t, UnixMillis,
                             const fingerprint::Fingerprint&)>& fn) {
  // In id order (the order messages were recorded), a page per round trip,
  // each page resuming at the id the last one stopped at: not one snapshot
  // as SQLite's, but a message recorded or pruned meanwhile is one more or
  // one fewer, which the comparison engine's window tolerates (it follows
  // records anyway).
  std::uint64_t seen = 0;
  bool more = true;
  for (std::int64_t cursor = 1; more;) {
    auto page = ReadPage(since, cursor, kPageSize, fn, &seen);
    if (!page) return Fail(page.error());
    if (page->stopped) break;
    cursor = page->next;
    more = page->more;
  }
  return seen;
}

Result<std::int64_t> RedisStore::ForEachNewer(
    std::int64_t after, std::size_t limit,
    const std::function<bool(std::int64_t, UnixMillis,
                             const fingerprint::Fingerprint&)>& fn) {
  std::uint64_t seen = 0;
  std::int64_t cursor = after + 1;
  while (seen < limit) {
    auto page = ReadPage(
        0, cursor, std::min<std::size_t>(limit - seen, kPageSize), fn, &seen);
    if (!page) return Fail(page.error());
    if (page->stopped) return page->last;
    cursor = page->next;
    if (!page->more) break;
  }
  return cursor - 1;
}

Result<RedisStore::Page> RedisStore::ReadPage(
    UnixMillis since, std::int64_t from, std::size_t count,
    const std::function<bool(std::int64_t, UnixMillis,
                             const fingerprint::Fingerprint&)>& fn,
    std::uint64_t* seen) {
  auto r = Eval(kPage, {std::to_string(since), std::to_string(from),
                        std::to_string(count)});
  if (!r) return Fail(r.error());
  if (r->type() != Reply::Type::kArray || r->size() < 2) {
    return Fail(Error::Unavailable("redis: malformed page reply"));
  }
  Page page;
  page.next = r->at(0).integer();
  page.more = r->at(1).integer() != 0;
  page.last = from - 1;
  for (std::size_t i = 2; i + 3 <= r->size(); i += 3) {
    page.last = r->at(i).integer();
    auto fp = fingerprint::Decode(r->at(i + 2).str(), options_.fingerprint);
    if (!fp) continue;
    ++*seen;
    if (!fn(page.last, r->at(i + 1).integer(), *fp)) {
      page.stopped = true;
      break;
    }
  }
  return page;
}

Result<Recorded> RedisStore::Record(const Message& message, const Join& join,
                                    const WaveRule& rule) {
  const std::vector<std::uint32_t> keys =
      IndexKeys(message.fingerprint, options_.fingerprint);
  std::vector<std::string> args(22);
  args[0] = std::to_string(join.cluster.value_or(0));
  args[2] = std::to_string(message.arrival);
  args[3] = fingerprint::Encode(message.fingerprint, options_.fingerprint);
  // The cluster counts identities, the envelope sender standing in for a
  // message that has none (as the SQLite store counts them).
  args[4] = std::to_string(message.identity.empty()
                               ? secret_.Hash("sender", message.sender)
                               : secret_.Hash("identity", message.identity));
  args[5] = PackHash(secret_.Hash("message-id", message.message_id));
  // The message string keeps these lengths in one byte each (a queue id is
  // a dozen characters, a language code a few) and the size in four.
  args[6] = message.queue_id.substr(0, 255);
  args[7] = message.language.substr(0, 255);
  args[8] = std::to_string(
      std::min<std::uint64_t>(message.size, std::uint64_t{0xffffffff}));
  args[9] = std::to_string(rule.window.count());
  args[10] = std::to_string(rule.min_size);
  const std::int64_t retention = options_.retention.count();
  args[11] = std::to_string(2 * retention);
  args[12] = std::to_string(kMaxEarlier);
  args[13] = std::to_string(options_.max_per_key);
  args[14] = std::to_string(retention > 0 && options_.prune_on_record
                                ? message.arrival - retention
                                : 0);
  args[15] = std::to_string(kPrunePerRecord);
  args[16] = std::to_string(!join.cluster && join.seen ? *join.seen : -1);
  if (!message.network.empty()) {
    const std::int64_t network = secret_.Hash("network", message.network);
    args[17] = std::to_string(network);  // the set's member
    args[18] = PackHash(network);        // the message string's copy
  }
  args[19] = message.authenticated ? "1" : "0";
  args[20] = std::to_string(std::max<std::uint32_t>(1, message.recipients));
  args[21] =
      std::to_string(std::max<std::size_t>(1, options_.index_split_entries));
  for (const std::uint32_t k : keys) args.push_back(std::to_string(k));

  // A new cluster's id is drawn here (Lua's random numbers repeat across
  // calls); the script answers "retry" when it is taken.
  for (int attempt = 0; attempt < 64; ++attempt) {
    ClusterId id = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      while (id == 0) id = static_cast<ClusterId>(rng_());
    }
    args[1] = std::to_string(id);
    auto r = Eval(kRecord, args);
    if (!r) return Fail(r.error());
    if (r->size() == 1 && r->at(0).str() == "retry") continue;
    if (r->size() == 1 && r->at(0).str() == "conflict") {
      return Fail(Error::Conflict(
          "redis: a message recorded meanwhile shares an index key"));
    }
    if (r->size() < 1 + kClusterFields + 2) {
      return Fail(Error::Unavailable("redis: malformed Record reply"));
    }
    Recorded out;
    out.id = r->at(0).integer();
    out.cluster = ReadCluster(*r, 1);
    // The script stops counting at min_size too, at a chunk's ZCOUNT's
    // granularity; capped as SQLite's count is (store.h).
    out.window_size = std::min<std::uint64_t>(
        static_cast<std::uint64_t>(r->at(1 + kClusterFields).integer()),
        rule.min_size);
    out.became_wave = r->at(2 + kClusterFields).integer() != 0;
    for (std::size_t i = 3 + kClusterFields; i + kMemberFields <= r->size();
         i += kMemberFields) {
      out.earlier.push_back(ReadMember(*r, i));
    }
    return out;
  }
  return Fail(Error::Internal("store: no free cluster id after 64 tries"));
}

Result<std::vector<Cluster>> RedisStore::Clusters(bool waves_only,
                                                  const WaveRule& rule,
                                                  UnixMillis now,
                                                  std::size_t limit) {
  std::vector<Cluster> out;
  if (limit == 0) return out;
  auto r =
      Eval(kClusters,
           {waves_only ? "1" : "0", std::to_string(now - rule.window.count()),
            std::to_string(rule.min_size), std::to_string(limit)});
  if (!r) return Fail(r.error());
  for (std::size_t i = 0; i + kClusterFields <= r->size();
       i += kClusterFields) {
    out.push_back(ReadCluster(*r, i));
  }
  return out;
}

Result<std::optional<Cluster>> RedisStore::FindCluster(ClusterId id) {
  auto r = Eval(kCluster, {std::to_string(id)});
  if (!r) return Fail(r.error());
  if (r->size() == 0) return std::optional<Cluster>();
  if (r->size() != kClusterFields) {
    return Fail(Error::Unavailable("redis: malformed cluster reply"));
  }
  return std::optional<Cluster>(ReadCluster(*r, 0));
}

Result<Cluster> RedisStore::SetMark(ClusterId id, Mark mark, UnixMillis now) {
  // A cluster of one gets its keys (redis_scripts.h), with the TTL a second
  // member would give them.
  const std::int64_t ttl = 2 * options_.retention.count();
  auto r = Eval(kSetMark,
                {std::to_string(id), std::to_string(static_cast<int>(mark)),
                 std::to_string(now), std::to_string(ttl)});
  if (!r) return Fail(r.error());
  if (r->size() == 0) {
    return Fail(Error::NotFound("store: no cluster " + ClusterIdString(id)));
  }
  if (r->size() != kClusterFields) {
    return Fail(Error::Unavailable("redis: malformed SetMark reply"));
  }
  return ReadCluster(*r, 0);
}

Result<std::vector<Member>> RedisStore::Members(ClusterId id,
                                                std::size_t limit) {
  std::vector<Member> out;
  if (limit == 0) return out;
  auto r =
      Eval(kMembers, {std::to_string(id),
                      std::to_string(std::min<std::size_t>(limit, 1u << 30))});
  if (!r) return Fail(r.error());
  for (std::size_t i = 0; i + kMemberFields <= r->size(); i += kMemberFields) {
    out.push_back(ReadMember(*r, i));
  }
  return out;
}

Result<std::uint64_t> RedisStore::Prune(UnixMillis before, std::size_t batch,
                                        std::size_t max_batches) {
  std::uint64_t removed = 0;
  if (batch == 0) return removed;
  for (std::size_t i = 0; i < max_batches; ++i) {
    auto r = Eval(kPrune, {std::to_string(before), std::to_string(batch)});
    if (!r) return Fail(r.error());
    const auto n = static_cast<std::uint64_t>(r->integer());
    removed += n;
    if (n < batch) break;
  }
  return removed;
}

Result<Stats> RedisStore::GetStats() {
  auto r = Eval(kStats, {});
  if (!r) return Fail(r.error());
  if (r->size() != 6) {
    return Fail(Error::Unavailable("redis: malformed stats reply"));
  }
  Stats s;
  s.messages = static_cast<std::uint64_t>(r->at(0).integer());
  s.clusters = static_cast<std::uint64_t>(r->at(1).integer());
  s.waves =
      static_cast<std::uint64_t>(std::max<std::int64_t>(0, r->at(2).integer()));
  s.index_rows =
      static_cast<std::uint64_t>(std::max<std::int64_t>(0, r->at(3).integer()));
  s.oldest = r->at(4).integer();
  s.newest = r->at(5).integer();
  // The server's whole memory (several sites may share it): the nearest
  // thing Redis has to a file size.
  auto info = Run({"INFO", "memory"});
  if (info) {
    const std::string_view text = info->str();
    constexpr std::string_view kUsed = "used_memory:";
    const std::size_t pos = text.find(kUsed);
    if (pos != std::string_view::npos) {
      s.file_bytes =
          static_cast<std::uint64_t>(ParseInt(text.substr(pos + kUsed.size())));
    }
  }
  s.writable = true;
  s.path = options_.address + " " + prefix_;
  return s;
}

Result<std::string> RedisStore::Check() {
  auto r = Eval(kCheck, {"100000"});
  if (!r) return Fail(r.error());
  if (r->size() == 0) return std::string("ok");
  std::string out;
  for (std::size_t i = 0; i < r->size(); ++i) {
    if (!out.empty()) out += '\n';
    out += r->at(i).str();
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<Store>> OpenRedis(const RedisOptions& options) {
  // hiredis writes with write(2): a server that closed the connection (killed,
  // restarted) would raise SIGPIPE, whose default action ends the whole
  // milter. A disposition someone chose already is left alone.
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 &&
      current.sa_handler == SIG_DFL) {
    ::signal(SIGPIPE, SIG_IGN);
  }
  // The seeds first: a mix of tls:// and tcp:// is said as such.
  auto seeds = ParseClusterSeeds(options.cluster);
  if (!seeds) return Fail(seeds.error());
  auto connect = ConnectOptionsFor(options);
  if (!connect) return Fail(connect.error());
  if (options.secret_path.empty()) {
    return Fail(Error::InvalidArgument(
        "redis: a secret file is required (every host of a site must share "
        "it)"));
  }
  auto secret = LoadOrCreateSecret(options.secret_path);
  if (!secret) return Fail(secret.error());
  LinkOptions link;
  link.connect = std::move(*connect);
  link.cluster = std::move(*seeds);
  // Every key of the site carries its hash tag: one slot (for now; issue 28
  // spreads them).
  link.slot = KeySlot(RedisKeyPrefix(options.prefix));
  auto store = std::make_unique<RedisStore>(options, std::move(link), *secret);
  // A server that cannot be reached now (down, restarting, not yet up at
  // boot) leaves the store down, said once in the log, and reconnected by
  // the backoff on a later call: the milter starts and passes mail untagged
  // until it is back. What a later call cannot cure fails here: refused
  // credentials, a wrong database, another layout.
  auto probe = store->Probe();
  if (!probe && probe.error().code() != Error::Code::kUnavailable) {
    return Fail(probe.error());
  }
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace mw::store
