// The daemon's signals: SIGHUP reloads, SIGTERM and SIGINT stop.
//
// libmilter starts a thread in smfi_main that sigwait()s for SIGHUP, SIGTERM
// and SIGINT and stops the milter on any of the three (signal.c,
// mi_signal_thread): a reload signal would close the listening socket. Two
// threads waiting for one process signal get it in no defined order, so the
// daemon cannot simply wait beside it. Instead this unit defines `sigwait`
// itself: the dynamic linker binds libmilter's call to the executable's
// definition, which, once TakeSignals() has run, leaves the three signals out
// of the set (libmilter's thread then waits for nothing and never wakes).
// The daemon's own thread waits for them with WaitForSignal (sigwaitinfo,
// which the shim does not touch) and stops libmilter itself (smfi_stop).
//
// Thread-safety: TakeSignals once in main before any thread starts (it also
// blocks the three signals, which every later thread inherits);
// WaitForSignal from one thread.
#ifndef MW_MILTER_SIGNALS_H_
#define MW_MILTER_SIGNALS_H_

namespace mw::milter {

enum class Signal { kReload, kStop };

void TakeSignals();

// Blocks until SIGHUP (kReload), SIGTERM or SIGINT (kStop).
Signal WaitForSignal();

// True when libmilter's sigwait calls go through this unit's shim (the
// executable exports it): checked at start, so that a build whose linker did
// not bind it logs that SIGHUP would stop the daemon.
bool ShimBound();

}  // namespace mw::milter

#endif  // MW_MILTER_SIGNALS_H_
