// The service manager's readiness protocol (systemd's sd_notify): what the
// daemon tells a Type=notify unit about its state. Every call is a no-op when
// the daemon was not started by one (no NOTIFY_SOCKET), and a failure to send
// is logged once, never fatal: the mail flow does not depend on it.
#ifndef MW_MILTER_NOTIFY_H_
#define MW_MILTER_NOTIFY_H_

#include <string_view>

namespace mw::milter {

// Listening and serving; `status` is shown by `systemctl status`.
void NotifyReady(std::string_view status);
// A SIGHUP reload began (RELOADING=1 with the monotonic time systemd wants);
// NotifyReady again when it ended, taken or refused.
void NotifyReloading();
// The drain began.
void NotifyStopping();

}  // namespace mw::milter

#endif  // MW_MILTER_NOTIFY_H_
