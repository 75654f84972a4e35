#include "nodelay.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "listener.h"

namespace mw::milter {

int SetNoDelayOnListeners() {
  if (access("/proc/self/fd", R_OK) != 0) return -1;
  int set = 0;
  for (const int fd : ListeningSockets()) {
    sockaddr_storage addr{};
    socklen_t alen = sizeof addr;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &alen) != 0 ||
        (addr.ss_family != AF_INET && addr.ss_family != AF_INET6)) {
      continue;
    }
    const int on = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on) == 0) ++set;
  }
  return set;
}

}  // namespace mw::milter
