#include "notify.h"

#include <syslog.h>
#include <systemd/sd-daemon.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>

#include "log.h"

namespace mw::milter {
namespace {

void Send(const std::string& state) {
  // unset_environment 0: a reload's or the stop's message needs the socket too.
  const int rc = sd_notify(0, state.c_str());
  if (rc >= 0) return;
  static std::atomic<bool> logged{false};
  if (!logged.exchange(true)) {
    Log(LOG_WARNING, std::string("systemd notification failed: ") +
                         std::strerror(-rc) + " (logged once)");
  }
}

}  // namespace

void NotifyReady(std::string_view status) {
  Send("READY=1\nSTATUS=" + std::string(status));
}

void NotifyReloading() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const unsigned long long usec =
      static_cast<unsigned long long>(now.tv_sec) * 1000000ull +
      static_cast<unsigned long long>(now.tv_nsec) / 1000ull;
  Send("RELOADING=1\nMONOTONIC_USEC=" + std::to_string(usec) +
       "\nSTATUS=reloading");
}

void NotifyStopping() { Send("STOPPING=1\nSTATUS=draining"); }

}  // namespace mw::milter
