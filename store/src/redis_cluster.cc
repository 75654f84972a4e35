#include "redis_cluster.h"

#include <utility>

#include "redis_slot.h"

namespace mw::store {

Result<std::unique_ptr<ClusterClient>> ClusterClient::Open(
    std::vector<RedisAddress> seeds, ConnectOptions options) {
  if (seeds.empty()) {
    return Fail(Error::InvalidArgument("redis cluster: no seed nodes"));
  }
  for (const RedisAddress& s : seeds) {
    if (!s.unix_path.empty()) {
      return Fail(Error::InvalidArgument(
          "redis cluster: seed " + s.unix_path +
          " is a unix socket; Cluster nodes are named by host and port"));
    }
  }
  if (options.database != 0) {
    return Fail(Error::InvalidArgument(
        "redis cluster: a Cluster has database 0 only, not " +
        std::to_string(options.database)));
  }
  std::unique_ptr<ClusterClient> client(
      new ClusterClient(std::move(seeds), std::move(options)));
  auto read = client->RefreshMap();
  if (!read) return Fail(read.error());
  return client;
}

Result<void> ClusterClient::RefreshMap() {
  std::vector<RedisAddress> ask = map_.masters;
  ask.insert(ask.end(), seeds_.begin(), seeds_.end());
  std::string tried;
  for (const RedisAddress& node : ask) {
    auto reply = SendTo(node, false, {"CLUSTER", "SLOTS"});
    // Refused credentials are refused by every node alike.
    if (!reply && reply.error().code() != Error::Code::kUnavailable)
      return Fail(reply.error());
    if (!reply) {
      tried += (tried.empty() ? "" : "; ") + reply.error().message();
      continue;
    }
    if (reply->type() == Reply::Type::kError) {
      // "ERR This instance has cluster support disabled": a plain Redis.
      tried += (tried.empty() ? "" : "; ") + NodeName(node) + ": " +
               std::string(reply->str());
      continue;
    }
    auto map = ParseClusterSlots(*reply, node.host);
    if (!map) return Fail(map.error());
    map_ = std::move(*map);
    ++map_reads_;
    return {};
  }
  return Fail(Error::Unavailable("redis cluster: no node gave its slot map (" +
                                 tried + ")"));
}

Connection* ClusterClient::ConnectionTo(const RedisAddress& node,
                                        Error* error) {
  const std::string name = NodeName(node);
  auto it = connections_.find(name);
  if (it != connections_.end()) return it->second.get();
  const auto now = std::chrono::steady_clock::now();
  if (auto down = unreachable_.find(name); down != unreachable_.end()) {
    if (now < down->second.until) {
      *error = down->second.error;
      return nullptr;
    }
    unreachable_.erase(down);
  }
  ConnectOptions o = options_;
  o.address = node;
  auto c = Connection::Open(o);
  if (!c) {
    *error = c.error();
    // Bad credentials are no outage: said again at each try.
    if (c.error().code() == Error::Code::kUnavailable) {
      unreachable_.insert_or_assign(
          name, Unreachable{now + kRetryUnreachable, *error});
    }
    return nullptr;
  }
  return connections_.emplace(name, std::move(*c)).first->second.get();
}

Result<Reply> ClusterClient::SendTo(const RedisAddress& node, bool asking,
                                    const std::vector<std::string_view>& args) {
  Error error = Error::Unavailable("");
  Connection* c = ConnectionTo(node, &error);
  if (c == nullptr) return Fail(error);
  if (asking) {
    auto ok = c->Command({"ASKING"});
    if (!ok) {
      Drop(node);
      return Fail(ok.error());
    }
  }
  auto r = c->Command(args);
  if (!r) Drop(node);
  return r;
}

Result<void> ClusterClient::SetTimeout(std::chrono::microseconds timeout) {
  options_.command_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  for (auto& [name, c] : connections_) {
    auto set = c->SetTimeout(timeout);
    if (!set) return set;
  }
  return {};
}

Result<Reply> ClusterClient::Command(
    int slot, const std::vector<std::string_view>& args) {
  bool asking = false;
  RedisAddress ask_to;
  for (int attempt = 0; attempt <= kMaxRedirects; ++attempt) {
    RedisAddress node;
    if (asking) {
      node = ask_to;
    } else {
      if (map_.Owner(slot) < 0) {
        auto read = RefreshMap();
        if (!read) return Fail(read.error());
      }
      const int owner = map_.Owner(slot);
      if (owner < 0) {
        return Fail(Error::Unavailable("redis cluster: no master serves slot " +
                                       std::to_string(slot)));
      }
      node = map_.masters[static_cast<std::size_t>(owner)];
    }
    auto r = SendTo(node, asking, args);
    if (!r || r->type() != Reply::Type::kError) return r;
    const auto redirect = ParseRedirect(r->str(), node.host);
    if (!redirect) return r;
    asking = redirect->ask;
    if (asking) {
      ask_to = redirect->to;
      continue;
    }
    auto read = RefreshMap();
    if (!read) return Fail(read.error());
  }
  return Fail(Error::Unavailable("redis cluster: slot " + std::to_string(slot) +
                                 " redirected more than " +
                                 std::to_string(kMaxRedirects) + " times"));
}

std::vector<Result<Reply>> ClusterClient::Pipeline(
    const std::vector<SlotCommand>& commands) {
  std::vector<Result<Reply>> out;
  out.reserve(commands.size());
  for (std::size_t i = 0; i < commands.size(); ++i)
    out.emplace_back(Fail(Error::Internal("not sent")));
  // Commands by master; those of slots no master serves go alone (Command
  // reads the map again or says why not).
  std::map<int, std::vector<std::size_t>> by_master;
  std::vector<std::size_t> alone;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const int owner = map_.Owner(commands[i].slot);
    (owner < 0 ? alone : by_master[owner]).push_back(i);
  }
  struct Batch {
    RedisAddress node;
    Connection* connection;
    const std::vector<std::size_t>* commands;
  };
  std::vector<Batch> sent;
  auto fail_all = [&](const std::vector<std::size_t>& which, const Error& e) {
    for (std::size_t i : which) out[i] = Fail(e);
  };
  for (const auto& [owner, which] : by_master) {
    const RedisAddress& node = map_.masters[static_cast<std::size_t>(owner)];
    Error error = Error::Unavailable("");
    Connection* c = ConnectionTo(node, &error);
    if (c == nullptr) {
      fail_all(which, error);
      continue;
    }
    Result<void> ok;
    for (std::size_t i : which) {
      ok = c->Append(commands[i].args);
      if (!ok) break;
    }
    if (ok) ok = c->Flush();
    if (!ok) {
      fail_all(which, ok.error());
      Drop(node);
      continue;
    }
    sent.push_back({node, c, &which});
  }
  for (const Batch& b : sent) {
    for (std::size_t k = 0; k < b.commands->size(); ++k) {
      const std::size_t i = (*b.commands)[k];
      auto r = b.connection->Read();
      if (!r) {
        // The connection is lost: this reply and the rest of the batch.
        for (std::size_t j = k; j < b.commands->size(); ++j)
          out[(*b.commands)[j]] = Fail(r.error());
        Drop(b.node);
        break;
      }
      if (r->type() == Reply::Type::kError &&
          ParseRedirect(r->str(), b.node.host)) {
        alone.push_back(i);
      } else {
        out[i] = std::move(r);
      }
    }
  }
  for (std::size_t i : alone)
    out[i] = Command(commands[i].slot, commands[i].args);
  return out;
}

Result<Reply> ClusterClient::CommandOnMaster(
    std::size_t index, const std::vector<std::string_view>& args) {
  if (index >= map_.masters.size()) {
    return Fail(Error::InvalidArgument("redis cluster: no master " +
                                       std::to_string(index)));
  }
  return SendTo(map_.masters[index], false, args);
}

}  // namespace mw::store
