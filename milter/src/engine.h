// The milter protocol engine on Boost.Asio (docs/milter.md, "Engine"): one
// io_context thread accepts on the [milter] socket and runs every
// connection; the analysis (Finish, finish.h) runs on a worker pool.
//
// Per connection: one read at a time into the codec's Decoder; every
// complete packet of a read is parsed and fed to the Conversation, then
// everything it appended leaves in one write, so no connection waits for
// another's packets. At end of message the message goes to the pool; the
// answer comes back to the loop and leaves in one write. Until then the
// connection reads no further (the MTA waits for that answer anyway).
//
// Limits, each counted in the metrics (metrics_hooks.h):
//   - deadline: a message whose answer is not back in time gets the
//     [milter] on_error answer; the late result is dropped;
//   - shed: when the pool's queue is longer than the deadline allows (from
//     the mean time of the last analyses) a message gets on_error at once;
//   - max_connections: a connection beyond it is closed at once;
//   - max_buffered: bytes of messages held, all connections together; a
//     message that would pass it keeps no more (analysed as far as kept,
//     as past [mime] max_bytes);
//   - idle_timeout between messages, read_timeout inside one: close;
//   - accept failing for lack of descriptors (EMFILE, ENFILE): retried
//     after 100 ms.
//
// Thread-safety: every member runs on the io_context's thread, except the
// constructor and destructor (before and after it runs).
#ifndef MW_MILTER_ENGINE_H_
#define MW_MILTER_ENGINE_H_

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "finish.h"
#include "milter/codec.h"
#include "mw/result.h"

namespace boost::asio {
class io_context;
}

namespace mw::milter {

struct EngineOptions {
  // Worker threads running Finish; 0: one per core.
  std::size_t threads = 0;
  // The answer's deadline from end of body. REQUIRES: > 0.
  std::chrono::milliseconds deadline{30000};
  std::size_t max_connections = 1000;
  std::uint64_t max_buffered = 256ull << 20;
  std::chrono::milliseconds idle_timeout{300000};
  std::chrono::milliseconds read_timeout{60000};
  std::size_t max_packet = kDefaultMaxPacket;
  // TCP_NODELAY and TCP_QUICKACK on accepted TCP connections (off only to
  // measure what they buy).
  bool tcp_nodelay = true;
  // The Session limit ([mime] max_bytes) used when no snapshot is set.
  std::uint64_t default_max_bytes = 32ull << 20;
  // The analysis a worker runs on a complete message; empty: Finish under
  // the current snapshot (finish.h). Tests put a slow or a checking one
  // here (leveldb's Env idea: the edge is an interface). May throw (the
  // message then gets OnFailure's answer).
  std::function<EndOfMessage(Session&)> analyse;
};

class Engine {
 public:
  // Binds and listens on `conn` ("unix:/path", "local:/path", "/path",
  // "inet:port@host", "inet6:port@host"; no host: every address). A stale
  // unix socket file is removed first. Fails (kUnavailable, naming the
  // socket and the reason) when it cannot listen.
  [[nodiscard]] static Result<std::unique_ptr<Engine>> Listen(
      boost::asio::io_context& io, const std::string& conn, int backlog,
      const EngineOptions& options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Starts accepting (call on the loop, or before it runs).
  void Start();

  // The drain: stops accepting, removes the unix socket file when it is
  // still the one we made (`unix_inode`; 0: leave it), closes connections
  // between messages at once and the others after their message's answer.
  // `done` runs on the loop once no connection is left or at `deadline`
  // (then the rest are cut), with the number cut.
  void Stop(std::chrono::steady_clock::time_point deadline, ino_t unix_inode,
            std::function<void(std::size_t cut)> done);

  // Open connections (for tests and the log).
  std::size_t connections() const;

  // The unix socket's path; "" for TCP.
  const std::string& unix_path() const;

  struct Impl;  // engine.cc's

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mw::milter

#endif  // MW_MILTER_ENGINE_H_
