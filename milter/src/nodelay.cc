#include "nodelay.h"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>

namespace mw::milter {

int SetNoDelayOnListeners() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  const int own = dirfd(dir);
  int set = 0;
  while (const dirent* e = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == own) continue;
    struct stat st {};
    if (fstat(static_cast<int>(fd), &st) != 0 || !S_ISSOCK(st.st_mode))
      continue;
    int listening = 0;
    socklen_t len = sizeof listening;
    if (getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_ACCEPTCONN, &listening,
                   &len) != 0 ||
        !listening) {
      continue;
    }
    sockaddr_storage addr{};
    socklen_t alen = sizeof addr;
    if (getsockname(static_cast<int>(fd), reinterpret_cast<sockaddr*>(&addr),
                    &alen) != 0 ||
        (addr.ss_family != AF_INET && addr.ss_family != AF_INET6)) {
      continue;
    }
    const int on = 1;
    if (setsockopt(static_cast<int>(fd), IPPROTO_TCP, TCP_NODELAY, &on,
                   sizeof on) == 0) {
      ++set;
    }
  }
  closedir(dir);
  return set;
}

}  // namespace mw::milter
