#include "metrics/server.h"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <charconv>
#include <exception>
#include <future>
#include <list>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "http.h"

namespace mw::metrics {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

Result<Endpoint> ParseListen(std::string_view listen) {
  const auto bad = [&](std::string_view why) {
    return Fail(Error::InvalidArgument("\"" + std::string(listen) +
                                       "\": " + std::string(why)));
  };
  const std::size_t colon = listen.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    return bad("expected host:port");
  std::string_view host = listen.substr(0, colon);
  const std::string_view port = listen.substr(colon + 1);
  if (host.front() == '[') {
    if (host.back() != ']' || host.size() < 3)
      return bad("expected [IPv6 address]:port");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 address goes in brackets: [::1]:9477");
  }
  error_code ec;
  const auto address = asio::ip::make_address(std::string(host), ec);
  if (ec) return bad("not an IP address");
  unsigned value = 0;
  const auto r = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || r.ec != std::errc() ||
      r.ptr != port.data() + port.size() || value > 65535) {
    return bad("bad port");
  }
  return Endpoint{.address = address.to_string(),
                  .port = static_cast<std::uint16_t>(value)};
}

namespace {

// One accepted connection: read the head, answer, close. Lives in a
// shared_ptr its pending handlers hold; the server keeps a raw pointer to
// close it at Stop, removed in Close.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  using CloseFn = std::function<void(Connection*)>;
  Connection(tcp::socket socket, const ServerOptions& options,
             const Registry& registry, CloseFn on_close)
      : socket_(std::move(socket)),
        deadline_(socket_.get_executor()),
        options_(options),
        registry_(registry),
        on_close_(std::move(on_close)) {}

  void Begin() {
    buffer_.resize(options_.max_request_bytes);
    deadline_.expires_after(options_.timeout);
    deadline_.async_wait([self = shared_from_this()](error_code ec) {
      if (!ec) self->Close();
    });
    Read();
  }

  // Idempotent; from the server's thread.
  void Close() {
    if (closed_) return;
    closed_ = true;
    error_code ignored;
    socket_.close(ignored);
    deadline_.cancel();
    on_close_(this);
  }

 private:
  void Read() {
    socket_.async_read_some(
        asio::buffer(buffer_.data() + used_, buffer_.size() - used_),
        [self = shared_from_this()](error_code ec, std::size_t n) {
          self->OnRead(ec, n);
        });
  }

  void OnRead(error_code ec, std::size_t n) {
    if (closed_) return;
    used_ += n;
    const std::string_view data(buffer_.data(), used_);
    if (const std::size_t head = internal::HeadLength(data); head > 0) {
      Write(internal::Answer(data.substr(0, head),
                             [this] { return registry_.Render(); }));
    } else if (used_ == buffer_.size()) {
      Write(internal::TooLarge());
    } else if (ec) {
      Close();  // the client went away before a whole head
    } else {
      Read();
    }
  }

  void Write(std::string response) {
    response_ = std::move(response);
    asio::async_write(socket_, asio::buffer(response_),
                      [self = shared_from_this()](error_code ec, std::size_t) {
                        if (ec) return self->Close();
                        // A client with unread bytes in our receive buffer
                        // (a body after a 405, the rest of an oversized
                        // head) would get a reset on close, which may
                        // discard the answer before it reads it: send FIN,
                        // then read until its close or the deadline.
                        error_code ignored;
                        self->socket_.shutdown(tcp::socket::shutdown_send,
                                               ignored);
                        self->Drain();
                      });
  }

  void Drain() {
    socket_.async_read_some(
        asio::buffer(buffer_.data(), buffer_.size()),
        [self = shared_from_this()](error_code ec, std::size_t) {
          if (ec || self->closed_) return self->Close();
          self->Drain();
        });
  }

  tcp::socket socket_;
  asio::steady_timer deadline_;
  const ServerOptions& options_;
  const Registry& registry_;
  CloseFn on_close_;
  std::string buffer_;
  std::size_t used_ = 0;
  std::string response_;
  bool closed_ = false;
};

}  // namespace

struct Server::Impl {
  Impl(const Registry& r, LogFn l) : registry(r), log(std::move(l)) {}

  void Log(std::string_view line) {
    if (!log) return;
    try {
      log(line);
    } catch (...) {
    }
  }

  // The rest runs on the io thread only.
  void Accept() {
    acceptor->async_accept([this](error_code ec, tcp::socket socket) {
      if (stopped) return;
      if (ec) {
        if (ec == asio::error::operation_aborted) return;
        // Out of descriptors and the like: try again shortly rather than
        // spin on an error that persists.
        if (!accept_error_logged) {
          Log("metrics: accept: " + ec.message());
          accept_error_logged = true;
        }
        retry.expires_after(std::chrono::milliseconds(100));
        retry.async_wait([this](error_code e) {
          if (!e && !stopped) Accept();
        });
        return;
      }
      if (connections.size() >= options.max_connections) {
        error_code ignored;
        socket.close(ignored);
      } else {
        auto c = std::make_shared<Connection>(
            std::move(socket), options, registry,
            [this](Connection* done) { connections.erase(done); });
        connections.insert(c.get());
        c->Begin();
      }
      Accept();
    });
  }

  Result<std::uint16_t> Bind(const ServerOptions& o) {
    if (stopped || acceptor)
      return Fail(Error::Internal("metrics: Listen called twice"));
    auto endpoint = ParseListen(o.listen);
    if (!endpoint) return Fail(endpoint.error());
    error_code ec;
    const tcp::endpoint ep(asio::ip::make_address(endpoint->address, ec),
                           endpoint->port);
    tcp::acceptor a(io);
    const auto refused = [&](std::string_view what) {
      return Fail(Error::Unavailable("metrics: " + std::string(what) + " " +
                                     o.listen + ": " + ec.message()));
    };
    if (a.open(ep.protocol(), ec); ec) return refused("cannot open");
    // Restarts must not wait for TIME_WAIT connections of the last run.
    if (a.set_option(tcp::acceptor::reuse_address(true), ec); ec)
      return refused("cannot set SO_REUSEADDR on");
    if (a.bind(ep, ec); ec) return refused("cannot bind");
    if (a.listen(asio::socket_base::max_listen_connections, ec); ec)
      return refused("cannot listen on");
    const std::uint16_t port = a.local_endpoint(ec).port();
    if (ec) return refused("cannot read the port of");
    options = o;
    acceptor.emplace(std::move(a));
    Accept();
    return port;
  }

  void Every(std::list<asio::steady_timer>::iterator timer,
             std::chrono::milliseconds interval,
             std::shared_ptr<std::function<void()>> job) {
    timer->async_wait([this, timer, interval, job](error_code ec) {
      if (ec || stopped) return;
      try {
        (*job)();
      } catch (const std::exception& e) {
        Log(std::string("metrics: a background job failed: ") + e.what());
      } catch (...) {
        Log("metrics: a background job failed");
      }
      // Fixed rate, but a job that overran does not run back to back.
      const auto now = asio::steady_timer::clock_type::now();
      auto next = timer->expiry() + interval;
      if (next < now) next = now + interval;
      timer->expires_at(next);
      Every(timer, interval, job);
    });
  }

  void Shutdown() {
    stopped = true;
    error_code ignored;
    if (acceptor) acceptor->close(ignored);
    retry.cancel();
    for (auto& t : timers) t.cancel();
    // Close() erases from the set.
    while (!connections.empty()) (*connections.begin())->Close();
  }

  const Registry& registry;
  LogFn log;
  asio::io_context io{1};
  asio::executor_work_guard<asio::io_context::executor_type> work{
      io.get_executor()};
  std::thread thread;
  std::mutex stop_mu;   // serialises Stop
  bool joined = false;  // guarded by stop_mu

  // The io thread's state.
  bool stopped = false;
  bool accept_error_logged = false;
  ServerOptions options;
  std::optional<tcp::acceptor> acceptor;
  asio::steady_timer retry{io};
  std::list<asio::steady_timer> timers;
  std::set<Connection*> connections;
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { Stop(); }

Result<std::unique_ptr<Server>> Server::Start(const Registry& registry,
                                              LogFn log) {
  try {
    auto impl = std::make_unique<Impl>(registry, std::move(log));
    Impl* p = impl.get();
    std::unique_ptr<Server> server(new Server(std::move(impl)));
    p->thread = std::thread([p] {
      // Handlers catch what they can throw; this is the last line.
      for (;;) {
        try {
          p->io.run();
          return;
        } catch (const std::exception& e) {
          p->Log(std::string("metrics: ") + e.what());
        }
      }
    });
    return server;
  } catch (const std::exception& e) {
    return Fail(
        Error::Internal(std::string("metrics: cannot start: ") + e.what()));
  }
}

Result<std::uint16_t> Server::Listen(const ServerOptions& options) {
  try {
    // Under stop_mu the io thread runs until the handler has: only Stop
    // stops it.
    std::lock_guard<std::mutex> lock(impl_->stop_mu);
    if (impl_->joined)
      return Fail(Error::Internal("metrics: the server is stopped"));
    auto done = std::make_shared<std::promise<Result<std::uint16_t>>>();
    auto result = done->get_future();
    asio::post(impl_->io, [p = impl_.get(), done, options] {
      done->set_value(p->Bind(options));
    });
    return result.get();
  } catch (const std::exception& e) {
    return Fail(Error::Internal(std::string("metrics: ") + e.what()));
  }
}

void Server::ScheduleEvery(std::chrono::milliseconds interval,
                           std::function<void()> job) {
  auto shared = std::make_shared<std::function<void()>>(std::move(job));
  asio::post(impl_->io, [p = impl_.get(), interval, shared] {
    if (p->stopped) return;
    p->timers.emplace_back(p->io, interval);
    p->Every(std::prev(p->timers.end()), interval, shared);
  });
}

void Server::Stop() {
  std::lock_guard<std::mutex> lock(impl_->stop_mu);
  if (impl_->joined) return;
  Impl* p = impl_.get();
  asio::post(p->io, [p] {
    p->Shutdown();
    p->io.stop();
  });
  p->work.reset();
  if (p->thread.joinable()) p->thread.join();
  impl_->joined = true;
}

}  // namespace mw::metrics
