// The metrics endpoint and the background jobs, on one Boost.Asio io_context
// and one thread of their own (STYLE.md section 6).
//
// The server answers GET (and HEAD) /metrics with Registry::Render in
// Prometheus text format 0.0.4, 404 for any other path, 405 for any other
// method, 400 for a request it cannot read and 431 for a request head
// larger than max_request_bytes. Each connection gets one answer and is
// closed (HTTP/1.0 and 1.1, "Connection: close"); a connection that has not
// been answered and closed within `timeout` of its accept is dropped, so a
// slow or silent client holds a slot for at most that long, and at most
// max_connections are open at once (later ones are closed on accept).
//
// Failing to listen (a port in use, an address not on this host) is a value
// the caller logs: the Server keeps running its jobs without an endpoint,
// so the metrics can never stop the mail.
//
// Nothing here names a Boost type; Boost.Asio is private to mw::metrics.
//
// Thread-safety: Listen, ScheduleEvery and Stop may be called from any
// thread except the server's own (a job must not call them). Jobs run one
// at a time on the server's thread; a slow job delays scrapes and the other
// jobs, never the milter's threads.
#ifndef MW_METRICS_SERVER_H_
#define MW_METRICS_SERVER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "metrics/registry.h"
#include "mw/result.h"

namespace mw::metrics {

// "127.0.0.1:9477", "[::1]:9477": an IP literal (IPv6 in brackets) and a
// port 0-65535 (0: any free port).
struct Endpoint {
  std::string address;
  std::uint16_t port = 0;
};

// Parses the [metrics] listen form. kInvalidArgument with the reason
// otherwise ("expected host:port", "not an IP address", "bad port").
Result<Endpoint> ParseListen(std::string_view listen);

struct ServerOptions {
  // The address to listen on (ParseListen's form).
  std::string listen = "127.0.0.1:9477";
  // From accept to the answer's last byte and the close; past it the
  // connection is dropped unanswered.
  std::chrono::milliseconds timeout{5000};
  // The request line and headers together; a request may have no body.
  std::size_t max_request_bytes = 8192;
  std::size_t max_connections = 8;
};

// One line for the program's log, from the server's thread.
using LogFn = std::function<void(std::string_view line)>;

class Server {
 public:
  // Starts the io_context thread; nothing listens yet. `registry` must
  // outlive the Server. Fails (kInternal) only when no thread can be made.
  static Result<std::unique_ptr<Server>> Start(const Registry& registry,
                                               LogFn log = {});

  // Stop().
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds options.listen and serves from then on; returns the bound port
  // (the one the system chose for port 0). Errors: kInvalidArgument (the
  // address' form), kUnavailable (bind or listen refused: "address already
  // in use"), kInternal (called again, or after Stop).
  Result<std::uint16_t> Listen(const ServerOptions& options);

  // Runs `job` on the server's thread every `interval` (the first run one
  // interval from now) until Stop. A job that throws is logged and runs
  // again at its next time. REQUIRES: interval > 0.
  void ScheduleEvery(std::chrono::milliseconds interval,
                     std::function<void()> job);

  // Closes the listener and every open connection, cancels the jobs (one
  // that is running finishes first) and joins the thread. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mw::metrics

#endif  // MW_METRICS_SERVER_H_
