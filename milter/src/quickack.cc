#include "quickack.h"

#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

namespace mw::milter {

namespace {

std::atomic<bool> g_enabled{false};

// One bit per descriptor below kMaxFd: accepted from a TCP listener.
constexpr int kMaxFd = 1 << 16;
std::atomic<std::uint64_t> g_tcp[kMaxFd / 64];

void Mark(int fd, bool on) {
  if (fd < 0 || fd >= kMaxFd) return;
  const std::uint64_t bit = std::uint64_t{1} << (fd % 64);
  if (on) {
    g_tcp[fd / 64].fetch_or(bit, std::memory_order_relaxed);
  } else {
    g_tcp[fd / 64].fetch_and(~bit, std::memory_order_relaxed);
  }
}

bool Marked(int fd) {
  if (fd < 0 || fd >= kMaxFd) return false;
  return (g_tcp[fd / 64].load(std::memory_order_relaxed) >> (fd % 64)) & 1;
}

}  // namespace

void EnableQuickAck() { g_enabled.store(true); }

bool QuickAckBound() {
  return dlsym(RTLD_DEFAULT, "read") == reinterpret_cast<void*>(&::read) &&
         dlsym(RTLD_DEFAULT, "accept") == reinterpret_cast<void*>(&::accept);
}

}  // namespace mw::milter

// The shims (see quickack.h): the POSIX contracts of read(2) and accept(2),
// errno included; the system calls are made directly, so nothing recurses.
extern "C" ssize_t read(int fd, void* buf, size_t count) {
  const long r = syscall(SYS_read, fd, buf, count);
  if (r > 0 && mw::milter::Marked(fd)) {
    const int saved = errno;
    const int on = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &on, sizeof on) != 0) {
      // The descriptor was closed and reused for something else.
      mw::milter::Mark(fd, false);
    }
    errno = saved;
  }
  return static_cast<ssize_t>(r);
}

extern "C" int accept(int fd, sockaddr* addr, socklen_t* len) {
  const int c = static_cast<int>(syscall(SYS_accept, fd, addr, len));
  if (c >= 0 && mw::milter::g_enabled.load(std::memory_order_relaxed)) {
    int domain = 0;
    socklen_t dlen = sizeof domain;
    const int saved = errno;
    const bool tcp =
        getsockopt(c, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) == 0 &&
        (domain == AF_INET || domain == AF_INET6);
    mw::milter::Mark(c, tcp);
    errno = saved;
  }
  return c;
}
