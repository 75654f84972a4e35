// The site's word on waves that the verdict reads beside the store: its allow
// list ([wave] allow, sender/allow.h). The programs load it at start and the
// milter again on every reload (SIGHUP); a file with an error is refused as a
// whole and the policy in force stays.
//
// Thread-safety: immutable once loaded; share it as
// std::shared_ptr<const Policy>.
#ifndef MW_PIPELINE_POLICY_H_
#define MW_PIPELINE_POLICY_H_

#include <memory>

#include "config/config.h"
#include "mw/result.h"
#include "sender/allow.h"

namespace mw::pipeline {

struct Policy {
  sender::AllowList allow;
};

// Reads [wave] allow (none when empty). Errors name the file and line:
// "/etc/mailwave/allow:3: unknown kind \"dkm\" ...".
Result<std::shared_ptr<const Policy>> LoadPolicy(
    const config::Settings& settings);

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_POLICY_H_
