// [milter]: the daemon mailwave-milter (defaults in MilterSettings, config.h;
// docs/milter.md). on_error is a string the table cannot restrict to its two
// values; mailwave-milter checks it at start (exit 2).
#include "params.h"

namespace mw::config {

Table MilterTable() {
  using S = MilterSettings;
  static const Param kParams[] = {
      {.key = "socket",
       .kind = Kind::kString,
       .meaning = "where the milter listens: \"unix:/path\" or "
                  "\"inet:port@host\" (Postfix's smtpd_milters names it)",
       .field = Member<&Settings::milter, &S::socket>},
      {.key = "on_error",
       .kind = Kind::kString,
       .meaning = "what a message gets when the milter fails: \"accept\" "
                  "(pass untagged) or \"tempfail\" (the MTA retries later)",
       .field = Member<&Settings::milter, &S::on_error>},
      {.key = "backlog",
       .kind = Kind::kCount,
       .min = 1,
       .max = 65535,
       .meaning = "listen(2) backlog of the milter socket",
       .field = Member<&Settings::milter, &S::backlog>},
  };
  return {.name = "milter",
          .meaning = "the milter daemon mailwave-milter",
          .params = kParams};
}

}  // namespace mw::config
