#include "log.h"

#include <syslog.h>
#include <unistd.h>

#include <string>

namespace mw::milter {

namespace {
enum class Sink { kStderr, kSyslog, kNowhere };
Sink g_sink = Sink::kStderr;
}  // namespace

void UseStderr(bool foreground) {
  g_sink = foreground ? Sink::kStderr : Sink::kSyslog;
  if (!foreground) openlog("mailwave-milter", LOG_PID, LOG_MAIL);
}

void DiscardLog() { g_sink = Sink::kNowhere; }

void Log(int priority, std::string_view line) noexcept {
  if (g_sink == Sink::kNowhere) return;
  try {
    if (g_sink == Sink::kStderr) {
      // One write(2) per line, so that lines of concurrent threads never mix.
      std::string out = "mailwave-milter: ";
      out.append(line);
      out += '\n';
      [[maybe_unused]] ssize_t n = write(2, out.data(), out.size());
    } else {
      syslog(priority, "%.*s", static_cast<int>(line.size()), line.data());
    }
  } catch (...) {
    // Out of memory while logging: nothing more useful to do.
  }
}

}  // namespace mw::milter
