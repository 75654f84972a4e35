#include "signals.h"

#include <dlfcn.h>
#include <signal.h>

#include <atomic>
#include <cerrno>

namespace mw::milter {

namespace {

std::atomic<bool> g_taken{false};

sigset_t Ours() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

}  // namespace

void TakeSignals() {
  sigset_t set = Ours();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  g_taken.store(true);
}

Signal WaitForSignal() {
  const sigset_t set = Ours();
  for (;;) {
    const int sig = sigwaitinfo(&set, nullptr);
    if (sig == SIGHUP) return Signal::kReload;
    if (sig == SIGTERM || sig == SIGINT) return Signal::kStop;
    // EINTR (a stop of the process under a debugger): wait again.
  }
}

bool ShimBound() {
  // The definition the dynamic linker gives every library for "sigwait" is
  // the first in the global scope: ours when the executable exports it.
  void* bound = dlsym(RTLD_DEFAULT, "sigwait");
  return bound == reinterpret_cast<void*>(&::sigwait);
}

}  // namespace mw::milter

// The shim (see signals.h). Same contract as POSIX sigwait: returns 0 and
// the signal, or an error number.
extern "C" int sigwait(const sigset_t* set, int* sig) {
  sigset_t wanted = *set;
  if (mw::milter::g_taken.load()) {
    sigdelset(&wanted, SIGHUP);
    sigdelset(&wanted, SIGTERM);
    sigdelset(&wanted, SIGINT);
  }
  for (;;) {
    // An empty set waits for ever, which is what libmilter's thread should
    // do once the daemon owns its signals.
    const int r = sigwaitinfo(&wanted, nullptr);
    if (r > 0) {
      *sig = r;
      return 0;
    }
    if (errno != EINTR) return errno;
  }
}
