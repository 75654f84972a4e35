#include "listener.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace mw::milter {

namespace {

// One connection attempt that never blocks, to whatever `addr` names (an
// unspecified IP address is reached on loopback); the result does not
// matter.
void Kick(sockaddr_storage addr, socklen_t len) {
  if (addr.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&addr);
    if (in->sin_addr.s_addr == htonl(INADDR_ANY))
      in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  } else if (addr.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&addr);
    if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
      in6->sin6_addr = in6addr_loopback;
  }
  const int s =
      socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s < 0) return;
  [[maybe_unused]] int r = connect(s, reinterpret_cast<sockaddr*>(&addr), len);
  close(s);
}

}  // namespace

std::vector<int> ListeningSockets() {
  std::vector<int> found;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return found;
  const int own = dirfd(dir);
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
                   &len) == 0 &&
        listening) {
      found.push_back(static_cast<int>(fd));
    }
  }
  closedir(dir);
  return found;
}

Result<ParkedListener> ParkedListener::Park(int fd,
                                            const std::string& unix_path) {
  sockaddr_storage old{};
  socklen_t old_len = sizeof old;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&old), &old_len) != 0)
    return Fail(Error::Io(std::string("getsockname: ") + strerror(errno)));
  // The parking socket has the listening one's family: libmilter drops a
  // connection of another family as an accept() error.
  sockaddr_storage park{};
  socklen_t park_len = 0;
  if (old.ss_family == AF_UNIX) {
    static std::atomic<unsigned> serial{0};
    std::string name(1, '\0');
    name += "mailwave-milter." + std::to_string(getpid()) + "." +
            std::to_string(serial.fetch_add(1));
    auto* sun = reinterpret_cast<sockaddr_un*>(&park);
    sun->sun_family = AF_UNIX;
    std::memcpy(sun->sun_path, name.data(), name.size());
    park_len =
        static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
  } else if (old.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&park);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    park_len = sizeof *in;
  } else if (old.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&park);
    in6->sin6_family = AF_INET6;
    in6->sin6_addr = in6addr_loopback;
    park_len = sizeof *in6;
  } else {
    return Fail(Error::Unavailable("listening socket of an unknown family"));
  }
  const int s = socket(old.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return Fail(Error::Io(std::string("socket: ") + strerror(errno)));
  // An IP parking socket takes an ephemeral loopback port, read back here.
  if (bind(s, reinterpret_cast<sockaddr*>(&park), park_len) != 0 ||
      listen(s, 4) != 0 ||
      getsockname(s, reinterpret_cast<sockaddr*>(&park), &park_len) != 0) {
    const int err = errno;
    close(s);
    return Fail(Error::Io(std::string("parking socket: ") + strerror(err)));
  }
  // dup2 closes the old listening socket and puts ours in its place in one
  // step, so libmilter's poll never sees a closed descriptor.
  if (dup2(s, fd) < 0) {
    const int err = errno;
    close(s);
    return Fail(Error::Io(std::string("dup2: ") + strerror(err)));
  }
  close(s);
  ParkedListener parked(park, park_len);
  // A poll() already waiting sleeps on the old socket alone (Linux
  // registers a poll's wait queues on its first pass only) and looks the
  // descriptor up again when woken. So: first a connection waiting on ours,
  // then one to the old address to wake that poll, which then finds ours
  // ready; the accept() that follows takes it, and the next poll is on ours.
  parked.Wake();
  Kick(old, old_len);
  if (!unix_path.empty()) unlink(unix_path.c_str());
  return parked;
}

bool ParkedListener::Wake() const {
  // Non-blocking: with the backlog full (libmilter not accepting yet) a
  // connect would otherwise wait.
  const int s =
      socket(address_.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s < 0) return false;
  const int r =
      connect(s, reinterpret_cast<const sockaddr*>(&address_), length_);
  const bool ok = r == 0 || errno == EINPROGRESS;
  close(s);
  return ok;
}

}  // namespace mw::milter
