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
       .meaning = "where the milter listens: \"unix:/path\", "
                  "\"inet:port@host\" or \"inet6:port@host\" (Postfix's "
                  "smtpd_milters names it)",
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
      {.key = "socket_mode",
       .kind = Kind::kString,
       .meaning = "octal mode of a unix socket (\"0660\": its owner and "
                  "group connect); empty: as the umask made it",
       .field = Member<&Settings::milter, &S::socket_mode>},
      {.key = "user",
       .kind = Kind::kString,
       .meaning = "started as root: the user to become once the socket is "
                  "bound; empty: stay who we are",
       .field = Member<&Settings::milter, &S::user>},
      {.key = "group",
       .kind = Kind::kString,
       .meaning = "the group to run as and to own the unix socket; empty: "
                  "the user's primary group, and for the socket postfix "
                  "when that group exists",
       .field = Member<&Settings::milter, &S::group>},
      {.key = "pid_file",
       .kind = Kind::kString,
       .meaning = "where the daemon (not -f) writes its pid; empty: nowhere",
       .field = Member<&Settings::milter, &S::pid_file>},
      {.key = "drain",
       .kind = Kind::kDuration,
       .min = 0,
       .max = 3600e3,
       .meaning = "after SIGTERM, how long messages in flight may take to "
                  "finish before the daemon exits",
       .field = Member<&Settings::milter, &S::drain>},
      {.key = "trusted_relays",
       .kind = Kind::kString,
       .meaning = "clients (\"192.0.2.7 2001:db8::/32\") whose X-Mailwave "
                  "headers are kept as verdicts; empty: all are deleted",
       .field = Member<&Settings::milter, &S::trusted_relays>},
      {.key = "threads",
       .kind = Kind::kCount,
       .min = 0,
       .max = 1024,
       .meaning = "threads analysing messages at end of body; 0: one per "
                  "core",
       .field = Member<&Settings::milter, &S::threads>},
      {.key = "deadline",
       .kind = Kind::kDuration,
       .min = 100,
       .max = 290e3,
       .meaning = "how long a message's analysis may take before it gets "
                  "on_error's answer (under Postfix's "
                  "milter_content_timeout); a message that would wait longer "
                  "in the queue gets it at once",
       .field = Member<&Settings::milter, &S::deadline>},
      {.key = "max_connections",
       .kind = Kind::kCount,
       .min = 1,
       .max = 1000000,
       .meaning = "MTA connections open at once; more are closed at once",
       .field = Member<&Settings::milter, &S::max_connections>},
      {.key = "max_buffered",
       .kind = Kind::kSize,
       .min = 1 << 20,
       .max = 64.0 * (1ull << 30),
       .meaning = "bytes of messages held, all connections together; a "
                  "message past it is analysed as far as it was kept",
       .field = Member<&Settings::milter, &S::max_buffered>},
      {.key = "idle_timeout",
       .kind = Kind::kDuration,
       .min = 1000,
       .max = 86400e3,
       .meaning = "a connection silent this long between messages is closed",
       .field = Member<&Settings::milter, &S::idle_timeout>},
      {.key = "read_timeout",
       .kind = Kind::kDuration,
       .min = 1000,
       .max = 86400e3,
       .meaning = "a connection silent this long inside a message is closed",
       .field = Member<&Settings::milter, &S::read_timeout>},
  };
  return {.name = "milter",
          .meaning = "the milter daemon mailwave-milter",
          .params = kParams};
}

}  // namespace mw::config
