// [metrics]: the Prometheus endpoint of mailwave-milter (defaults in
// MetricsSettings, config.h; docs/milter.md, "Metrics"). The table cannot
// check the address's form; mailwave-milter does at start (exit 2).
#include "params.h"

namespace mw::config {

Table MetricsTable() {
  using S = MetricsSettings;
  static const Param kParams[] = {
      {.key = "listen",
       .kind = Kind::kString,
       .meaning = "where GET /metrics answers in Prometheus text format: "
                  "\"127.0.0.1:9477\", \"[::1]:9477\" (an IP address, port 0 "
                  "for any free one); \"\" turns it off",
       .field = Member<&Settings::metrics, &S::listen>},
  };
  return {.name = "metrics",
          .meaning = "the milter's Prometheus endpoint (loopback by default)",
          .params = kParams};
}

}  // namespace mw::config
