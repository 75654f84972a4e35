#include "redis_scripts.h"

namespace mw::store {

std::string RedisKeyPrefix(const std::string& prefix) {
  return "{mw:" + prefix + "}:";
}

// Shared by the scripts: the prefix, id resolution, reading a cluster and
// removing one message. Lua numbers are doubles: ids, arrivals and cluster
// ids stay far below 2^53. Hashes of senders and Message-IDs are opaque
// decimal strings, never arithmetic.
#define MW_LUA_COMMON                                                          \
  "local P = string.sub(KEYS[1], 1, -2)\n"                                     \
  "local W32 = 4294967296\n"                                                   \
  "local function maxid() return tonumber(redis.call('GET', P..'n') or 0) "    \
  "end\n"                                                                      \
  "local function resolve(low, max)\n"                                         \
  "  local id = max - ((max % W32) - low) % W32\n"                             \
  "  if id <= 0 then return nil end\n"                                         \
  "  return id\n"                                                              \
  "end\n"                                                                      \
  "local CF = {'k','f','l','n','s','g','w','t'}\n"                             \
  "local function cluster(cid)\n"                                              \
  "  local v = redis.call('HMGET', P..'c:'..cid, unpack(CF))\n"                \
  "  if not v[1] then return nil end\n"                                        \
  "  return {cid, tonumber(v[1]), tonumber(v[2]), tonumber(v[3]),\n"           \
  "          tonumber(v[4]), tonumber(v[5]), v[6] or '', tonumber(v[7]),\n"    \
  "          tonumber(v[8])}\n"                                                \
  "end\n"                                                                      \
  "local ES = 7\n"                                                             \
  "local function kloc(key)\n"                                                 \
  "  return P..'k:'..math.floor(key / 262144), struct.pack('>I3', key % "      \
  "262144)\n"                                                                  \
  "end\n"                                                                      \
  "local function kfind(v, f)\n"                                               \
  "  local out = {}\n"                                                         \
  "  local init = 1\n"                                                         \
  "  while true do\n"                                                          \
  "    local s = string.find(v, f, init, true)\n"                              \
  "    if not s then return out end\n"                                         \
  "    if (s - 1) % ES == 0 then\n"                                            \
  "      out[#out + 1] = s\n"                                                  \
  "      init = s + ES\n"                                                      \
  "    else\n"                                                                 \
  "      init = s + 1\n"                                                       \
  "    end\n"                                                                  \
  "  end\n"                                                                    \
  "end\n"                                                                      \
  "local function unindex(key, low)\n"                                         \
  "  local b, f = kloc(key)\n"                                                 \
  "  local v = redis.call('GET', b)\n"                                         \
  "  if not v then return end\n"                                               \
  "  local me = f .. struct.pack('>I4', low)\n"                                \
  "  for _, s in ipairs(kfind(v, f)) do\n"                                     \
  "    if string.sub(v, s, s + ES - 1) == me then\n"                           \
  "      v = string.sub(v, 1, s - 1) .. string.sub(v, s + ES)\n"               \
  "      redis.call('DECR', P..'x')\n"                                         \
  "      if #v == 0 then redis.call('DEL', b)\n"                               \
  "      else redis.call('SET', b, v, 'KEEPTTL') end\n"                        \
  "      return\n"                                                             \
  "    end\n"                                                                  \
  "  end\n"                                                                    \
  "end\n"                                                                      \
  "local MH = '>ddI2I2I2I2I2I2I4'\n"                                           \
  "local MF = {'s','i','q','l','z','k','f'}\n"                                 \
  "local function putmsg(id, m)\n"                                             \
  "  local parts = {struct.pack(MH, m.a, m.c, #m.s, #m.i, #m.q, #m.l, #m.z,\n" \
  "                             #m.k, #m.f)}\n"                                \
  "  for _, n in ipairs(MF) do parts[#parts + 1] = m[n] end\n"                 \
  "  redis.call('SET', P..'m:'..id, table.concat(parts))\n"                    \
  "end\n"                                                                      \
  "local function getmsg(id)\n"                                                \
  "  local v = redis.call('GET', P..'m:'..id)\n"                               \
  "  if not v then return nil end\n"                                           \
  "  local h = {struct.unpack(MH, v)}\n"                                       \
  "  local m = {a = h[1], c = h[2], cs = string.format('%.0f', h[2])}\n"       \
  "  local pos = h[10]\n"                                                      \
  "  for j, n in ipairs(MF) do\n"                                              \
  "    m[n] = string.sub(v, pos, pos + h[j + 2] - 1)\n"                        \
  "    pos = pos + h[j + 2]\n"                                                 \
  "  end\n"                                                                    \
  "  return m\n"                                                               \
  "end\n"                                                                      \
  "local function remove(id)\n"                                                \
  "  local m = getmsg(id)\n"                                                   \
  "  redis.call('ZREM', P..'a', id)\n"                                         \
  "  if not m then return end\n"                                               \
  "  local ks = m.k\n"                                                         \
  "  for i = 1, #ks - 3, 4 do\n"                                               \
  "    unindex(struct.unpack('>I4', string.sub(ks, i, i + 3)), id % W32)\n"    \
  "  end\n"                                                                    \
  "  redis.call('DEL', P..'m:'..id)\n"                                         \
  "  local cid = m.cs\n"                                                       \
  "  redis.call('ZREM', P..'cm:'..cid, id)\n"                                  \
  "  if redis.call('EXISTS', P..'c:'..cid) == 0 then return end\n"             \
  "  local n = redis.call('HINCRBY', P..'c:'..cid, 'n', -1)\n"                 \
  "  if n <= 0 then\n"                                                         \
  "    if redis.call('HGET', P..'c:'..cid, 'w') == '1' then "                  \
  "redis.call('DECR', P..'w') end\n"                                           \
  "    redis.call('DEL', P..'c:'..cid, P..'cm:'..cid, P..'cs:'..cid)\n"        \
  "    redis.call('ZREM', P..'cl', cid)\n"                                     \
  "  elseif n < 2 then\n"                                                      \
  "    redis.call('ZREM', P..'cl', cid)\n"                                     \
  "  end\n"                                                                    \
  "end\n"                                                                      \
  "local function prune(before, max)\n"                                        \
  "  local ids = redis.call('ZRANGEBYSCORE', P..'a', '-inf', '(' .. before,\n" \
  "                         'LIMIT', 0, max)\n"                                \
  "  for _, id in ipairs(ids) do remove(tonumber(id)) end\n"                   \
  "  return #ids\n"                                                            \
  "end\n"

const char kRedisFindScript[] = MW_LUA_COMMON R"lua(
local per_key = tonumber(ARGV[2])
local max_cand = tonumber(ARGV[3])
local max = maxid()
local ranked = {}
if ARGV[1] == 'k' then
  local exact = tonumber(ARGV[4])
  local hits = {}
  for j = 5, #ARGV do
    local key = tonumber(ARGV[j])
    local b, f = kloc(key)
    local v = redis.call('GET', b)
    if v then
      local pos = kfind(v, f)
      local n = #pos
      local from = math.max(1, n - per_key + 1)
      for e = n, from, -1 do
        local low = struct.unpack('>I4', v, pos[e] + 3)
        local id = resolve(low, max)
        if id then
          local h = hits[id]
          if not h then h = {id, 0, 0}; hits[id] = h end
          h[2] = h[2] + 1
          if key == exact then h[3] = 1 end
        end
      end
    end
  end
  for _, h in pairs(hits) do ranked[#ranked + 1] = h end
  table.sort(ranked, function(a, b)
    if a[3] ~= b[3] then return a[3] > b[3] end
    if a[2] ~= b[2] then return a[2] > b[2] end
    return a[1] > b[1]
  end)
else
  for j = 5, #ARGV do ranked[#ranked + 1] = {tonumber(ARGV[j]), 0, 0} end
end
local out = {0, max}
local fps = {}
local cids = {}
local order = {}
for _, h in ipairs(ranked) do
  if out[1] >= max_cand then break end
  local m = getmsg(h[1])
  if m then
    out[1] = out[1] + 1
    local cid = m.c
    out[#out + 1] = h[1]; out[#out + 1] = m.a
    out[#out + 1] = cid; out[#out + 1] = h[2]; out[#out + 1] = h[3]
    out[#out + 1] = m.f
    fps[h[1]] = m.f
    if not cids[cid] then cids[cid] = true; order[#order + 1] = cid end
  end
end
for _, cid in ipairs(order) do
  local c = cluster(cid)
  if c then
    for _, x in ipairs(c) do out[#out + 1] = x end
    local fp = fps[c[2]]
    if not fp then
      local m = getmsg(c[2])
      if m then fp = m.f end
    end
    if fp then out[#out + 1] = 1; out[#out + 1] = fp
    else out[#out + 1] = 0; out[#out + 1] = '' end
  end
end
return out
)lua";

const char kRedisRecordScript[] = MW_LUA_COMMON R"lua(
local arrival = tonumber(ARGV[3])
local ttl = tonumber(ARGV[12])
local prune_before = tonumber(ARGV[15])
if prune_before > 0 then prune(prune_before, tonumber(ARGV[16])) end
local cid = tonumber(ARGV[1])
if cid ~= 0 and redis.call('EXISTS', P..'c:'..cid) == 0 then cid = 0 end
local is_new = cid == 0
local seen = tonumber(ARGV[17])
if is_new and seen >= 0 and maxid() > seen then
  -- Join::seen: a message recorded since the caller's Find that shares a
  -- key may be of this one's wave; the caller decides again.
  local max = maxid()
  for j = 18, #ARGV do
    local b, f = kloc(tonumber(ARGV[j]))
    local v = redis.call('GET', b)
    if v then
      local pos = kfind(v, f)
      if #pos > 0 then
        local id = resolve(struct.unpack('>I4', v, pos[#pos] + 3), max)
        if id and id > seen then return {'conflict'} end
      end
    end
  end
end
if is_new then
  cid = tonumber(ARGV[2])
  if redis.call('EXISTS', P..'c:'..cid) == 1 then return {'retry'} end
end
local id = redis.call('INCR', P..'n')
local low = id % W32
local packed = {}
local per_key = tonumber(ARGV[14])
for j = 18, #ARGV do
  local key = tonumber(ARGV[j])
  packed[#packed + 1] = struct.pack('>I4', key)
  local b, f = kloc(key)
  local v = redis.call('GET', b) or ''
  local pos = kfind(v, f)
  redis.call('INCR', P..'x')
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
    redis.call('DECRBY', P..'x', drop)
  end
  if drop <= #pos then v = v .. f .. struct.pack('>I4', low) end
  if #v > 0 then redis.call('SET', b, v, 'KEEPTTL')
  else redis.call('DEL', b) end
  if ttl > 0 then redis.call('PEXPIRE', b, ttl) end
end
local mk = P..'m:'..id
putmsg(id, {a = arrival, c = cid, s = ARGV[5], i = ARGV[6], q = ARGV[7],
            l = ARGV[8], z = ARGV[9], k = table.concat(packed), f = ARGV[4]})
redis.call('ZADD', P..'a', arrival, id)
local ck = P..'c:'..cid
if is_new then
  redis.call('HSET', ck, 'k', id, 'f', arrival, 'l', arrival, 'n', 0,
             's', 0, 'g', ARGV[8], 'w', 0, 't', 0)
end
local added = redis.call('SADD', P..'cs:'..cid, ARGV[5])
local n = redis.call('HINCRBY', ck, 'n', 1)
redis.call('HINCRBY', ck, 's', added)
local first = tonumber(redis.call('HGET', ck, 'f'))
local last = tonumber(redis.call('HGET', ck, 'l'))
if arrival < first then redis.call('HSET', ck, 'f', arrival) end
if arrival > last then redis.call('HSET', ck, 'l', arrival); last = arrival end
local cm = P..'cm:'..cid
redis.call('ZADD', cm, arrival, id)
if n >= 2 then redis.call('ZADD', P..'cl', last, cid) end
local window = redis.call('ZCOUNT', cm, arrival - tonumber(ARGV[10]), '+inf')
local became = 0
local earlier = {}
if redis.call('HGET', ck, 'w') ~= '1' and window >= tonumber(ARGV[11]) then
  became = 1
  redis.call('HSET', ck, 'w', 1, 't', arrival)
  redis.call('INCR', P..'w')
  local rows = {}
  for _, m in ipairs(redis.call('ZRANGE', cm, 0, tonumber(ARGV[13]))) do
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
  redis.call('PEXPIRE', mk, ttl)
  -- The cluster lives as long as its newest member.
  redis.call('PEXPIRE', ck, ttl)
  redis.call('PEXPIRE', cm, ttl)
  redis.call('PEXPIRE', P..'cs:'..cid, ttl)
end
local out = cluster(cid)
table.insert(out, 1, id)
out[#out + 1] = window
out[#out + 1] = became
for _, x in ipairs(earlier) do out[#out + 1] = x end
return out
)lua";

const char kRedisPruneScript[] = MW_LUA_COMMON R"lua(
return prune(tonumber(ARGV[1]), tonumber(ARGV[2]))
)lua";

const char kRedisPageScript[] = MW_LUA_COMMON R"lua(
local ids = redis.call('ZRANGEBYSCORE', P..'a', ARGV[1], '+inf', 'WITHSCORES',
                       'LIMIT', tonumber(ARGV[2]), tonumber(ARGV[3]))
local out = {}
for j = 1, #ids, 2 do
  local m = getmsg(ids[j])
  if m then
    out[#out + 1] = tonumber(ids[j]); out[#out + 1] = tonumber(ids[j + 1])
    out[#out + 1] = m.f
  end
end
return out
)lua";

const char kRedisClustersScript[] = MW_LUA_COMMON R"lua(
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
        keep = redis.call('ZCOUNT', P..'cm:'..page[j], since, '+inf') >=
               min_size
      end
      if keep then
        c[1] = tonumber(page[j])
        for _, x in ipairs(c) do out[#out + 1] = x end
        found = found + 1
      end
    end
  end
end
return out
)lua";

const char kRedisMembersScript[] = MW_LUA_COMMON R"lua(
local ids = redis.call('ZRANGE', P..'cm:'..ARGV[1], 0, tonumber(ARGV[2]) - 1)
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

const char kRedisStatsScript[] = MW_LUA_COMMON R"lua(
local first = redis.call('ZRANGE', P..'a', 0, 0, 'WITHSCORES')
local last = redis.call('ZRANGE', P..'a', -1, -1, 'WITHSCORES')
return {redis.call('ZCARD', P..'a'), redis.call('ZCARD', P..'cl'),
        tonumber(redis.call('GET', P..'w') or 0),
        tonumber(redis.call('GET', P..'x') or 0),
        tonumber(first[2] or 0), tonumber(last[2] or 0)}
)lua";

const char kRedisCheckScript[] = MW_LUA_COMMON R"lua(
local problems = {}
local ids = redis.call('ZRANGE', P..'a', 0, tonumber(ARGV[1]) - 1)
for _, id in ipairs(ids) do
  local m = getmsg(id)
  if not m then
    problems[#problems + 1] = 'message ' .. id .. ': listed, not stored'
  elseif redis.call('EXISTS', P..'c:'..m.cs) == 0 then
    problems[#problems + 1] = 'message ' .. id .. ': cluster ' .. m.cs ..
                              ' missing'
  end
  if #problems >= 100 then break end
end
return problems
)lua";

#undef MW_LUA_COMMON

}  // namespace mw::store
