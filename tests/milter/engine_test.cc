// The engine (milter/src/engine.h) over real unix sockets, its io_context
// on a thread of the test. No snapshot is set, so every end of message is
// answered [milter] on_error's way (accept: CONTINUE): these tests are about
// the protocol and the connections, not the analysis.
#include "milter/src/engine.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "milter/codec.h"
#include "milter/src/finish.h"
#include "milter/src/session.h"
#include "tests/milter/frames.h"

namespace mw::milter {
namespace {

using namespace std::chrono_literals;
using testing::Frame;
using testing::Str;
using testing::U32;

std::string OptNeg(std::uint32_t protocol = 0x001FFFFF) {
  return testing::OptNegPacket(0x1FF, protocol);
}

// A message as Postfix sends it when no reply is due before the end.
std::string Message(std::string_view qid) {
  std::string s;
  s += Frame(smfic::kConnect,
             Str("h") + "L" + std::string("\0\0", 2) + Str("/tmp/x"));
  s += Frame(smfic::kMacro, std::string(1, smfic::kMail) + Str("i") + Str(qid));
  s += Frame(smfic::kMail, Str("<a@example.org>"));
  s += Frame(smfic::kRcpt, Str("<b@example.org>"));
  s += Frame(smfic::kHeader, Str("Subject") + Str("hello"));
  s += Frame(smfic::kEoh);
  s += Frame(smfic::kBody, "Hello world.\r\n");
  s += Frame(smfic::kEob);
  return s;
}

class Client {
 public:
  explicit Client(const std::string& path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~Client() {
    if (fd_ >= 0) close(fd_);
  }
  bool connected() const { return connected_; }
  void Send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = write(fd_, bytes.data(), bytes.size());
      if (n <= 0) return;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  // The command bytes of the next `count` replies; fewer when the
  // connection closed or 5 s passed.
  std::string Read(std::size_t count) {
    std::string commands;
    while (commands.size() < count) {
      auto next = decoder_.Next();
      if (next && *next) {
        commands += (*next)->command;
        continue;
      }
      auto space = decoder_.Prepare(4096);
      const ssize_t n = read(fd_, space.data(), space.size());
      if (n <= 0) {
        decoder_.Commit(0);
        closed_ = n == 0;
        break;
      }
      decoder_.Commit(static_cast<std::size_t>(n));
    }
    return commands;
  }
  // True while the peer has not closed (nothing waited for).
  bool Open() {
    char ch;
    const ssize_t n = recv(fd_, &ch, 1, MSG_DONTWAIT | MSG_PEEK);
    return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
  }
  // True when the peer closes within 5 s.
  bool Closed() {
    char c;
    const ssize_t n = read(fd_, &c, 1);
    return n == 0 || closed_;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
  bool closed_ = false;
  Decoder decoder_;
};

class MilterEngine : public ::testing::Test {
 protected:
  void StartEngine(EngineOptions options = {}) {
    char dir[] = "/tmp/mw_engine_testXXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = dir_ + "/milter.sock";
    options.threads = 2;
    auto e = Engine::Listen(io_, "unix:" + path_, 512, options);
    ASSERT_TRUE(e.has_value()) << e.error().message();
    engine_ = std::move(*e);
    engine_->Start();
    thread_ = std::thread([this] { io_.run(); });
  }
  void TearDown() override {
    if (engine_) {
      std::promise<void> stopped;
      boost::asio::post(io_, [&] {
        engine_->Stop(std::chrono::steady_clock::now() + 1s, 0,
                      [&](std::size_t) { stopped.set_value(); });
      });
      stopped.get_future().wait_for(5s);
      io_.stop();
      thread_.join();
      engine_.reset();
    }
    if (!dir_.empty()) {
      unlink(path_.c_str());
      rmdir(dir_.c_str());
    }
  }

  boost::asio::io_context io_{1};
  std::unique_ptr<Engine> engine_;
  std::thread thread_;
  std::string dir_;
  std::string path_;
};

TEST_F(MilterEngine, PipelinedPacketsInOneWrite) {
  StartEngine();
  Client c(path_);
  ASSERT_TRUE(c.connected());
  c.Send(OptNeg() + Message("P1") + Message("P2"));
  // OPTNEG, then each message's end (no reply to anything before it).
  EXPECT_EQ(c.Read(3), "Occ");
}

TEST_F(MilterEngine, PacketsSplitAcrossReads) {
  StartEngine();
  Client c(path_);
  const std::string all = OptNeg() + Message("S1");
  for (char b : all) {
    c.Send(std::string_view(&b, 1));
    std::this_thread::sleep_for(50us);
  }
  EXPECT_EQ(c.Read(2), "Oc");
}

TEST_F(MilterEngine, WithoutNoReplyFlagsEveryStepIsAnswered) {
  StartEngine();
  Client c(path_);
  c.Send(OptNeg(smfip::kV1Protocol) + Message("N1"));
  // CONNECT, MAIL, RCPT, HEADER, EOH, BODY: continue; EOB: continue.
  EXPECT_EQ(c.Read(8), "Occccccc");
}

TEST_F(MilterEngine, OversizePacketCloses) {
  StartEngine();
  Client c(path_);
  c.Send(OptNeg());
  EXPECT_EQ(c.Read(1), "O");
  c.Send(U32(2u << 20) + "B");
  EXPECT_TRUE(c.Closed());
}

TEST_F(MilterEngine, MalformedPacketCloses) {
  StartEngine();
  Client c(path_);
  c.Send(OptNeg() + Frame(smfic::kHeader, "no terminator"));
  EXPECT_EQ(c.Read(1), "O");
  EXPECT_TRUE(c.Closed());
}

TEST_F(MilterEngine, QuitNewConnectionKeepsTheSocket) {
  StartEngine();
  Client c(path_);
  // After QUIT_NC the MTA's next SMTP session starts with CONNECT under
  // the options negotiated before (libmilter's state machine).
  c.Send(OptNeg() + Message("K1") + Frame(smfic::kQuitNc) + Message("K2") +
         Frame(smfic::kQuit));
  EXPECT_EQ(c.Read(3), "Occ");
  EXPECT_TRUE(c.Closed());
}

TEST_F(MilterEngine, ManyIdleConnectionsDoNotDelayABusyOne) {
  StartEngine();
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 300; ++i) {
    idle.push_back(std::make_unique<Client>(path_));
    ASSERT_TRUE(idle.back()->connected()) << i;
    if (i % 3 == 0) idle.back()->Send(OptNeg());  // some negotiated, silent
  }
  Client busy(path_);
  const auto start = std::chrono::steady_clock::now();
  busy.Send(OptNeg() + Message("B1"));
  EXPECT_EQ(busy.Read(2), "Oc");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

TEST_F(MilterEngine, BeyondMaxConnectionsClosedAtOnce) {
  EngineOptions o;
  o.max_connections = 2;
  StartEngine(o);
  Client a(path_), b(path_);
  a.Send(OptNeg());
  b.Send(OptNeg());
  EXPECT_EQ(a.Read(1), "O");
  EXPECT_EQ(b.Read(1), "O");
  Client third(path_);
  EXPECT_TRUE(third.Closed());
}

TEST_F(MilterEngine, IdleTimeoutCloses) {
  EngineOptions o;
  o.idle_timeout = 200ms;
  StartEngine(o);
  Client c(path_);
  c.Send(OptNeg());
  EXPECT_EQ(c.Read(1), "O");
  EXPECT_TRUE(c.Closed());
}

// The idle limit counts from the last packet, not from the first wait (what
// any cheaper timer, e.g. one wait armed across packets, must keep).
TEST_F(MilterEngine, PacketsPostponeTheIdleTimeout) {
  EngineOptions o;
  o.idle_timeout = 300ms;
  StartEngine(o);
  Client c(path_);
  c.Send(OptNeg());
  EXPECT_EQ(c.Read(1), "O");
  for (int i = 0; i < 8; ++i) {  // 800 ms of packets 100 ms apart
    std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(c.Open()) << "closed after packet " << i;
    c.Send(Frame(smfic::kMacro, std::string(1, smfic::kConnect)));
  }
  const auto last = std::chrono::steady_clock::now();
  EXPECT_TRUE(c.Closed());
  const auto waited = std::chrono::steady_clock::now() - last;
  EXPECT_GE(waited, 250ms);
  EXPECT_LT(waited, 2s);
}

// A message begun: read_timeout, shorter than the idle limit armed before it,
// applies at once.
TEST_F(MilterEngine, InsideAMessageTheShorterReadTimeoutApplies) {
  EngineOptions o;
  o.idle_timeout = 20s;
  o.read_timeout = 200ms;
  StartEngine(o);
  Client c(path_);
  c.Send(OptNeg());
  EXPECT_EQ(c.Read(1), "O");
  const std::string message = Message("Q1");
  // CONNECT, the MAIL macros and MAIL: the message is open.
  std::size_t at = 0;
  for (int i = 0; i < 3; ++i) {
    const std::uint32_t len =
        (static_cast<std::uint8_t>(message[at]) << 24) |
        (static_cast<std::uint8_t>(message[at + 1]) << 16) |
        (static_cast<std::uint8_t>(message[at + 2]) << 8) |
        static_cast<std::uint8_t>(message[at + 3]);
    at += 4 + len;
  }
  c.Send(message.substr(0, at));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(c.Closed());  // within Client's 5 s, far under 20 s
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
}

TEST_F(MilterEngine, DrainClosesIdleConnectionsAndRemovesNothingNotOurs) {
  StartEngine();
  Client c(path_);
  c.Send(OptNeg());
  EXPECT_EQ(c.Read(1), "O");
  std::promise<std::size_t> cut;
  boost::asio::post(io_, [&] {
    engine_->Stop(std::chrono::steady_clock::now() + 2s, 0,
                  [&](std::size_t n) { cut.set_value(n); });
  });
  EXPECT_TRUE(c.Closed());
  auto f = cut.get_future();
  ASSERT_EQ(f.wait_for(3s), std::future_status::ready);
  EXPECT_EQ(f.get(), 0u);
  io_.stop();
  thread_.join();
  engine_.reset();
}

// An analysis slower than [milter] deadline: the MTA gets on_error's answer
// (accept: CONTINUE) at the deadline, once; the late result is dropped and
// the connection goes on with the next message.
TEST_F(MilterEngine, DeadlineAnswersOnErrorAndDropsTheLateResult) {
  EngineOptions o;
  o.deadline = 100ms;
  o.analyse = [](Session& s) {
    if (s.queue_id() == "SLOW") std::this_thread::sleep_for(400ms);
    EndOfMessage e;
    e.headers = {{"X-Mailwave-Test", s.queue_id()}};
    return e;
  };
  StartEngine(o);
  Client c(path_);
  c.Send(OptNeg());
  EXPECT_EQ(c.Read(1), "O");
  const auto start = std::chrono::steady_clock::now();
  c.Send(Message("SLOW"));
  EXPECT_EQ(c.Read(1), "c");  // on_error, without the header
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 90ms);
  EXPECT_LT(took, 390ms);
  c.Send(Message("FAST"));
  EXPECT_EQ(c.Read(2), "hc");  // FAST's answer, not SLOW's late one
}

// With one thread and analyses of ~150 ms, a deadline of 200 ms allows one
// message waiting: of several at once, some are answered at once (shed).
TEST_F(MilterEngine, ShedsWhenTheQueueIsLongerThanTheDeadlineAllows) {
  EngineOptions o;
  o.deadline = 200ms;
  o.threads = 1;
  o.analyse = [](Session&) {
    std::this_thread::sleep_for(150ms);
    EndOfMessage e;
    e.headers = {{"X-Mailwave-Test", "analysed"}};
    return e;
  };
  StartEngine(o);
  {
    Client first(path_);  // teaches the engine the mean time
    first.Send(OptNeg() + Message("M0"));
    EXPECT_EQ(first.Read(3), "Ohc");
  }
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 4; ++i) {
    clients.push_back(std::make_unique<Client>(path_));
    clients.back()->Send(OptNeg());
    EXPECT_EQ(clients.back()->Read(1), "O");
  }
  for (auto& c : clients) c->Send(Message("M"));
  int shed = 0;
  for (auto& c : clients) {
    const std::string r = c->Read(1);
    if (r == "c") ++shed;  // on_error at once, no header
    if (r == "h") {
      EXPECT_EQ(c->Read(1), "c");
    }
  }
  EXPECT_GE(shed, 1);
  EXPECT_LE(shed, 3);
}

// [milter] max_buffered: a message that would pass it keeps no more and is
// analysed as far as it was kept.
TEST_F(MilterEngine, MaxBufferedStopsKeeping) {
  EngineOptions o;
  o.max_buffered = 100000;
  std::promise<std::pair<bool, std::size_t>> seen;
  o.analyse = [&seen](Session& s) {
    seen.set_value({s.too_large(), s.bytes().size()});
    return EndOfMessage{};
  };
  StartEngine(o);
  Client c(path_);
  std::string stream = OptNeg();
  stream += Frame(smfic::kMail, Str("<a@b>"));
  for (int i = 0; i < 4; ++i)
    stream += Frame(smfic::kBody, std::string(60000, 'x'));
  stream += Frame(smfic::kEob);
  c.Send(stream);
  EXPECT_EQ(c.Read(2), "Oc");
  auto f = seen.get_future();
  ASSERT_EQ(f.wait_for(2s), std::future_status::ready);
  const auto [too_large, kept] = f.get();
  EXPECT_TRUE(too_large);
  EXPECT_LT(kept, 200000u);
}

// Out of descriptors, accept fails with EMFILE: the engine retries after
// 100 ms instead of spinning or giving up, and serves the waiting client
// once a descriptor is free.
TEST_F(MilterEngine, AcceptRetriesAfterEmfile) {
  StartEngine();
  // The pool's threads must be running before the descriptors run out: a
  // sanitizer checks a starting thread's entry call and needs a descriptor
  // to do it (UBSan's vptr check opens a pipe), which would fail this test
  // for the sanitizer's sake, not the engine's. Main, the loop and 2 workers.
  const auto threads = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/task"),
                         std::filesystem::directory_iterator{});
  };
  for (int i = 0; i < 200 && threads() < 4; ++i)
    std::this_thread::sleep_for(10ms);
  std::this_thread::sleep_for(200ms);
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
  std::vector<int> fillers;
  rlimit low = old;
  low.rlim_cur = 256;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  // Every descriptor taken but one, for the client's socket.
  for (int fd; (fd = open("/dev/null", O_RDONLY)) >= 0;) fillers.push_back(fd);
  ASSERT_FALSE(fillers.empty());
  close(fillers.back());
  fillers.pop_back();
  Client late(path_);  // uses the last descriptor; the engine has none left
  ASSERT_TRUE(late.connected());
  late.Send(OptNeg());
  std::this_thread::sleep_for(300ms);  // accept fails and is retried
  for (int i = 0; i < 4 && !fillers.empty(); ++i) {
    close(fillers.back());
    fillers.pop_back();
  }
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(late.Read(1), "O");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  for (int fd : fillers) close(fd);
  setrlimit(RLIMIT_NOFILE, &old);
}

}  // namespace
}  // namespace mw::milter
