// The site's word on a cluster: `mailwave learn --ham|--spam` and the
// IMAPSieve reports find a message's cluster as Check would (the store's
// index, then Decide) and mark it (store::Store::SetMark); a message whose
// cluster the store does not know starts one, so that its later copies
// follow the mark. Nothing is recorded for a message that matched: learning
// a copy that was delivered does not count it twice.
//
// Thread-safety: as Check.
#ifndef MW_PIPELINE_LEARN_H_
#define MW_PIPELINE_LEARN_H_

#include <string_view>

#include "pipeline/analysis.h"
#include "pipeline/verdict.h"
#include "store/store.h"

namespace mw::pipeline {

struct Learned {
  store::Cluster cluster;  // after the mark
  bool started = false;    // the message started the cluster
  std::optional<Match> match;
};

// kInvalidArgument for a degraded analysis or a body under [wave]
// min_body (no fingerprint to find a cluster by); store errors as they come.
Result<Learned> Learn(const Analyzer& analyzer, store::Store& store,
                      std::string_view bytes, const Envelope& envelope,
                      store::Mark mark, store::UnixMillis now);

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_LEARN_H_
