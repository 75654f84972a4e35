// SetNoDelayOnListeners: it finds a listening TCP socket it was not handed,
// leaves other sockets alone, and the kernel gives accepted connections the
// listener's TCP_NODELAY (the premise of the fix, checked where it runs).
#include "milter/src/nodelay.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "tests/milter/loopback.h"

namespace mw::milter {
namespace {

int NoDelay(int fd) {
  int v = -1;
  socklen_t len = sizeof v;
  EXPECT_EQ(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &len), 0);
  return v;
}

TEST(NoDelay, ListenerFoundAndAcceptedConnectionsInheritIt) {
  sockaddr_in addr{};
  const int listener = test_support::LoopbackListener(&addr);
  ASSERT_GE(listener, 0);
  // A connected, non-listening TCP socket must be left alone.
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(client, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr),
            0);
  const int before = accept(listener, nullptr, nullptr);
  ASSERT_GE(before, 0);
  EXPECT_EQ(NoDelay(listener), 0);

  EXPECT_GE(SetNoDelayOnListeners(), 1);
  EXPECT_NE(NoDelay(listener), 0);
  EXPECT_EQ(NoDelay(client), 0);
  EXPECT_EQ(NoDelay(before), 0);

  const int client2 = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(client2, 0);
  ASSERT_EQ(connect(client2, reinterpret_cast<sockaddr*>(&addr), sizeof addr),
            0);
  const int after = accept(listener, nullptr, nullptr);
  ASSERT_GE(after, 0);
  EXPECT_NE(NoDelay(after), 0) << "this kernel does not give accepted "
                                  "connections the listener's TCP_NODELAY";
  for (int fd : {after, client2, before, client, listener}) close(fd);
}

TEST(NoDelay, UnixListenerIsNotCounted) {
  const std::string path =
      "/tmp/mw-nodelay-" + std::to_string(getpid()) + ".sock";
  std::remove(path.c_str());
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 4), 0);
  EXPECT_EQ(SetNoDelayOnListeners(), 0);
  close(fd);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace mw::milter
