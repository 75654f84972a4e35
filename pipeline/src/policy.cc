#include "pipeline/policy.h"

#include <utility>

namespace mw::pipeline {

Result<std::shared_ptr<const Policy>> LoadPolicy(
    const config::Settings& settings) {
  auto policy = std::make_shared<Policy>();
  if (!settings.wave.allow.empty()) {
    auto allow = sender::AllowList::Load(settings.wave.allow);
    if (!allow) return Fail(allow.error());
    policy->allow = std::move(*allow);
  }
  return std::shared_ptr<const Policy>(std::move(policy));
}

}  // namespace mw::pipeline
