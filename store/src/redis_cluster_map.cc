#include "redis_cluster_map.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

#include "redis_slot.h"

namespace mw::store {
namespace {

std::optional<int> ParseInt(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

bool ValidSlot(std::int64_t s) { return s >= 0 && s < kClusterSlots; }

}  // namespace

int SlotMap::Covered() const {
  return static_cast<int>(
      std::count_if(owner.begin(), owner.end(), [](auto o) { return o >= 0; }));
}

std::string NodeName(const RedisAddress& a) {
  return a.host + ":" + std::to_string(a.port);
}

Result<SlotMap> ParseClusterSlots(const Reply& reply,
                                  std::string_view asked_host) {
  auto bad = [](const std::string& why) {
    return Fail(Error::Corrupt("redis: CLUSTER SLOTS reply: " + why));
  };
  if (reply.type() != Reply::Type::kArray) return bad("not an array");
  struct Range {
    int first, last;
    RedisAddress master;
  };
  std::vector<Range> ranges;
  for (std::size_t i = 0; i < reply.size(); ++i) {
    const Reply r = reply.at(i);
    if (r.type() != Reply::Type::kArray || r.size() < 3) {
      return bad("range " + std::to_string(i) + " is not [first, last, node]");
    }
    const Reply first = r.at(0), last = r.at(1), node = r.at(2);
    if (first.type() != Reply::Type::kInteger ||
        last.type() != Reply::Type::kInteger || !ValidSlot(first.integer()) ||
        !ValidSlot(last.integer()) || first.integer() > last.integer()) {
      return bad("range " + std::to_string(i) + " has bad slot numbers");
    }
    if (node.type() != Reply::Type::kArray || node.size() < 2 ||
        node.at(0).type() != Reply::Type::kString ||
        node.at(1).type() != Reply::Type::kInteger ||
        node.at(1).integer() <= 0 || node.at(1).integer() > 65535) {
      return bad("range " + std::to_string(i) + " has a bad master");
    }
    RedisAddress a;
    a.host = node.at(0).str().empty() ? std::string(asked_host)
                                      : std::string(node.at(0).str());
    a.port = static_cast<int>(node.at(1).integer());
    ranges.push_back({static_cast<int>(first.integer()),
                      static_cast<int>(last.integer()), std::move(a)});
  }
  SlotMap map;
  for (const Range& r : ranges) map.masters.push_back(r.master);
  auto key = [](const RedisAddress& a) { return std::tie(a.host, a.port); };
  std::sort(map.masters.begin(), map.masters.end(),
            [&](const auto& x, const auto& y) { return key(x) < key(y); });
  map.masters.erase(std::unique(map.masters.begin(), map.masters.end(),
                                [&](const auto& x, const auto& y) {
                                  return key(x) == key(y);
                                }),
                    map.masters.end());
  if (map.masters.size() > 32767) return bad("too many masters");
  map.owner.assign(kClusterSlots, -1);
  for (const Range& r : ranges) {
    const auto it = std::lower_bound(
        map.masters.begin(), map.masters.end(), r.master,
        [&](const auto& x, const auto& y) { return key(x) < key(y); });
    const auto index = static_cast<std::int16_t>(it - map.masters.begin());
    std::fill(map.owner.begin() + r.first, map.owner.begin() + r.last + 1,
              index);
  }
  return map;
}

std::optional<Redirect> ParseRedirect(std::string_view error,
                                      std::string_view asked_host) {
  Redirect r;
  if (error.substr(0, 6) == "MOVED ") {
    error.remove_prefix(6);
  } else if (error.substr(0, 4) == "ASK ") {
    r.ask = true;
    error.remove_prefix(4);
  } else {
    return std::nullopt;
  }
  const std::size_t space = error.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto slot = ParseInt(error.substr(0, space));
  if (!slot || !ValidSlot(*slot)) return std::nullopt;
  r.slot = *slot;
  const std::string_view where = error.substr(space + 1);
  // The port follows the last colon: an IPv6 host has colons of its own.
  const std::size_t colon = where.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto port = ParseInt(where.substr(colon + 1));
  if (!port || *port <= 0 || *port > 65535) return std::nullopt;
  r.to.host = colon == 0 ? std::string(asked_host)
                         : std::string(where.substr(0, colon));
  r.to.port = *port;
  return r;
}

}  // namespace mw::store
