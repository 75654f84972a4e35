// The read/accept shims of quickack.h: bound in an executable that links
// libmilter, transparent (data, return values and errno as the system calls
// give them), and TCP_QUICKACK set after a read on a TCP connection they
// accepted once enabled, never on a unix one.
#include "milter/src/quickack.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tests/milter/loopback.h"

namespace mw::milter {
namespace {

int QuickAck(int fd) {
  int v = -1;
  socklen_t len = sizeof v;
  if (getsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &v, &len) != 0) return -1;
  return v;
}

TEST(QuickAck, ShimsAreBoundAndTransparent) {
  EXPECT_TRUE(QuickAckBound());
  char buf[4];
  errno = 0;
  EXPECT_EQ(read(-1, buf, sizeof buf), -1);
  EXPECT_EQ(errno, EBADF);
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  ASSERT_EQ(write(p[1], "abc", 3), 3);
  EXPECT_EQ(read(p[0], buf, sizeof buf), 3);
  EXPECT_EQ(std::memcmp(buf, "abc", 3), 0);
  close(p[0]);
  close(p[1]);
}

TEST(QuickAck, SetAfterEveryReadOnAcceptedTcp) {
  EnableQuickAck();
  sockaddr_in addr{};
  const int listener = test_support::LoopbackListener(&addr);
  ASSERT_GE(listener, 0);
  const int client = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&addr), sizeof addr),
            0);
  const int server = accept(listener, nullptr, nullptr);
  ASSERT_GE(server, 0);
  char buf[8];
  for (int i = 0; i < 3; ++i) {
    // A reply after each request puts Linux in its interactive mode (quick
    // ACKs off); the read shim turns them back on.
    ASSERT_EQ(write(client, "ping", 4), 4);
    ASSERT_EQ(read(server, buf, 4), 4);
    EXPECT_EQ(QuickAck(server), 1) << "after read " << i;
    ASSERT_EQ(write(server, "pong", 4), 4);
    ASSERT_EQ(read(client, buf, 4), 4);
  }
  close(client);
  close(server);
  close(listener);
}

}  // namespace
}  // namespace mw::milter
