// [wave]: when a cluster of near-duplicates is a spam wave (defaults in
// WaveSettings, config.h).
#include "params.h"

namespace mw::config {

Table WaveTable() {
  using S = WaveSettings;
  static constexpr std::string_view kActions[] = {"header", "quarantine",
                                                  "reject", "tempfail"};
  static const Param kParams[] = {
      {.key = "min_size",
       .kind = Kind::kCount,
       .min = 2,
       .max = 1'000'000,
       .meaning = "members a cluster needs inside the window to be a wave",
       .field = Member<&Settings::wave, &S::min_size>},
      {.key = "window",
       .kind = Kind::kDuration,
       .min = 1000,
       .max = 30.0 * 24 * 3600 * 1000,
       .meaning = "the time window in which min_size members make a wave",
       .field = Member<&Settings::wave, &S::window>},
      {.key = "events",
       .kind = Kind::kString,
       .meaning = "file that gets one JSON line when a cluster becomes a "
                  "wave, naming the earlier members; empty: none",
       .field = Member<&Settings::wave, &S::events>},
      {.key = "trusted_authserv_ids",
       .kind = Kind::kList,
       .meaning = "authserv-ids of the site's own Authentication-Results "
                  "(OpenDKIM, OpenDMARC, rspamd); only those, above the "
                  "first Received, authenticate a sender; empty: none",
       .field = Member<&Settings::wave, &S::trusted_authserv_ids>},
      {.key = "allow",
       .kind = Kind::kString,
       .meaning = "allow list: senders whose waves the site wants (dkim, "
                  "spf, sender, list-id, ip, cluster lines; "
                  "docs/sender.md); reloaded on SIGHUP; empty: none",
       .field = Member<&Settings::wave, &S::allow>},
      {.key = "bulk_networks",
       .kind = Kind::kCount,
       .min = 1,
       .max = 1'000'000,
       .meaning = "client networks (/24, /48) an authenticated sender's "
                  "cluster may come from and still be wanted bulk",
       .field = Member<&Settings::wave, &S::bulk_networks>},
      {.key = "action",
       .kind = Kind::kString,
       .meaning = "what a copy of a spread wave (wave=yes) gets beyond the "
                  "headers: header, quarantine, reject (550) or tempfail "
                  "(451 while young); wanted bulk never",
       .field = Member<&Settings::wave, &S::action>,
       .choices = kActions},
      {.key = "young",
       .kind = Kind::kDuration,
       .min = 0,
       .max = 7.0 * 24 * 3600 * 1000,
       .meaning = "with action = \"tempfail\": how long after its first "
                  "member a spread wave's copies get 451 (then: tagged)",
       .field = Member<&Settings::wave, &S::young>},
      {.key = "min_body",
       .kind = Kind::kSize,
       .min = 1,
       .max = 1 << 20,
       .meaning = "normalised bodies shorter than this are neither looked "
                  "up nor recorded (empty and near-empty mail is no wave)",
       .field = Member<&Settings::wave, &S::min_body>},
  };
  return {.name = "wave",
          .meaning =
              "spam waves: clusters of near-duplicates arriving "
              "together",
          .params = kParams};
}

}  // namespace mw::config
