// [pipeline]: the work budget of one message (defaults in PipelineSettings,
// config.h).
//
// The budget is what keeps a hostile message from delaying the mail flow: the
// MTA waits on the milter, and Postfix gives a milter 300 s for content at
// most. The lower bounds keep a typo from turning every analysis into a budget
// overrun; the upper ones keep the milter well inside Postfix's timeouts.
#include "params.h"

namespace mw::config {

Table PipelineTable() {
  using S = PipelineSettings;
  static const Param kParams[] = {
      {.key = "max_cpu",
       .kind = Kind::kDuration,
       .min = 10,
       .max = 60'000,
       .meaning = "CPU time of one message's analysis; past it the analysis "
                  "stops with what it has (a \"budget\" warning)",
       .field = Member<&Settings::pipeline, &S::max_cpu>},
      {.key = "max_wall",
       .kind = Kind::kDuration,
       .min = 10,
       .max = 120'000,
       .meaning = "wall-clock time of one message's check, store included; "
                  "past it the message passes untagged",
       .field = Member<&Settings::pipeline, &S::max_wall>},
  };
  return {.name = "pipeline",
          .meaning = "the work budget of one message's analysis",
          .params = kParams};
}

}  // namespace mw::config
