// The Lua scripts of the Redis store and the key layout they share.
//
// Key layout (P = "{mw:<prefix>}:", the one hash tag of a site, so that every
// key a script touches lies in one Redis Cluster slot; every script gets
// P.."n" as KEYS[1], which routes it, and derives the others from it):
//   P.."v"          string  the layout (kRedisLayout)
//   P.."n"          string  the last message id (INCR); ids number messages
//                           in the order they were recorded
//   P.."lo"         string  no message below this id is stored (pruning
//                           walks up from it; ForEach and Stats start there)
//   P.."mc"         string  messages stored
//   P.."m:"<id>     string  one message, packed: arrival (6 bytes), cluster
//                           id (4), size (4), the lengths of the variable
//                           fields (1, 1, 1, 2 and 4 bytes), all big-endian,
//                           then the Message-ID hash (8 raw bytes), the
//                           identity hash (decimal; the sender's when the
//                           message has no identity), queue id, language,
//                           its index keys (4 bytes each; Prune needs them
//                           without decoding the fingerprint) and the
//                           fingerprint (fingerprint::Encode); then, only
//                           when one differs from its default (0, 1, none),
//                           a flags byte (1: authenticated), the recipients
//                           (4 bytes) and the network hash (8 raw bytes, or
//                           none). A string, not a hash: the fingerprint
//                           would push a hash out of the listpack encoding
//                           at twice the bytes.
//   P.."k:"<b>      string  index bucket b = key >> 18: 7-byte entries, the
//                           key's low 18 bits (3 bytes) then the low 32 bits
//                           of a message id filed under it (4 bytes), in
//                           arrival order; at most max_per_key per key (the
//                           newest). Packed entries cost 7 bytes where a
//                           hash field and value cost about 11, and 16,384
//                           buckets carry a quarter of the per-key overhead
//                           of 65,536.
//   P.."k:"<b>"."<n>...     a bucket that passed index_split_entries
//                           entries was split (layout 3): it holds the one
//                           byte 0 (a marker), and its entries moved to 16
//                           buckets named by the key's next 4 bits (n =
//                           key >> 14 & 15, then key >> 10 & 15, ...; 4
//                           levels at most), each in arrival order. A
//                           marker's TTL is renewed with its parts'.
//   P.."c:"<cid>    hash    a cluster of two or more (or a marked one): k
//                           canonical, f first_seen, l last_seen, n size,
//                           s senders (identities), g language, w wave, t
//                           since, a authenticated, e networks, r
//                           recipients (absent: as n), mk mark and ma
//                           marked_at (absent: none, 0), mo and mh the
//                           lowest member chunk that may hold a member and
//                           the one being filled (absent: 0)
//   P.."cm:"<cid>   zset    its members, scored by arrival, in chunks of at
//   P.."cm:"<cid>":"<j>     most 128 in record order (chunk 0 has no
//                           suffix): a zset of up to 128 stays a listpack,
//                           ~16 bytes a member against ~126 as a skiplist
//   P.."cs:"<cid>   set     its distinct identity hashes (a set, not a
//                           HyperLogLog: the count must equal SQLite's exactly)
//   P.."ca:"<cid>   set     those of them seen authenticated (none: no key)
//   P.."cn:"<cid>   set     its distinct network hashes (decimal, as the
//                           identities, so the set stays an intset)
//   P.."cs:"<cid>":"<j>     each of the three split into 2^b shards by a
//                           member's last 9 digits modulo 2^b once its count
//                           passes 384 a shard (shard 0 has no suffix; b in
//                           the hash's sb, ab, eb, absent: 0), so a shard
//                           stays under the 512 members of an intset; tr
//                           the arrival of the last TTL refresh of them all
//   P.."cl"         zset    clusters of size >= 2, scored by last_seen
//   P.."w"          string  clusters that became waves and are still stored
//   P.."x"          string  index entries stored (Stats::index_rows)
//
// A message that starts a cluster gets no cluster keys: its cluster id is a
// keyed permutation of its id's low 32 bits (key from the site's secret,
// passed as every script's first argument), so the id leads back to the
// message, which then reads as a cluster of one; the keys are made when a
// second message joins or the site marks it (SetMark). Most mail is never
// duplicated, and three keys per message cost more than the message string's
// fingerprint.
//
// Ids are packed as their low 32 bits, as the SQLite index does; the full id
// is the largest id <= P.."n" with those bits (ids only grow).
#ifndef MW_STORE_REDIS_SCRIPTS_H_
#define MW_STORE_REDIS_SCRIPTS_H_

#include <string>

namespace mw::store {

// The key layout this code reads and writes, kept at P.."v" (a string):
// OpenRedis refuses a site whose keys were written in another.
inline constexpr char kRedisLayout[] = "3";
// Layout 2 is layout 3 before any bucket was split: its keys read the same,
// so a site of layout 2 is marked 3 when this code first connects to it, and
// a mailwave of layout 2 then refuses it (it would read a split bucket's
// marker as its entries).
inline constexpr char kRedisLayoutBeforeSplits[] = "2";

// The hash tag and separator every key of a site starts with.
std::string RedisKeyPrefix(const std::string& prefix);

// The functions every script uses; a script's source is this followed by
// its own text. The store sends EVALSHA of the SHA-1 and EVAL when the server
// answers NOSCRIPT (after a restart).
extern const char kRedisLuaCommon[];

// The scripts. ARGV below leaves out the permutation key that comes first in
// every call.
//
// Find: ARGV = max_candidates, id... (ranked: the client read and ranked
//   the index buckets, redis_buckets.h); reads the first max_candidates of
//   those messages still stored and their clusters' hashes, and unpacks
//   nothing (the client does: redis_message.h).
//   returns {the last message id, ncand, [id, packed message]*ncand,
//            [cid, the cluster's hash as HGETALL gives it (empty: a cluster
//             of one), the canonical's packed message when the hash names
//             one that is not a candidate (else nil)]*}
extern const char kRedisFindScript[];
// Record: ARGV = join cid (0: new), new cid, arrival, fp, identity hash
//   (decimal), msgid hash, queue id, language, size, window ms, min_size,
//   ttl ms, max_earlier, max_per_key, prune_before (0: none), prune_max,
//   seen (-1: no check; see Join::seen), network hash (decimal; "" when
//   unknown), the same (8 raw bytes; ""), authenticated (0/1), recipients
//   (>= 1), key...
//   returns {"retry"} when the new cid is taken, {"conflict"} when the join
//   was a new cluster and a message newer than seen shares a key, else
//   {id, CLUSTER, window_size, became_wave, [id, arrival, queue, msgid]*}
extern const char kRedisRecordScript[];
// Prune: ARGV = before, max; returns the number removed.
extern const char kRedisPruneScript[];
// Page: ARGV = since, first id, count; returns {next id, more (0/1: ids
//   past it may hold messages), [id, arrival, fp]*}.
extern const char kRedisPageScript[];
// Clusters: ARGV = waves_only (0/1), since, min_size, limit;
//   returns CLUSTER*.
extern const char kRedisClustersScript[];
// Cluster: ARGV = cid; returns CLUSTER, or an empty list.
extern const char kRedisClusterScript[];
// SetMark: ARGV = cid, mark (0 clears), at, ttl ms (0: none; for the keys a
//   cluster of one gets); returns CLUSTER afterwards, or an empty list when
//   there is no such cluster.
extern const char kRedisSetMarkScript[];
// Members: ARGV = cid, limit; returns [id, arrival, queue, msgid]*.
extern const char kRedisMembersScript[];
// Stats: returns {messages, clusters, waves, index_rows, oldest, newest}.
extern const char kRedisStatsScript[];
// Check: ARGV = sample; returns a list of problems (empty: ok).
extern const char kRedisCheckScript[];

}  // namespace mw::store

#endif  // MW_STORE_REDIS_SCRIPTS_H_
