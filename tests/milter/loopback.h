// A TCP socket listening on an ephemeral loopback port, for the milter's
// socket tests (nodelay, quickack, listener).
#ifndef MW_TESTS_MILTER_LOOPBACK_H_
#define MW_TESTS_MILTER_LOOPBACK_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace mw::milter::test_support {

// The listening descriptor (-1 on failure, with errno); `addr` receives the
// address to connect to.
inline int LoopbackListener(sockaddr_in* addr, int backlog = 4) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  *addr = {};
  addr->sin_family = AF_INET;
  addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof *addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(addr), sizeof *addr) != 0 ||
      listen(fd, backlog) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(addr), &len) != 0)
    return -1;
  return fd;
}

}  // namespace mw::milter::test_support

#endif  // MW_TESTS_MILTER_LOOPBACK_H_
