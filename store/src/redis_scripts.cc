#include "redis_scripts.h"

namespace mw::store {

std::string RedisKeyPrefix(const std::string& prefix) {
  return "{mw:" + prefix + "}:";
}

// Shared by the scripts: the prefix, id resolution, the cluster ids of single
// messages, reading a cluster and removing one message. Lua numbers are
// doubles: ids, arrivals and cluster ids stay far below 2^53. Sender hashes
// are opaque decimal strings (a cluster's sender set then stays an intset),
// Message-ID hashes 8 raw bytes; never arithmetic. ARGV[1] of every call is
// the 16-byte key of the cluster-id permutation (taken off ARGV here). Each
// script is sent as this text followed by its own.
const char kRedisLuaCommon[] = R"lua(
local PK = table.remove(ARGV, 1)
local P = string.sub(KEYS[1], 1, -2)
local W32 = 4294967296
local function maxid() return tonumber(redis.call('GET', P..'n') or 0) end
local function lowest() return tonumber(redis.call('GET', P..'lo') or 1) end
local function resolve(low, max)
  local id = max - ((max % W32) - low) % W32
  if id <= 0 then return nil end
  return id
end
-- A single message's cluster id is a keyed permutation of its id's low 32
-- bits, so no key is spent on a cluster until a second message joins it
-- (most mail is never duplicated) and the id still leads back to the
-- message. Rounds of xor with a key, multiplication by an odd constant and
-- xorshift, each invertible modulo 2^32.
local RK = {struct.unpack('>I4I4I4I4', PK)}
local function u32(x) if x < 0 then return x + W32 end return x end
local function mul(a, b)
  local lo = a % 65536
  return (lo * b + ((((a - lo) / 65536) * b) % 65536) * 65536) % W32
end
local function perm(x)
  for r = 1, 4 do
    x = mul(u32(bit.bxor(x, RK[r])), 2654435761)
    x = u32(bit.bxor(x, bit.rshift(x, 16)))
  end
  return x
end
local function unperm(x)
  for r = 4, 1, -1 do
    x = u32(bit.bxor(x, bit.rshift(x, 16)))
    x = u32(bit.bxor(mul(x, 244002641), RK[r]))
  end
  return x
end
local ES = 7
-- Index buckets. An entry is a key's low 18 bits (3 bytes) and a message
-- id's low 32 (4 bytes); a key's bucket is first named by its top 14 bits.
-- 16,384 buckets alone would make a bucket grow with the store (~8.8 KB at
-- a million messages), and Record rewrites ~20 of them per message, so a
-- bucket that passes a size is split in 16 by the next 4 bits of the key
-- and becomes a marker (MARK, one byte: never a whole entry), down to 4
-- levels. A split is local: no other bucket moves, and old ones need no
-- migration.
local MARK = '\0'
local MAX_DEPTH = 4
-- The bucket names of `key`, from the top one down: name(d) for depth d.
-- Lua turns a number into a string with sprintf, which a Record would do
-- ~100 times (perf: ~5 % of the server's CPU at a million messages), so
-- each top name is built once per call and the 16 parts come from a table.
local PART = {[0] = '.0', '.1', '.2', '.3', '.4', '.5', '.6', '.7', '.8',
              '.9', '.10', '.11', '.12', '.13', '.14', '.15'}
local tops = {}
local function kname(key, d)
  local top = math.floor(key / 262144)
  local name = tops[top]
  if not name then
    name = P..'k:'..top
    tops[top] = name
  end
  local rest = key % 262144
  local shift = 16384
  for _ = 1, d do
    name = name..PART[math.floor(rest / shift) % 16]
    shift = shift / 16
  end
  return name
end
-- `get(name)`: the bucket's value or false. Returns the name and value of
-- the bucket that holds key's entries (past every marker) and its depth.
local function kresolve(key, get)
  local d = 0
  local name = kname(key, 0)
  local v = get(name)
  while v == MARK and d < MAX_DEPTH do
    d = d + 1
    name = kname(key, d)
    v = get(name)
  end
  return name, v, d
end
local function rget(name) return redis.call('GET', name) or false end
local function ksuffix(key) return struct.pack('>I3', key % 262144) end
local function kfind(v, f)
  local out = {}
  local init = 1
  while true do
    local s = string.find(v, f, init, true)
    if not s then return out end
    if (s - 1) % ES == 0 then
      out[#out + 1] = s
      init = s + ES
    else
      init = s + 1
    end
  end
end
-- A bucket's entries are in id order (appended as recorded; removals keep
-- the order), so those of pruned messages, ids below `lo`, are a prefix.
-- Record drops it where it rewrites the bucket anyway, so that prune touches
-- no bucket and a message need not keep its keys to be unindexed (they were
-- 4 bytes per key of every stored message). A bucket is rewritten every few
-- hundred messages on a busy site; one left alone expires with its TTL.
-- Returns the bucket without that prefix and how many entries it cut.
local function compact(v, lo, max)
  if #v == 0 then return v, 0 end
  -- Most buckets hold no pruned entry: their first one says so.
  local first = resolve(struct.unpack('>I4', v, 4), max)
  if first and first >= lo then return v, 0 end
  local a, z = 0, #v / ES
  while a < z do
    local mid = math.floor((a + z) / 2)
    local id = resolve(struct.unpack('>I4', v, mid * ES + 4), max)
    if id and id >= lo then z = mid else a = mid + 1 end
  end
  if a == 0 then return v, 0 end
  return string.sub(v, a * ES + 1), a
end
-- Removes one entry: for messages written before compact(), which keep their
-- keys in `k` (a message written since has none).
local function unindex(key, low)
  local b, v = kresolve(key, rget)
  local f = ksuffix(key)
  if not v or v == MARK then return end
  local me = f .. struct.pack('>I4', low)
  for _, s in ipairs(kfind(v, f)) do
    if string.sub(v, s, s + ES - 1) == me then
      v = string.sub(v, 1, s - 1) .. string.sub(v, s + ES)
      redis.call('DECR', P..'x')
      if #v == 0 then redis.call('DEL', b)
      else redis.call('SET', b, v, 'KEEPTTL') end
      return
    end
  end
end
-- The decimal form of 8 big-endian bytes read as a signed 64-bit integer,
-- as std::to_string writes the same hash: Lua's numbers are doubles, so the
-- division runs on the two 32-bit halves, six digits at a time (a remainder
-- times 2^32 stays below 2^53).
local function dec64(b)
  local hi, lo = struct.unpack('>I4I4', b)
  local sign = ''
  if hi >= 2147483648 then
    sign = '-'
    hi, lo = W32 - 1 - hi, W32 - lo
    if lo == W32 then hi, lo = hi + 1, 0 end
  end
  local groups = {}
  repeat
    local r = hi % 1000000
    hi = (hi - r) / 1000000
    local t = r * W32 + lo
    local d = t % 1000000
    lo = (t - d) / 1000000
    table.insert(groups, 1, d)
  until hi == 0 and lo == 0
  local out = sign .. string.format('%d', groups[1])
  for k = 2, #groups do out = out .. string.format('%06d', groups[k]) end
  return out
end
local MH = '>I6I4I4I1I1I1I2I4'
local MF = {'s', 'q', 'l', 'k', 'f'}
-- After the fingerprint, when any differs from its default (not
-- authenticated, one recipient, no network): a flags byte (1: the identity
-- was authenticated), the recipients (4 bytes) and the network hash (8 raw
-- bytes, or none). A message without them reads as the defaults, so the
-- messages written before these fields existed read as they counted.
-- ttl: the key's TTL in ms, as a decimal string ("0": none).
local function putmsg(id, m, ttl)
  local tail = ''
  if m.u ~= 0 or m.r ~= 1 or #m.nw > 0 then
    tail = struct.pack('>I1I4', m.u, m.r) .. m.nw
  end
  local v = struct.pack(MH, m.a, m.c, m.z, #m.s, #m.q, #m.l, #m.k, #m.f) ..
            m.i .. m.s .. m.q .. m.l .. m.k .. m.f .. tail
  if ttl ~= '0' then redis.call('SET', P..'m:'..id, v, 'PX', ttl)
  else redis.call('SET', P..'m:'..id, v) end
end
local function getmsg(id)
  local v = redis.call('GET', P..'m:'..id)
  if not v then return nil end
  local h = {struct.unpack(MH, v)}
  local m = {a = h[1], c = h[2], z = h[3], cs = string.format('%.0f', h[2])}
  local pos = h[9]
  m.i = string.sub(v, pos, pos + 7)
  pos = pos + 8
  for j, n in ipairs(MF) do
    m[n] = string.sub(v, pos, pos + h[j + 3] - 1)
    pos = pos + h[j + 3]
  end
  m.u, m.r, m.nw = 0, 1, ''
  if #v >= pos + 4 then
    m.u, m.r = struct.unpack('>I1I4', v, pos)
    m.nw = string.sub(v, pos + 5)
  end
  return m
end
-- A cluster's keys: its hash, members (the first chunk), identities,
-- authenticated identities and networks.
local function ckeys(cid)
  return P..'c:'..cid, P..'cm:'..cid, P..'cs:'..cid, P..'ca:'..cid,
         P..'cn:'..cid
end
-- A cluster's members are zsets of at most CMN ids each (scored by arrival),
-- filled in the order they are recorded: chunk 0 is P..'cm:'..cid, chunk j
-- P..'cm:'..cid..':'..j; the hash's mo and mh name the lowest chunk that may
-- hold a member and the one being filled (absent: 0, as a cluster written
-- before the chunks, whose one zset is chunk 0). Redis keeps a zset of up to
-- 128 members as a listpack (~16 bytes a member) and a larger one as a
-- skiplist with a dict (~126 bytes a member): the waves this store is for
-- run to thousands of copies. Ids grow with record order and so does the
-- chunk, so pruning (lowest ids first) empties the chunks from mo up.
local CMN = 128
local function cmname(cid, j)
  if j == 0 then return P..'cm:'..cid end
  return P..'cm:'..cid..':'..j
end
local function crange(ck)
  local v = redis.call('HMGET', ck, 'mo', 'mh')
  return tonumber(v[1] or 0), tonumber(v[2] or 0)
end
-- Members that arrived at or after `since`, counted from the newest chunk
-- down until `cap` or a chunk that holds an older member: arrivals grow with
-- the chunks up to the clock skew between hosts, which may leave a member
-- of an older chunk uncounted.
local function wcount(cid, lo, hi, since, cap)
  local n = 0
  for j = hi, lo, -1 do
    local k = cmname(cid, j)
    local w = redis.call('ZCOUNT', k, since, '+inf')
    n = n + w
    if n >= cap or w < redis.call('ZCARD', k) then break end
  end
  return n
end
-- The first `limit` ids of the chunks from the lowest up (each chunk's by
-- arrival): the oldest members, up to the same skew.
local function oldest(cid, lo, hi, limit)
  local ids = {}
  for j = lo, hi do
    if #ids >= limit then break end
    for _, m in ipairs(redis.call('ZRANGE', cmname(cid, j), 0,
                                  limit - #ids - 1)) do
      ids[#ids + 1] = m
    end
  end
  return ids
end
-- A cluster's identity, authenticated-identity and network sets ('cs',
-- 'ca', 'cn') are split the same way for the same reason: Redis keeps a set
-- of up to 512 integers as an intset (~8-20 bytes a member) and a larger one
-- as a hashtable (~75), and a wave from a botnet brings a new sender and a
-- new network with nearly every copy. A kind's members are spread over 2^b
-- shards by their value (shard 0 keeps the unsplit set's name; b is the
-- hash's field 'sb', 'ab' or 'eb', absent while 0), so a member is always
-- looked for in one shard and the counts stay exact. When a kind's count
-- passes SETN a shard on average, every shard is split in two by the next
-- bit (its members that belong to the new half move); at 384 on average no
-- shard comes near 512. A shard gets the retention's TTL when written, and
-- every shard of the cluster again when the hash's 'tr' (the arrival of
-- the last such refresh) is older than a quarter of it: a shard no copy
-- has written to lately must outlive the cluster's copies still to come.
local SETN = 384
local SK = {cs = 'sb', ca = 'ab', cn = 'eb'}
local function sname(kind, cid, j)
  if j == 0 then return P..kind..':'..cid end
  return P..kind..':'..cid..':'..j
end
-- The shard of a decimal hash among n (a power of two): its last 9 digits
-- (a keyed hash's are uniform; Lua's doubles would lose its low bits).
local function shardof(h, n)
  if n == 1 then return 0 end
  return tonumber((string.gsub(string.sub(h, -9), '-', ''))) % n
end
-- Adds `h` to the set `kind` of cluster `cid` (hash `ck`) that has 2^b
-- shards and `count` members; returns 1 when it is new, and the bits.
local function sadd(ck, kind, cid, b, count, h, ttl_arg)
  local n = 2 ^ b
  if count >= SETN * n then
    for j = 0, n - 1 do
      local src = sname(kind, cid, j)
      local move = {}
      for _, m in ipairs(redis.call('SMEMBERS', src)) do
        if shardof(m, 2 * n) ~= j then move[#move + 1] = m end
      end
      -- In batches: a set written before the shards may be large, and
      -- unpack() has a limit of a few thousand values.
      local dst = sname(kind, cid, j + n)
      for a = 1, #move, 1000 do
        local part = {unpack(move, a, math.min(a + 999, #move))}
        redis.call('SREM', src, unpack(part))
        redis.call('SADD', dst, unpack(part))
      end
      if #move > 0 and ttl_arg ~= '0' then
        redis.call('PEXPIRE', dst, ttl_arg)
      end
    end
    b, n = b + 1, 2 * n
    redis.call('HSET', ck, SK[kind], b)
  end
  local j = shardof(h, n)
  local name = sname(kind, cid, j)
  local added = redis.call('SADD', name, h)
  -- Shard 0 is renewed with the cluster's other keys.
  if j > 0 and ttl_arg ~= '0' then redis.call('PEXPIRE', name, ttl_arg) end
  return added, b
end
-- Every key of a cluster's sets, for DEL and the TTL refresh.
local function snames(cid, bits)
  local out = {}
  for kind, f in pairs(SK) do
    for j = 1, 2 ^ (bits[f] or 0) - 1 do out[#out + 1] = sname(kind, cid, j) end
  end
  return out
end
-- Takes `id` off its chunk: the lowest first, where pruning finds it.
-- Returns the chunk range before.
local function cmrem(ck, cid, id)
  local lo, hi = crange(ck)
  for j = lo, hi do
    if redis.call('ZREM', cmname(cid, j), id) == 1 then
      if j == lo and lo < hi then
        local to = lo
        while to < hi and redis.call('EXISTS', cmname(cid, to)) == 0 do
          to = to + 1
        end
        if to ~= lo then redis.call('HSET', ck, 'mo', to) end
      end
      break
    end
  end
  return lo, hi
end
-- Sets a cluster hash's recipients to its size when it has none: a hash
-- written before the field existed, whose members each counted one.
local function rinit(ck)
  redis.call('HSETNX', ck, 'r', redis.call('HGET', ck, 'n'))
end
local CF = {'k','f','l','n','s','g','w','t','a','e','r','mk','ma','mo','mh',
            'sb','ab','eb','tr'}
local function cluster(cid)
  cid = tonumber(cid)
  local v = redis.call('HMGET', P..'c:'..cid, unpack(CF))
  if v[1] then
    -- norecip: a hash written before the recipients field (rinit).
    return {cid, tonumber(v[1]), tonumber(v[2]), tonumber(v[3]),
            tonumber(v[4]), tonumber(v[5]), v[6] or '', tonumber(v[7]),
            tonumber(v[8]), tonumber(v[9] or 0), tonumber(v[10] or 0),
            tonumber(v[11] or v[4]), tonumber(v[12] or 0),
            tonumber(v[13] or 0), norecip = not v[11],
            mo = tonumber(v[14] or 0), mh = tonumber(v[15] or 0),
            sb = tonumber(v[16] or 0), ab = tonumber(v[17] or 0),
            eb = tonumber(v[18] or 0), tr = tonumber(v[19] or 0)}
  end
  local id = resolve(unperm(cid), maxid())
  if not id then return nil end
  local m = getmsg(id)
  if not m or m.c ~= cid then return nil end
  return {cid, id, m.a, m.a, 1, 1, m.l, 0, 0, m.u, #m.nw > 0 and 1 or 0, m.r,
          0, 0, single = true, mo = 0, mh = 0, sb = 0, ab = 0, eb = 0,
          tr = 0}
end
-- Gives the single-message cluster `c` (as cluster() returns it) its keys,
-- for the second message to join.
local function grow(c, ttl)
  local ck, cm, cs, ca, cn = ckeys(c[1])
  local m = getmsg(c[2])
  redis.call('HSET', ck, 'k', c[2], 'f', c[3], 'l', c[4], 'n', 1, 's', 1,
             'g', c[7], 'w', 0, 't', 0, 'a', c[10], 'e', c[11], 'r', c[12])
  redis.call('ZADD', cm, c[3], c[2])
  redis.call('SADD', cs, m.s)
  if m.u ~= 0 then redis.call('SADD', ca, m.s) end
  if #m.nw > 0 then redis.call('SADD', cn, dec64(m.nw)) end
  if ttl > 0 then
    for _, k in ipairs({ck, cm, cs, ca, cn}) do
      redis.call('PEXPIRE', k, ttl)
    end
  end
end
local function remove(id, m)
  m = m or getmsg(id)
  if not m then return end
  local ks = m.k
  for i = 1, #ks - 3, 4 do
    unindex(struct.unpack('>I4', string.sub(ks, i, i + 3)), id % W32)
  end
  redis.call('DEL', P..'m:'..id)
  redis.call('DECR', P..'mc')
  local cid = m.cs
  local ck = P..'c:'..cid
  if redis.call('EXISTS', ck) == 0 then return end
  local lo, hi = cmrem(ck, cid, id)
  -- size and recipients count the members still stored; the identity,
  -- authenticated and network sets what the cluster saw while it lived.
  rinit(ck)
  redis.call('HINCRBY', ck, 'r', -m.r)
  local n = redis.call('HINCRBY', ck, 'n', -1)
  if n <= 0 then
    if redis.call('HGET', ck, 'w') == '1' then
      redis.call('DECR', P..'w')
    end
    local v = redis.call('HMGET', ck, 'sb', 'ab', 'eb')
    local bits = {sb = tonumber(v[1]), ab = tonumber(v[2]),
                  eb = tonumber(v[3])}
    redis.call('DEL', ckeys(cid))
    for j = math.max(lo, 1), hi do redis.call('DEL', cmname(cid, j)) end
    for _, k in ipairs(snames(cid, bits)) do redis.call('DEL', k) end
    redis.call('ZREM', P..'cl', cid)
  elseif n < 2 then
    redis.call('ZREM', P..'cl', cid)
  end
end
-- Messages are numbered in the order they were recorded, which is their
-- arrival order up to the clock skew between hosts: pruning walks the ids
-- from the lowest one still stored (P.."lo") and stops at the first message
-- not old enough, so no arrival index is kept at all.
-- Returns the number removed, then the lowest id and the last id after it
-- (Record reads both again otherwise). The age check reads a message's
-- arrival alone (its first 6 bytes): a Record prunes on every call, and
-- most calls find the oldest message too young.
local function prune(before, maxn)
  local lo = lowest()
  local start = lo
  local top = maxid()
  local removed, steps = 0, 0
  while lo <= top and removed < maxn and steps < 4 * maxn + 64 do
    local head = redis.call('GETRANGE', P..'m:'..lo, 0, 5)
    if #head == 6 then
      if struct.unpack('>I6', head) >= before then break end
      remove(lo)
      removed = removed + 1
    end
    lo = lo + 1
    steps = steps + 1
  end
  if lo ~= start then redis.call('SET', P..'lo', lo) end
  return removed, lo, top
end
)lua";

const char kRedisFindScript[] = R"lua(
local max_cand = tonumber(ARGV[1])
local out = {maxid(), 0}
local read = {}
local cids = {}
local order = {}
for j = 2, #ARGV do
  if out[2] >= max_cand then break end
  local id = ARGV[j]
  local v = redis.call('GET', P..'m:'..id)
  if v then
    out[2] = out[2] + 1
    out[#out + 1] = id; out[#out + 1] = v
    read[id] = true
    local cid = struct.unpack('>I4', v, 7)
    if not cids[cid] then cids[cid] = true; order[#order + 1] = cid end
  end
end
-- HGETALL, not HMGET of the fields: a cluster of one has no hash, and
-- HMGET's thirteen arguments cost more than the lookup.
for _, cid in ipairs(order) do
  local h = redis.call('HGETALL', P..'c:'..cid)
  local canonical = false
  for i = 1, #h, 2 do
    if h[i] == 'k' then
      if not read[h[i + 1]] then
        canonical = redis.call('GET', P..'m:'..h[i + 1]) or false
      end
      break
    end
  end
  out[#out + 1] = cid; out[#out + 1] = h; out[#out + 1] = canonical
end
return out
)lua";

const char kRedisRecordScript[] = R"lua(
local K0 = 23  -- the first index key in ARGV
local split = tonumber(ARGV[22])  -- a bucket past this many entries splits
local arrival = tonumber(ARGV[3])
local network = ARGV[18]
local auth = tonumber(ARGV[20])
local recipients = tonumber(ARGV[21])
local ttl = tonumber(ARGV[12])
local ttl_arg = ARGV[12]  -- as it came: formatting the number again costs
local min_size = tonumber(ARGV[11])
local prune_before = tonumber(ARGV[15])
-- The lowest and the last id, while no message is recorded or pruned.
local lo, max
if prune_before > 0 then
  local _
  _, lo, max = prune(prune_before, tonumber(ARGV[16]))
else
  lo, max = lowest(), maxid()
end
-- The joined cluster's fields as cluster() gives them (its one HMGET
-- replaces reading them field by field later), kept current below.
local c = nil
local cid = tonumber(ARGV[1])
if cid ~= 0 then
  c = cluster(cid)
  if not c then cid = 0 elseif c.single then grow(c, ttl) end
end
local is_new = cid == 0
local seen = tonumber(ARGV[17])
-- The buckets read so far, by name: the conflict check reads each one, and
-- nothing between it and the update below writes a bucket, so the update
-- reuses what it read (a redis.call costs more than the GET it runs); the
-- update keeps it current, for two keys of one message in one bucket.
local got = {}
local function bucket(b)
  local v = got[b]
  if v == nil then
    v = rget(b)
    got[b] = v
  end
  return v
end
if is_new and seen >= 0 and max > seen then
  -- Join::seen: a message recorded since the caller's Find that shares a
  -- key may be of this one's wave; the caller decides again.
  for j = K0, #ARGV do
    local key = tonumber(ARGV[j])
    local f = ksuffix(key)
    local _, v = kresolve(key, bucket)
    if v and v ~= MARK then
      local pos = kfind(v, f)
      if #pos > 0 then
        local id = resolve(struct.unpack('>I4', v, pos[#pos] + 3), max)
        if id and id > seen then return {'conflict'} end
      end
    end
  end
end
local id = redis.call('INCR', P..'n')
local low = id % W32
-- A new cluster of one message keeps no keys (see perm); the permutation's
-- one zero, or a rule that makes a single message a wave, take the full
-- path with the caller's random id.
local single = false
if is_new then
  cid = perm(low)
  single = cid ~= 0 and min_size >= 2
  if not single then
    cid = tonumber(ARGV[2])
    if redis.call('EXISTS', P..'c:'..cid) == 1 or cluster(cid) then
      return {'retry'}
    end
  end
end
local per_key = tonumber(ARGV[14])
-- Every entry this message adds ends in these 4 bytes.
local idpack = struct.pack('>I4', low)
-- The index entry count moves by this much (one INCRBY for the message).
local entries = 0
for j = K0, #ARGV do
  local key = tonumber(ARGV[j])
  local f = ksuffix(key)
  local b, v, depth = kresolve(key, bucket)
  -- A marker at the deepest level is a bucket that no key can split
  -- further; it never happens (a key's entries are capped at per_key).
  if v == MARK then v = false end
  local cut
  v, cut = compact(v or '', lo, max)
  entries = entries - cut
  local pos = kfind(v, f)
  entries = entries + 1
  local drop = #pos + 1 - per_key
  if drop > 0 then
    -- The oldest entries go: Find reads the newest max_per_key anyway (with
    -- max_per_key 0, the new one too, as SQLite keeps none).
    local parts = {}
    local at = 1
    for e = 1, math.min(drop, #pos) do
      parts[#parts + 1] = string.sub(v, at, pos[e] - 1)
      at = pos[e] + ES
    end
    parts[#parts + 1] = string.sub(v, at)
    v = table.concat(parts)
    entries = entries - drop
  end
  if drop <= #pos then v = v .. f .. idpack end
  if #v > split * ES and depth < MAX_DEPTH then
    -- In 16 by the key's next 4 bits, each part keeping the id order.
    local parts = {}
    for e = 1, #v, ES do
      local sub = math.floor(struct.unpack('>I3', v, e) /
                             (16384 / 16 ^ depth)) % 16
      local t = parts[sub]
      if not t then t = {}; parts[sub] = t end
      t[#t + 1] = string.sub(v, e, e + ES - 1)
    end
    for sub, t in pairs(parts) do
      local name = b..'.'..sub
      local w = table.concat(t)
      if ttl > 0 then redis.call('SET', name, w, 'PX', ttl_arg)
      else redis.call('SET', name, w) end
      got[name] = w
    end
    v = MARK
  end
  if #v == 0 then redis.call('DEL', b)
  elseif ttl > 0 then redis.call('SET', b, v, 'PX', ttl_arg)
  else redis.call('SET', b, v, 'KEEPTTL') end
  got[b] = #v > 0 and v or false
  -- The markers above live as long as what they lead to.
  if ttl > 0 then
    for d = 0, depth - 1 do redis.call('PEXPIRE', kname(key, d), ttl_arg) end
  end
end
if entries ~= 0 then redis.call('INCRBY', P..'x', entries) end
putmsg(id, {a = arrival, c = cid, z = tonumber(ARGV[9]), s = ARGV[5],
            i = ARGV[6], q = ARGV[7], l = ARGV[8], k = '',
            f = ARGV[4], u = auth, r = recipients, nw = ARGV[19]},
       ttl > 0 and ttl_arg or '0')
redis.call('INCR', P..'mc')
if single then
  return {id, cid, id, arrival, arrival, 1, 1, ARGV[8], 0, 0, auth,
          network ~= '' and 1 or 0, recipients, 0, 0, 1, 0}
end
local ck, cm, cs, ca, cn = ckeys(cid)
if is_new then
  redis.call('HSET', ck, 'k', id, 'f', arrival, 'l', arrival, 'n', 0,
             's', 0, 'g', ARGV[8], 'w', 0, 't', 0, 'a', 0, 'e', 0, 'r', 0)
  c = {cid, id, arrival, arrival, 0, 0, ARGV[8], 0, 0, 0, 0, 0, 0, 0}
elseif c.norecip then
  rinit(ck)
end
-- c follows every field written below (the HINCRBYs answer the new value),
-- so the reply is c itself rather than a second read of the hash.
-- ARGV[5] is the identity's hash (the sender's when there is none).
local sttl = ttl > 0 and ttl_arg or '0'
local added
added, c.sb = sadd(ck, 'cs', cid, c.sb or 0, c[6], ARGV[5], sttl)
c[5] = redis.call('HINCRBY', ck, 'n', 1)
c[6] = redis.call('HINCRBY', ck, 's', added)
if auth ~= 0 then
  added, c.ab = sadd(ck, 'ca', cid, c.ab or 0, c[10], ARGV[5], sttl)
  c[10] = redis.call('HINCRBY', ck, 'a', added)
end
if network ~= '' then
  added, c.eb = sadd(ck, 'cn', cid, c.eb or 0, c[11], network, sttl)
  c[11] = redis.call('HINCRBY', ck, 'e', added)
end
c[12] = redis.call('HINCRBY', ck, 'r', recipients)
if arrival < c[3] then redis.call('HSET', ck, 'f', arrival); c[3] = arrival end
if arrival > c[4] then redis.call('HSET', ck, 'l', arrival); c[4] = arrival end
local mh = c.mh or 0
cm = cmname(cid, mh)
if mh > 0 or c[5] > CMN then
  if redis.call('ZCARD', cm) >= CMN then
    mh = mh + 1
    cm = cmname(cid, mh)
    redis.call('HSET', ck, 'mh', mh)
  end
end
redis.call('ZADD', cm, arrival, id)
if c[5] >= 2 then redis.call('ZADD', P..'cl', c[4], cid) end
local window = wcount(cid, c.mo or 0, mh, arrival - tonumber(ARGV[10]),
                      min_size)
local became = 0
local earlier = {}
if c[8] ~= 1 and window >= min_size then
  became = 1
  redis.call('HSET', ck, 'w', 1, 't', arrival)
  c[8], c[9] = 1, arrival
  redis.call('INCR', P..'w')
  local rows = {}
  for _, m in ipairs(oldest(cid, c.mo or 0, mh, tonumber(ARGV[13]) + 1)) do
    local mid = tonumber(m)
    if mid < id then
      local v = getmsg(mid)
      if v then rows[#rows + 1] = {mid, v.a, v.q, v.i} end
    end
  end
  table.sort(rows, function(a, b)
    if a[2] ~= b[2] then return a[2] < b[2] end
    return a[1] < b[1]
  end)
  local max_earlier = tonumber(ARGV[13])
  for k, r in ipairs(rows) do
    if k > max_earlier then break end
    for _, x in ipairs(r) do earlier[#earlier + 1] = x end
  end
end
if ttl > 0 then
  -- The cluster lives as long as its newest member. The identity sets of
  -- the authenticated and of networks exist only when they count one.
  redis.call('PEXPIRE', ck, ttl_arg)
  redis.call('PEXPIRE', cm, ttl_arg)
  redis.call('PEXPIRE', cs, ttl_arg)
  if c[10] > 0 then redis.call('PEXPIRE', ca, ttl_arg) end
  if c[11] > 0 then redis.call('PEXPIRE', cn, ttl_arg) end
  -- sadd() renewed the other shards it wrote; all of them now and then.
  if (c.sb or 0) + (c.ab or 0) + (c.eb or 0) > 0 and
     math.abs(arrival - (c.tr or 0)) > ttl / 4 then
    for _, k in ipairs(snames(cid, c)) do redis.call('PEXPIRE', k, ttl_arg) end
    redis.call('HSET', ck, 'tr', arrival)
  end
end
local out = {id}
for k = 1, 14 do out[k + 1] = c[k] end
out[#out + 1] = window
out[#out + 1] = became
for _, x in ipairs(earlier) do out[#out + 1] = x end
return out
)lua";

const char kRedisPruneScript[] = R"lua(
return (prune(tonumber(ARGV[1]), tonumber(ARGV[2])))
)lua";

const char kRedisPageScript[] = R"lua(
local since = tonumber(ARGV[1])
local cursor = math.max(tonumber(ARGV[2]), lowest())
local count = tonumber(ARGV[3])
local top = maxid()
local out = {0, 0}
local found, steps = 0, 0
while cursor <= top and found < count and steps < 4 * count do
  local m = getmsg(cursor)
  if m and m.a >= since then
    out[#out + 1] = cursor; out[#out + 1] = m.a; out[#out + 1] = m.f
    found = found + 1
  end
  cursor = cursor + 1
  steps = steps + 1
end
out[1] = cursor
if cursor <= top then out[2] = 1 end
return out
)lua";

const char kRedisClustersScript[] = R"lua(
local waves_only = ARGV[1] == '1'
local since = tonumber(ARGV[2])
local min_size = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local out = {}
local found = 0
local offset = 0
while found < limit do
  local page = redis.call('ZREVRANGE', P..'cl', offset, offset + 99,
                          'WITHSCORES')
  if #page == 0 then break end
  offset = offset + 100
  for j = 1, #page, 2 do
    if found >= limit then break end
    -- Newest activity first: past the window, every later one is too.
    if waves_only and tonumber(page[j + 1]) < since then return out end
    local c = cluster(page[j])
    if c and c[5] >= 2 then
      local keep = true
      if waves_only then
        keep = wcount(page[j], c.mo, c.mh, since, min_size) >= min_size
      end
      if keep then
        for _, x in ipairs(c) do out[#out + 1] = x end
        found = found + 1
      end
    end
  end
end
return out
)lua";

const char kRedisClusterScript[] = R"lua(
return cluster(ARGV[1]) or {}
)lua";

const char kRedisSetMarkScript[] = R"lua(
local cid = tonumber(ARGV[1])
local mark = tonumber(ARGV[2])
local ck = P..'c:'..cid
if redis.call('EXISTS', ck) == 0 then
  local one = cluster(cid)
  if not one then return {} end
  if mark == 0 then return one end
  -- A cluster of one keeps no keys; its mark needs the hash, which it gets
  -- as a second member would give it (and keeps until its last member goes).
  grow(one, tonumber(ARGV[4]))
end
if mark == 0 then
  -- Cleared: as never marked, and two fields fewer in the hash.
  redis.call('HDEL', ck, 'mk', 'ma')
else
  redis.call('HSET', ck, 'mk', mark, 'ma', ARGV[3])
end
return cluster(cid)
)lua";

const char kRedisMembersScript[] = R"lua(
local lo, hi = crange(P..'c:'..ARGV[1])
local ids = oldest(ARGV[1], lo, hi, tonumber(ARGV[2]))
if #ids == 0 and tonumber(ARGV[2]) > 0 then
  local c = cluster(ARGV[1])
  if c then ids = {c[2]} end
end
local rows = {}
for _, m in ipairs(ids) do
  local v = getmsg(m)
  if v then rows[#rows + 1] = {tonumber(m), v.a, v.q, v.i} end
end
table.sort(rows, function(a, b)
  if a[2] ~= b[2] then return a[2] < b[2] end
  return a[1] < b[1]
end)
local out = {}
for _, r in ipairs(rows) do
  for _, x in ipairs(r) do out[#out + 1] = x end
end
return out
)lua";

const char kRedisStatsScript[] = R"lua(
local lo = lowest()
local top = maxid()
local oldest, newest = 0, 0
for id = lo, math.min(top, lo + 1000) do
  local m = getmsg(id)
  if m then oldest = m.a; break end
end
for id = top, math.max(lo, top - 1000), -1 do
  local m = getmsg(id)
  if m then newest = m.a; break end
end
return {tonumber(redis.call('GET', P..'mc') or 0), redis.call('ZCARD', P..'cl'),
        tonumber(redis.call('GET', P..'w') or 0),
        tonumber(redis.call('GET', P..'x') or 0), oldest, newest}
)lua";

const char kRedisCheckScript[] = R"lua(
local problems = {}
local sample = tonumber(ARGV[1])
local seen = 0
for id = lowest(), maxid() do
  if seen >= sample or #problems >= 100 then break end
  local m = getmsg(id)
  if m then
    seen = seen + 1
    if not cluster(m.c) then
      problems[#problems + 1] = 'message ' .. id .. ': cluster ' .. m.cs ..
                                ' missing'
    end
  end
end
return problems
)lua";

}  // namespace mw::store
