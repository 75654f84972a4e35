#include "redis_link.h"

namespace mw::store {

Result<std::vector<RedisAddress>> ParseClusterSeeds(
    const std::vector<std::string>& seeds) {
  std::vector<RedisAddress> out;
  for (const std::string& s : seeds) {
    auto a = ParseRedisAddress(s);
    if (!a) {
      return Fail(Error::InvalidArgument("redis cluster seed \"" + s +
                                         "\": " + a.error().message()));
    }
    if (!a->unix_path.empty()) {
      return Fail(Error::InvalidArgument(
          "redis cluster seed \"" + s +
          "\": Cluster nodes are named \"tcp://host:port\" or "
          "\"tls://host:port\""));
    }
    if (!out.empty() && a->tls != out.front().tls) {
      return Fail(
          Error::InvalidArgument("redis cluster seed \"" + s +
                                 "\": the seeds are all \"tls://\" or none"));
    }
    out.push_back(std::move(*a));
  }
  return out;
}

Result<std::unique_ptr<Link>> Link::Open(const LinkOptions& o) {
  std::unique_ptr<Link> link(new Link());
  link->slot_ = o.slot;
  if (o.cluster.empty()) {
    auto c = Connection::Open(o.connect);
    if (!c) return Fail(c.error());
    link->single_ = std::move(*c);
  } else {
    auto c = ClusterClient::Open(o.cluster, o.connect);
    if (!c) return Fail(c.error());
    link->cluster_ = std::move(*c);
  }
  return link;
}

Result<Reply> Link::Command(const std::vector<std::string_view>& args) {
  return single_ ? single_->Command(args) : cluster_->Command(slot_, args);
}

Result<void> Link::SetTimeout(std::chrono::microseconds timeout) {
  return single_ ? single_->SetTimeout(timeout) : cluster_->SetTimeout(timeout);
}

}  // namespace mw::store
