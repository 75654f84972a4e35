// libmilter's listening socket, reached from outside libmilter.
//
// libmilter keeps the socket it listens on to itself, yet the daemon needs it
// twice: to set TCP_NODELAY (nodelay.h) and to stop taking connections at
// SIGTERM while the messages already in flight finish. Debian's libmilter is
// built with its worker pool (_FFR_WORKERS_POOL): smfi_stop ends every
// session at once, in flight or not. So the stop goes in two steps:
// Park() puts a private listening socket (an abstract unix address, or an
// ephemeral loopback port, nobody else knows) in the listening socket's
// place with dup2, so the MTA's new
// connections are refused while libmilter keeps serving the open ones; once
// they are done, smfi_stop, and Wake() connects to the parked socket so that
// libmilter's accept loop sees the stop now rather than after its 5 s poll.
#ifndef MW_MILTER_LISTENER_H_
#define MW_MILTER_LISTENER_H_

#include <sys/socket.h>

#include <string>
#include <vector>

#include "mw/result.h"

namespace mw::milter {

// Every listening socket among the process's descriptors (/proc/self/fd).
std::vector<int> ListeningSockets();

class ParkedListener {
 public:
  // Replaces listening descriptor `fd` by a private one. The unix socket
  // file at `unix_path` (empty for TCP) is removed, so that clients get
  // ENOENT rather than a refused connection on a path that looks alive.
  [[nodiscard]] static Result<ParkedListener> Park(
      int fd, const std::string& unix_path);
  // Connects to the parked socket once; false when that failed.
  bool Wake() const;

 private:
  ParkedListener(const sockaddr_storage& address, socklen_t length)
      : address_(address), length_(length) {}
  sockaddr_storage address_;
  socklen_t length_;
};

}  // namespace mw::milter

#endif  // MW_MILTER_LISTENER_H_
