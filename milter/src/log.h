// The milter's log: one line per call, to stderr in the foreground (-f) and
// to syslog (facility mail) otherwise.
//
// Thread-safety: Log may be called from any thread once UseStderr has run.
#ifndef MW_MILTER_LOG_H_
#define MW_MILTER_LOG_H_

#include <string_view>

namespace mw::milter {

// Chooses the destination; call once in main before any thread starts.
void UseStderr(bool foreground);
// Drops every line from now on: for a fuzzer, whose hostile peers would
// otherwise write a line per input. Call before any thread starts.
void DiscardLog();
// `priority` is a syslog priority (LOG_INFO, LOG_ERR). Never throws.
void Log(int priority, std::string_view line) noexcept;

}  // namespace mw::milter

#endif  // MW_MILTER_LOG_H_
