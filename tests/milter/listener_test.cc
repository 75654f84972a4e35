// ParkedListener against a thread that does what libmilter's accept loop
// does (poll with a timeout, then accept): parking wakes a poll already
// waiting, the old address refuses new connections, and Wake() ends the
// next poll at once, for unix and TCP listeners.
#include "milter/src/listener.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "tests/milter/loopback.h"

namespace mw::milter {
namespace {

using Clock = std::chrono::steady_clock;

// libmilter's loop in small: poll(fd, 5 s); on readiness accept and count;
// until `stop`.
class AcceptLoop {
 public:
  explicit AcceptLoop(int fd) : fd_(fd), thread_([this] { Run(); }) {}
  ~AcceptLoop() {
    stop_ = true;
    thread_.join();
  }
  // The loop ends after its current poll (which a Wake ends at once).
  void RequestStop() { stop_ = true; }
  int accepted() const { return accepted_.load(); }
  int polls() const { return polls_.load(); }

 private:
  void Run() {
    while (!stop_) {
      pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
      polls_.fetch_add(1);
      if (poll(&p, 1, 5000) > 0 && (p.revents & POLLIN)) {
        const int c = accept(fd_, nullptr, nullptr);
        if (c >= 0) {
          accepted_.fetch_add(1);
          close(c);
        }
      }
    }
  }
  int fd_;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::atomic<int> polls_{0};
  std::thread thread_;
};

bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds max) {
  const auto end = Clock::now() + max;
  while (Clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

void ExpectParkingWorks(int listener, const sockaddr* addr, socklen_t len,
                        const std::string& unix_path) {
  AcceptLoop loop(listener);
  // Let the loop sit in its poll on the original socket.
  ASSERT_TRUE(
      WaitFor([&] { return loop.polls() >= 1; }, std::chrono::seconds(2)));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));

  const auto start = Clock::now();
  auto parked = ParkedListener::Park(listener, unix_path);
  ASSERT_TRUE(parked) << parked.error().message();
  // The poll that was waiting ends now, not after its 5 s.
  ASSERT_TRUE(
      WaitFor([&] { return loop.polls() >= 2; }, std::chrono::seconds(2)));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(1));

  // The old address takes no connection any more.
  const int c = socket(addr->sa_family, SOCK_STREAM, 0);
  EXPECT_NE(connect(c, addr, len), 0);
  close(c);

  // Wake ends the poll on the parked socket at once, again and again.
  for (int i = 0; i < 3; ++i) {
    const int before = loop.accepted();
    const auto t = Clock::now();
    ASSERT_TRUE(parked->Wake());
    EXPECT_TRUE(WaitFor([&] { return loop.accepted() > before; },
                        std::chrono::seconds(2)));
    EXPECT_LT(Clock::now() - t, std::chrono::seconds(1));
  }
  loop.RequestStop();
  EXPECT_TRUE(parked->Wake());
}

TEST(ParkedListener, UnixListener) {
  char dir[] = "/tmp/mw-listener-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/m.sock";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  std::memcpy(sun.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun), 0);
  ASSERT_EQ(listen(fd, 8), 0);
  const auto found = ListeningSockets();
  EXPECT_NE(std::find(found.begin(), found.end(), fd), found.end());

  ExpectParkingWorks(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun, path);
  EXPECT_NE(access(path.c_str(), F_OK), 0) << "the socket file is removed";
  close(fd);
  rmdir(dir);
}

TEST(ParkedListener, TcpListener) {
  sockaddr_in in{};
  const int fd = test_support::LoopbackListener(&in, 8);
  ASSERT_GE(fd, 0);

  ExpectParkingWorks(fd, reinterpret_cast<sockaddr*>(&in), sizeof in, "");
  // The parking socket keeps the family: libmilter refuses others.
  sockaddr_storage now{};
  socklen_t now_len = sizeof now;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&now), &now_len), 0);
  EXPECT_EQ(now.ss_family, AF_INET);
  close(fd);
}

}  // namespace
}  // namespace mw::milter
