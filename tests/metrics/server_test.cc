// The metrics server for real: an ephemeral loopback port, plain POSIX
// sockets as the client.
#include "metrics/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mw::metrics {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// A connected client socket, closed on destruction. Reads give up after 10 s
// so that a server bug fails the test instead of hanging it.
class Client {
 public:
  explicit Client(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    timeval tv{.tv_sec = 10, .tv_usec = 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~Client() { ::close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool connected() const { return connected_; }
  bool Send(std::string_view data) {
    return ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(data.size());
  }
  // Everything until the server closes; `eof` says whether it did (false:
  // the 10 s read timeout or an error).
  std::string ReadAll(bool* eof = nullptr) {
    std::string out;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n > 0) {
        out.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      if (eof != nullptr) *eof = n == 0;
      return out;
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

std::string Exchange(std::uint16_t port, std::string_view request) {
  Client c(port);
  EXPECT_TRUE(c.connected());
  EXPECT_TRUE(c.Send(request));
  bool eof = false;
  std::string response = c.ReadAll(&eof);
  EXPECT_TRUE(eof) << "the server did not close the connection";
  return response;
}

std::string BodyOf(const std::string& response) {
  const std::size_t end = response.find("\r\n\r\n");
  return end == std::string::npos ? std::string() : response.substr(end + 4);
}

struct ServerTest : ::testing::Test {
  void SetUp() override {
    counter = *registry.AddCounter("test_requests_total", "Test counter.");
    auto s = Server::Start(registry, [this](std::string_view line) {
      std::lock_guard<std::mutex> lock(log_mu);
      log.emplace_back(line);
    });
    ASSERT_TRUE(s) << s.error().message();
    server = std::move(*s);
  }
  std::uint16_t Listen(ServerOptions o = {}) {
    o.listen = "127.0.0.1:0";
    auto port = server->Listen(o);
    EXPECT_TRUE(port) << port.error().message();
    return port ? *port : 0;
  }
  std::vector<std::string> Log() {
    std::lock_guard<std::mutex> lock(log_mu);
    return log;
  }

  Registry registry;
  Counter* counter = nullptr;
  std::mutex log_mu;
  std::vector<std::string> log;
  std::unique_ptr<Server> server;
};

TEST_F(ServerTest, GetMetricsReturnsTheRegistry) {
  const std::uint16_t port = Listen();
  ASSERT_NE(port, 0);
  counter->Inc(41);
  const std::string r =
      Exchange(port, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
  EXPECT_TRUE(r.starts_with("HTTP/1.1 200 OK\r\n")) << r;
  EXPECT_NE(r.find("\r\nContent-Type: text/plain; version=0.0.4"),
            std::string::npos);
  EXPECT_EQ(BodyOf(r), registry.Render());
  EXPECT_NE(BodyOf(r).find("test_requests_total 41\n"), std::string::npos);
  // The next scrape sees the next value: nothing is cached.
  counter->Inc();
  EXPECT_NE(BodyOf(Exchange(port, "GET /metrics HTTP/1.0\r\n\r\n"))
                .find("test_requests_total 42\n"),
            std::string::npos);
}

TEST_F(ServerTest, RequestInSmallPiecesIsAnswered) {
  const std::uint16_t port = Listen();
  Client c(port);
  ASSERT_TRUE(c.connected());
  for (std::string_view piece : {"GE", "T /met", "rics HTTP/1.1\r", "\n\r\n"}) {
    ASSERT_TRUE(c.Send(piece));
    std::this_thread::sleep_for(milliseconds(20));
  }
  EXPECT_TRUE(c.ReadAll().starts_with("HTTP/1.1 200 OK\r\n"));
}

TEST_F(ServerTest, OtherPathIs404) {
  const std::uint16_t port = Listen();
  EXPECT_TRUE(Exchange(port, "GET / HTTP/1.1\r\n\r\n")
                  .starts_with("HTTP/1.1 404 Not Found\r\n"));
}

TEST_F(ServerTest, PostIs405EvenWithABody) {
  const std::uint16_t port = Listen();
  const std::string body(20000, 'x');
  const std::string r = Exchange(
      port, "POST /metrics HTTP/1.1\r\nContent-Length: 20000\r\n\r\n" + body);
  EXPECT_TRUE(r.starts_with("HTTP/1.1 405 Method Not Allowed\r\n")) << r;
}

TEST_F(ServerTest, OversizedRequestIsRejected) {
  ServerOptions o;
  o.max_request_bytes = 1024;
  const std::uint16_t port = Listen(o);
  const std::string r = Exchange(port, "GET /metrics HTTP/1.1\r\nX-Filler: " +
                                           std::string(5000, 'a') + "\r\n\r\n");
  EXPECT_TRUE(r.starts_with("HTTP/1.1 431 ")) << r;
  // A head that fits exactly is still served.
  std::string head = "GET /metrics HTTP/1.1\r\nX: ";
  head += std::string(1024 - head.size() - 4, 'b') + "\r\n\r\n";
  ASSERT_EQ(head.size(), 1024u);
  EXPECT_TRUE(Exchange(port, head).starts_with("HTTP/1.1 200 OK\r\n"));
}

TEST_F(ServerTest, SilentClientIsDroppedAfterTheTimeout) {
  ServerOptions o;
  o.timeout = milliseconds(200);
  const std::uint16_t port = Listen(o);
  Client silent(port);
  Client partial(port);
  ASSERT_TRUE(silent.connected());
  ASSERT_TRUE(partial.connected());
  ASSERT_TRUE(partial.Send("GET /metrics HTTP/1.1\r\n"));  // never finished
  const auto start = Clock::now();
  bool eof = false;
  EXPECT_EQ(silent.ReadAll(&eof), "");
  EXPECT_TRUE(eof);
  const auto waited = Clock::now() - start;
  EXPECT_GE(waited, milliseconds(150));
  EXPECT_LT(waited, milliseconds(5000));
  EXPECT_EQ(partial.ReadAll(&eof), "");
  EXPECT_TRUE(eof);
  // The server still answers.
  EXPECT_TRUE(Exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")
                  .starts_with("HTTP/1.1 200 OK"));
}

TEST_F(ServerTest, ConnectionsPastTheLimitAreClosed) {
  ServerOptions o;
  o.max_connections = 2;
  o.timeout = milliseconds(30000);
  const std::uint16_t port = Listen(o);
  auto a = std::make_unique<Client>(port);
  Client b(port);
  ASSERT_TRUE(a->connected() && b.connected());
  std::this_thread::sleep_for(milliseconds(100));  // both accepted
  Client c(port);
  ASSERT_TRUE(c.connected());  // the kernel accepts; the server closes it
  bool eof = false;
  const auto start = Clock::now();
  EXPECT_EQ(c.ReadAll(&eof), "");
  EXPECT_TRUE(eof);
  EXPECT_LT(Clock::now() - start, milliseconds(5000));
  // An exchange that ends (answer read, client closed) frees its slot.
  ASSERT_TRUE(a->Send("GET /metrics HTTP/1.1\r\n\r\n"));
  EXPECT_TRUE(a->ReadAll().starts_with("HTTP/1.1 200 OK"));
  a.reset();
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_TRUE(Exchange(port, "GET /metrics HTTP/1.1\r\n\r\n")
                  .starts_with("HTTP/1.1 200 OK"));
}

TEST_F(ServerTest, StopClosesOpenConnections) {
  ServerOptions o;
  o.timeout = milliseconds(60000);
  const std::uint16_t port = Listen(o);
  Client c(port);
  ASSERT_TRUE(c.connected());
  std::this_thread::sleep_for(milliseconds(100));
  const auto start = Clock::now();
  server->Stop();
  EXPECT_LT(Clock::now() - start, milliseconds(5000));
  bool eof = false;
  EXPECT_EQ(c.ReadAll(&eof), "");
  EXPECT_TRUE(eof);
  // Nothing listens any more.
  Client late(port);
  EXPECT_FALSE(late.connected());
  server->Stop();  // idempotent
}

TEST_F(ServerTest, PortInUseIsAnErrorAndJobsStillRun) {
  const std::uint16_t port = Listen();
  auto other = Server::Start(registry);
  ASSERT_TRUE(other);
  ServerOptions o;
  o.listen = "127.0.0.1:" + std::to_string(port);
  auto taken = (*other)->Listen(o);
  ASSERT_FALSE(taken);
  EXPECT_EQ(taken.error().code(), Error::Code::kUnavailable);
  EXPECT_NE(taken.error().message().find("cannot bind 127.0.0.1:"),
            std::string::npos)
      << taken.error().message();
  std::atomic<int> runs{0};
  (*other)->ScheduleEvery(milliseconds(10), [&] { ++runs; });
  const auto start = Clock::now();
  while (runs < 2 && Clock::now() - start < std::chrono::seconds(10))
    std::this_thread::sleep_for(milliseconds(5));
  EXPECT_GE(runs, 2);
}

TEST_F(ServerTest, ListenTwiceOrBadAddressFails) {
  ServerOptions o;
  o.listen = "localhost:9477";
  auto bad = server->Listen(o);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), Error::Code::kInvalidArgument);
  Listen();
  auto again = server->Listen(ServerOptions{.listen = "127.0.0.1:0"});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), Error::Code::kInternal);
}

TEST_F(ServerTest, ScheduleEveryFiresAndStops) {
  std::atomic<int> fast{0};
  std::atomic<int> slow{0};
  server->ScheduleEvery(milliseconds(10), [&] { ++fast; });
  server->ScheduleEvery(milliseconds(3'600'000), [&] { ++slow; });
  const auto start = Clock::now();
  while (fast < 5 && Clock::now() - start < std::chrono::seconds(10))
    std::this_thread::sleep_for(milliseconds(5));
  EXPECT_GE(fast, 5);
  EXPECT_EQ(slow, 0);  // first run one interval from now, not at once
  server->Stop();
  const int after = fast;
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(fast, after);
}

TEST_F(ServerTest, AThrowingJobIsLoggedAndRunsAgain) {
  std::atomic<int> runs{0};
  server->ScheduleEvery(milliseconds(10), [&] {
    ++runs;
    throw std::runtime_error("boom");
  });
  const auto start = Clock::now();
  while (runs < 3 && Clock::now() - start < std::chrono::seconds(10))
    std::this_thread::sleep_for(milliseconds(5));
  EXPECT_GE(runs, 3);
  server->Stop();
  const auto lines = Log();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0], "metrics: a background job failed: boom");
}

TEST(ParseListen, Forms) {
  auto v4 = ParseListen("127.0.0.1:9477");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->address, "127.0.0.1");
  EXPECT_EQ(v4->port, 9477);
  auto v6 = ParseListen("[::1]:0");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->address, "::1");
  EXPECT_EQ(v6->port, 0);
  for (const char* bad :
       {"", "9477", ":9477", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
        "127.0.0.1:-1", "127.0.0.1:9x", "::1:9477", "[::1:9477",
        "localhost:9477", "300.0.0.1:80"}) {
    auto r = ParseListen(bad);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_EQ(r.error().code(), Error::Code::kInvalidArgument);
    }
  }
  EXPECT_EQ(ParseListen("127.0.0.1:x").error().message(),
            "\"127.0.0.1:x\": bad port");
}

}  // namespace
}  // namespace mw::metrics
