#include "engine.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio/basic_socket_acceptor.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <cstring>
#include <thread>
#include <unordered_set>

#include "conversation.h"
#include "finish.h"
#include "log.h"
#include "metrics_hooks.h"
#include "process.h"
#include "snapshot.h"

namespace mw::milter {

namespace asio = boost::asio;
using Protocol = asio::generic::stream_protocol;
using Acceptor = asio::basic_socket_acceptor<Protocol>;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;

namespace {

// What one read asks the decoder for: Postfix's body chunks are 64 KiB.
constexpr std::size_t kReadSize = 65536;
constexpr auto kAcceptRetry = std::chrono::milliseconds(100);
// Replies waiting behind a write past which the connection is not read.
constexpr std::size_t kMaxOut = 1 << 20;
// How long the drain waits for the MTA to close a connection it retired.
constexpr auto kRetireGrace = std::chrono::milliseconds(500);

// What the pool threads and the loop share, kept alive by whichever of them
// holds it last (a late result may outlive its connection).
struct Shared {
  std::atomic<std::uint64_t> buffered{0};  // bytes of messages held
  std::atomic<std::size_t> queued{0};      // messages posted, not finished
  std::atomic<std::int64_t> mean_ns{0};    // mean Finish time (EWMA)
};

void Release(Shared& shared, std::uint64_t bytes) {
  shared.buffered.fetch_sub(bytes, std::memory_order_relaxed);
}

}  // namespace

class Connection;

struct Engine::Impl {
  Impl(asio::io_context& io_context, EngineOptions opts)
      : io(io_context),
        options(opts),
        acceptor(io_context),
        accept_retry(io_context),
        drain_timer(io_context),
        shared(std::make_shared<Shared>()) {}
  ~Impl();

  void Accept();
  void Accepted(error_code ec, Protocol::socket socket);
  void Closed(Connection* c);
  void MaybeDone();

  asio::io_context& io;
  EngineOptions options;
  Acceptor acceptor;
  asio::steady_timer accept_retry;
  asio::steady_timer drain_timer;
  std::shared_ptr<Shared> shared;
  std::size_t pool_threads = 1;
  std::unique_ptr<asio::thread_pool> pool;
  std::unordered_set<std::shared_ptr<Connection>> connections;
  std::string unix_path;
  bool tcp = false;
  bool draining = false;
  bool accept_failing = false;  // out of descriptors, retrying
  std::function<void(std::size_t)> done;
};

// One MTA connection. Owned by Impl::connections while open; the pending
// async operations hold it too, so a handler that runs after Close finds it
// alive and closed.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(Engine::Impl* engine, Protocol::socket socket)
      : engine_(engine),
        shared_(engine->shared),
        socket_(std::move(socket)),
        timer_(engine->io),
        deadline_(engine->io),
        decoder_(DecoderOptions{.max_packet = engine->options.max_packet}),
        conversation_(MaxBytes(engine->options)) {}

  ~Connection() { Release(*shared_, held_); }

  void Start() { Read(); }

  // Closes now; a message in the pool gets its result dropped.
  void Close() {
    if (closed_) return;
    closed_ = true;
    error_code ignored;
    socket_.close(ignored);
    timer_.cancel();
    deadline_.cancel();
    Release(*shared_, held_);
    held_ = 0;
    engine_->Closed(this);  // may destroy the last owner but one: ours
  }

  // Between messages and not waiting for an answer: the drain closes it.
  bool idle() const {
    return !pending_ && !conversation_.in_message() && out_.empty() &&
           !writing_;
  }
  // The drain: close after the current message.
  void CloseWhenIdle() {
    close_when_idle_ = true;
    if (idle()) Retire();
  }

  // The drain's close: no more replies (our side shut), but the MTA may
  // still be writing its QUIT, and a write to a closed unix socket kills a
  // client that does not ignore SIGPIPE (miltertest does not). So read and
  // drop what comes until the MTA closes, for at most kRetireGrace.
  void Retire() {
    if (closed_ || retiring_) return;
    retiring_ = true;
    error_code ignored;
    socket_.shutdown(asio::socket_base::shutdown_send, ignored);
    timer_.cancel();
    timer_.expires_after(kRetireGrace);
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->Close();
    });
    Read();
  }

 private:
  static std::uint64_t MaxBytes(const EngineOptions& o) {
    auto snap = CurrentSnapshot();
    return snap ? snap->max_bytes : o.default_max_bytes;
  }

  void Read() {
    if (closed_ || reading_) return;
    if (retiring_) {
      reading_ = true;
      socket_.async_read_some(
          asio::buffer(scratch_),
          [self = shared_from_this()](error_code ec, std::size_t n) {
            self->reading_ = false;
            if (self->closed_) return;
            if (ec || n == 0) {
              self->Close();
              return;
            }
            self->Read();
          });
      return;
    }
    // Backpressure: an MTA that sends without reading our replies stops
    // being read once a write is stuck with more than kMaxOut behind it.
    if (pending_ || closing_ || (writing_ && out_.size() > kMaxOut)) return;
    reading_ = true;
    ArmTimer();
    auto space = decoder_.Prepare(kReadSize);
    socket_.async_read_some(
        asio::buffer(space.data(), space.size()),
        [self = shared_from_this()](error_code ec, std::size_t n) {
          self->OnRead(ec, n);
        });
  }

  // The silence allowed before the next packet.
  void ArmTimer() {
    const bool idle = !conversation_.in_message();
    timer_.expires_after(idle ? engine_->options.idle_timeout
                              : engine_->options.read_timeout);
    timer_.async_wait([self = shared_from_this(), idle](error_code ec) {
      if (ec || self->closed_ || !self->reading_) return;
      Metrics().CountTimeout(idle);
      Log(LOG_INFO, idle ? "milter: an idle connection timed out; closed"
                         : "milter: no packet inside a message within "
                           "read_timeout; closed");
      self->Close();
    });
  }

  void OnRead(error_code ec, std::size_t n) {
    reading_ = false;
    if (closed_) return;
    if (retiring_) {
      decoder_.Commit(ec ? 0 : n);  // dropped
      if (ec || n == 0) {
        Close();
      } else {
        Read();
      }
      return;
    }
    timer_.cancel();
    if (ec || n == 0) {
      decoder_.Commit(0);
      Close();  // the MTA went away (or the socket failed): nothing to say
      return;
    }
    decoder_.Commit(n);
    if (engine_->tcp && engine_->options.tcp_nodelay) {
      // Linux clears TCP_QUICKACK once the connection looks interactive:
      // set it again after each read, so that the MTA's second write of a
      // macro + command pair does not wait for our delayed ACK.
      int one = 1;
      setsockopt(socket_.native_handle(), IPPROTO_TCP, TCP_QUICKACK, &one,
                 sizeof one);
    }
    Pump();
  }

  // Every complete packet the decoder holds, until a message goes to the
  // pool (its answer must leave before any later reply); then one write.
  void Pump() {
    while (!pending_ && !closing_ && !retire_ && !closed_) {
      auto next = decoder_.Next();
      if (!next) {
        Metrics().CountProtocolError();
        Log(LOG_ERR, "milter: " + next.error().message() + "; closed");
        closing_ = true;
        break;
      }
      if (!*next) break;
      auto command = Parse(**next);
      if (!command) {
        Metrics().CountProtocolError();
        Log(LOG_ERR, "milter: " + command.error().message() + "; closed");
        closing_ = true;
        break;
      }
      Conversation::Next step = Conversation::Next::kGoOn;
      try {
        step = conversation_.Feed(*command, out_);
      } catch (...) {
        // No memory for a header or a chunk: the message still ends, with
        // the configured answer.
        Log(LOG_ERR, "milter: a command failed; closed");
        closing_ = true;
        break;
      }
      Charge();
      if (step == Conversation::Next::kClose) closing_ = true;
      if (step == Conversation::Next::kMessage) EndOfMessage();
    }
    Flush();
    Read();
  }

  // Moves the growth of the open message into the global count; past
  // max_buffered the message keeps no more.
  void Charge() {
    const std::uint64_t now = conversation_.held_bytes();
    if (now >= held_) {
      const std::uint64_t grow = now - held_;
      const std::uint64_t total =
          shared_->buffered.fetch_add(grow, std::memory_order_relaxed) + grow;
      if (grow > 0 && total > engine_->options.max_buffered && !capped_) {
        capped_ = true;
        conversation_.StopKeeping();
        Metrics().CountBufferFull();
        Log(LOG_WARNING,
            "milter: max_buffered reached; a message is analysed as far as "
            "it was kept");
      }
    } else {
      Release(*shared_, held_ - now);
    }
    held_ = now;
    if (!conversation_.in_message()) capped_ = false;
  }

  void EndOfMessage() {
    Metrics().CountMessage();
    TakenMessage message = conversation_.TakeMessage();
    const std::uint64_t bytes = held_;
    held_ = 0;
    capped_ = false;
    const std::string tag = message.tag();
    const std::string queue_id = message.get()->queue_id();

    // Shed: the wait the queue implies (its length times the mean time of
    // an analysis, over the pool's threads) would pass the deadline.
    const auto deadline_ns =
        std::chrono::nanoseconds(engine_->options.deadline);
    const std::size_t queued = shared_->queued.load();
    const auto mean = shared_->mean_ns.load();
    if (mean > 0 && static_cast<double>(queued + 1) *
                            static_cast<double>(mean) /
                            static_cast<double>(engine_->pool_threads) >
                        static_cast<double>(deadline_ns.count())) {
      Metrics().CountShed();
      Release(*shared_, bytes);
      AppendAnswer(OnFailure(queue_id, "shed: the analysis queue is full"),
                   tag);
      CloseIfDraining();
      return;
    }

    pending_ = true;
    const std::uint64_t generation = ++generation_;
    shared_->queued.fetch_add(1);
    Metrics().SetQueue(shared_->queued.load());
    deadline_.expires_after(engine_->options.deadline);
    deadline_.async_wait(
        [self = shared_from_this(), generation, queue_id, tag](error_code ec) {
          if (ec || self->closed_ || !self->pending_ ||
              self->generation_ != generation)
            return;
          Metrics().CountDeadlineMiss();
          self->Answer(OnFailure(queue_id,
                                 "deadline: the analysis took too "
                                 "long; its result is dropped"),
                       tag);
        });

    auto shared = shared_;
    std::weak_ptr<Connection> weak = weak_from_this();
    asio::io_context& io = engine_->io;
    asio::post(*engine_->pool, [shared, weak, generation, bytes, &io,
                                analyse = engine_->options.analyse,
                                message = std::move(message),
                                queued_at = Clock::now()]() mutable {
      mw::milter::EndOfMessage end;
      const auto started = Clock::now();
      Metrics().RecordQueueWait(started - queued_at);
      try {
        if (analyse) {
          end = analyse(*message.get());
        } else {
          auto snap = CurrentSnapshot();
          end = Finish(snap.get(), *message.get());
        }
      } catch (...) {
        end = OnFailure(message.get()->queue_id(), "eom: failed");
      }
      const std::int64_t took =
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                               started)
              .count();
      // A moving mean over the last ~8 analyses; races between threads
      // lose an update at worst.
      const std::int64_t was = shared->mean_ns.load();
      shared->mean_ns.store(was == 0 ? took : was + (took - was) / 8);
      std::string late_tag = message.tag();
      Release(*shared, bytes);
      message = TakenMessage();  // no longer in flight once answered
      shared->queued.fetch_sub(1);
      asio::post(io, [weak, generation, end = std::move(end),
                      tag = std::move(late_tag)] {
        if (auto self = weak.lock()) self->Done(generation, end, tag);
      });
    });
  }

  // The pool's answer, on the loop.
  void Done(std::uint64_t generation, const mw::milter::EndOfMessage& end,
            const std::string& tag) {
    Metrics().SetQueue(shared_->queued.load());
    if (closed_ || !pending_ || generation != generation_) return;  // late
    Answer(end, tag);
  }

  void Answer(const mw::milter::EndOfMessage& end, const std::string& tag) {
    pending_ = false;
    deadline_.cancel();
    AppendAnswer(end, tag);
    CloseIfDraining();
    Pump();  // packets that came behind the end of body, then read on
  }

  void AppendAnswer(const mw::milter::EndOfMessage& end,
                    const std::string& tag) {
    for (const std::string& why :
         conversation_.AppendEndOfMessage(end, tag, out_))
      Refused(tag, why);
  }

  void CloseIfDraining() {
    if (close_when_idle_ && !conversation_.in_message()) retire_ = true;
  }

  // Starts the one write of everything appended; closes after it when the
  // conversation ended.
  void Flush() {
    if (closed_ || writing_) return;
    if (out_.empty()) {
      if (closing_) {
        Close();
      } else if (retire_) {
        Retire();
      }
      return;
    }
    writing_ = true;
    writing_buf_.swap(out_);
    out_.clear();
    asio::async_write(
        socket_, asio::buffer(writing_buf_),
        [self = shared_from_this()](error_code ec, std::size_t) {
          self->writing_ = false;
          self->writing_buf_.clear();
          if (self->closed_) return;
          if (ec) {
            self->Close();
            return;
          }
          self->Flush();
          if (!self->closed_ && self->close_when_idle_ && self->idle())
            self->Retire();
          self->Read();
        });
  }

  Engine::Impl* engine_;
  std::shared_ptr<Shared> shared_;
  Protocol::socket socket_;
  asio::steady_timer timer_;     // idle or read timeout
  asio::steady_timer deadline_;  // the pending message's
  Decoder decoder_;
  Conversation conversation_;
  std::string out_;
  std::string writing_buf_;
  std::uint64_t held_ = 0;  // bytes charged to Shared::buffered
  std::uint64_t generation_ = 0;
  bool capped_ = false;
  bool reading_ = false;
  bool writing_ = false;
  bool pending_ = false;  // a message is in the pool
  bool closing_ = false;  // close once the writes are out
  bool retire_ = false;   // Retire once the writes are out
  bool retiring_ = false;
  std::array<char, 512> scratch_{};
  bool closed_ = false;
  bool close_when_idle_ = false;
};

Engine::Impl::~Impl() {
  error_code ignored;
  acceptor.close(ignored);
  accept_retry.cancel();
  drain_timer.cancel();
  // Copy: Close() erases from the set.
  std::vector<std::shared_ptr<Connection>> open(connections.begin(),
                                                connections.end());
  done = nullptr;
  for (auto& c : open) c->Close();
  connections.clear();
  if (pool) pool->join();
}

void Engine::Impl::Accept() {
  if (draining || !acceptor.is_open()) return;
  acceptor.async_accept([this](error_code ec, Protocol::socket socket) {
    Accepted(ec, std::move(socket));
  });
}

void Engine::Impl::Accepted(error_code ec, Protocol::socket socket) {
  if (ec == asio::error::operation_aborted || draining) return;
  if (ec) {
    if (ec == asio::error::no_descriptors || ec.value() == ENFILE ||
        ec.value() == ENOBUFS || ec.value() == ENOMEM) {
      // Out of descriptors: the connections open now end in time; try again
      // shortly instead of spinning.
      // One line per run of failures, not one per retry.
      if (!accept_failing)
        Log(LOG_WARNING,
            "milter: accept: " + ec.message() + "; retrying every 100 ms");
      accept_failing = true;
      accept_retry.expires_after(kAcceptRetry);
      accept_retry.async_wait([this](error_code e) {
        if (!e) Accept();
      });
      return;
    }
    Accept();  // ECONNABORTED and the like: that client is gone
    return;
  }
  if (accept_failing) {
    Log(LOG_INFO, "milter: accept works again");
    accept_failing = false;
  }
  if (connections.size() >= options.max_connections) {
    Metrics().CountRefusedConnection();
    error_code ignored;
    socket.close(ignored);
    Accept();
    return;
  }
  if (tcp && options.tcp_nodelay) {
    int one = 1;
    setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_NODELAY, &one,
               sizeof one);
  }
  auto c = std::make_shared<Connection>(this, std::move(socket));
  connections.insert(c);
  Metrics().SetConnections(connections.size());
  c->Start();
  Accept();
}

void Engine::Impl::Closed(Connection* c) {
  auto it = std::find_if(connections.begin(), connections.end(),
                         [c](const auto& p) { return p.get() == c; });
  if (it != connections.end()) {
    // Keep it alive to the end of this call: the caller is a member of it.
    auto keep = *it;
    connections.erase(it);
    asio::post(io, [keep] {});
  }
  Metrics().SetConnections(connections.size());
  MaybeDone();
}

void Engine::Impl::MaybeDone() {
  if (!draining || !done || !connections.empty()) return;
  drain_timer.cancel();
  auto d = std::move(done);
  done = nullptr;
  d(0);
}

namespace {

// "inet:port@host" / "inet6:port@host" -> endpoint; host empty or "*":
// every address.
Result<asio::ip::tcp::endpoint> TcpEndpoint(asio::io_context& io,
                                            std::string_view spec, bool v6) {
  const std::size_t at = spec.find('@');
  const std::string port_text(spec.substr(0, at));
  std::string host = at == std::string_view::npos
                         ? std::string()
                         : std::string(spec.substr(at + 1));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  char* end = nullptr;
  const unsigned long port = std::strtoul(port_text.c_str(), &end, 10);
  if (port_text.empty() || *end != '\0' || port > 65535)
    return Fail(Error::InvalidArgument("bad port \"" + port_text + "\""));
  if (host.empty() || host == "*") {
    return asio::ip::tcp::endpoint(
        v6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4(),
        static_cast<unsigned short>(port));
  }
  error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (!ec)
    return asio::ip::tcp::endpoint(address, static_cast<unsigned short>(port));
  asio::ip::tcp::resolver resolver(io);
  auto results = resolver.resolve(
      v6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4(), host, port_text, ec);
  if (ec || results.empty())
    return Fail(Error::InvalidArgument("cannot resolve \"" + host +
                                       "\": " + ec.message()));
  return results.begin()->endpoint();
}

}  // namespace

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::Listen(asio::io_context& io,
                                               const std::string& conn,
                                               int backlog,
                                               const EngineOptions& options) {
  auto impl = std::make_unique<Impl>(io, options);
  const auto fail = [&conn](const std::string& why) {
    return Fail(Error::Unavailable("cannot listen on " + conn + ": " + why));
  };
  error_code ec;
  Protocol::endpoint endpoint;
  impl->unix_path = UnixSocketPath(conn);
  if (!impl->unix_path.empty()) {
    // A stale socket of an earlier run is removed (libmilter did the same);
    // anything else in its place is left and the bind fails.
    struct stat st {};
    if (lstat(impl->unix_path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode))
      unlink(impl->unix_path.c_str());
    endpoint = Protocol::endpoint(
        asio::local::stream_protocol::endpoint(impl->unix_path));
  } else if (conn.rfind("inet6:", 0) == 0 || conn.rfind("inet:", 0) == 0) {
    const bool v6 = conn.rfind("inet6:", 0) == 0;
    auto tcp = TcpEndpoint(io, std::string_view(conn).substr(v6 ? 6 : 5), v6);
    if (!tcp) return fail(tcp.error().message());
    endpoint = Protocol::endpoint(*tcp);
    impl->tcp = true;
  } else {
    return fail("not unix:PATH, inet:PORT@HOST or inet6:PORT@HOST");
  }
  impl->acceptor.open(endpoint.protocol(), ec);
  if (ec) return fail(ec.message());
  if (impl->tcp) {
    impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (impl->options.tcp_nodelay) {
      // Also on the listener: Linux gives accepted sockets its options.
      int one = 1;
      setsockopt(impl->acceptor.native_handle(), IPPROTO_TCP, TCP_NODELAY, &one,
                 sizeof one);
    }
  }
  impl->acceptor.bind(endpoint, ec);
  if (ec) return fail(ec.message());
  impl->acceptor.listen(backlog, ec);
  if (ec) return fail(ec.message());
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

void Engine::Start() {
  // The workers start here, not at Listen: the daemon forks in between.
  std::size_t threads = impl_->options.threads;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  impl_->pool_threads = threads;
  impl_->pool = std::make_unique<asio::thread_pool>(threads);
  impl_->Accept();
}

void Engine::Stop(Clock::time_point deadline, ino_t unix_inode,
                  std::function<void(std::size_t)> done) {
  Impl& e = *impl_;
  e.draining = true;
  e.done = std::move(done);
  error_code ignored;
  e.acceptor.close(ignored);
  e.accept_retry.cancel();
  if (!e.unix_path.empty() && unix_inode != 0) {
    // Only the file we made: a second daemon may have replaced it.
    struct stat st {};
    if (stat(e.unix_path.c_str(), &st) == 0 && st.st_ino == unix_inode)
      unlink(e.unix_path.c_str());
  }
  std::vector<std::shared_ptr<Connection>> open(e.connections.begin(),
                                                e.connections.end());
  for (auto& c : open) c->CloseWhenIdle();
  if (e.connections.empty()) {
    e.MaybeDone();
    return;
  }
  e.drain_timer.expires_at(deadline);
  e.drain_timer.async_wait([&e](error_code ec) {
    if (ec || !e.done) return;
    std::vector<std::shared_ptr<Connection>> left(e.connections.begin(),
                                                  e.connections.end());
    auto d = std::move(e.done);
    e.done = nullptr;
    for (auto& c : left) c->Close();
    d(left.size());
  });
}

std::size_t Engine::connections() const { return impl_->connections.size(); }

const std::string& Engine::unix_path() const { return impl_->unix_path; }

}  // namespace mw::milter
