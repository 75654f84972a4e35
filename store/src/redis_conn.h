// One hiredis connection and its replies, owned (RAII), with errors as
// values. hiredis stays inside store/src: no public header names its types.
//
// Thread-safety: a Connection is used by one thread at a time (the store's
// pool lends each to one caller); Reply is a plain owned value.
#ifndef MW_STORE_REDIS_CONN_H_
#define MW_STORE_REDIS_CONN_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mw/result.h"
#include "store/redis.h"

struct redisContext;
struct redisReply;
struct redisReader;

namespace mw::store {

class TlsContext;
class TlsStream;

// Where to connect: a unix socket path or a TCP host and port, plain or TLS.
struct RedisAddress {
  std::string unix_path;  // set for "unix:/path"
  std::string host;       // set for "tcp://host:port" and "tls://host:port"
  int port = 0;
  bool tls = false;  // "tls://"
};
// Parses "unix:/path", "tcp://host:port" or "tls://host:port";
// kInvalidArgument otherwise.
Result<RedisAddress> ParseRedisAddress(std::string_view text);

// A reply, freed with freeReplyObject when it goes. Nested elements are
// borrowed views into the top-level reply.
class Reply {
 public:
  enum class Type { kString, kArray, kInteger, kNil, kStatus, kError, kOther };

  explicit Reply(redisReply* r, bool owned = true) : r_(r), owned_(owned) {}
  Reply(Reply&& other) noexcept : r_(other.r_), owned_(other.owned_) {
    other.r_ = nullptr;
  }
  Reply(const Reply&) = delete;
  Reply& operator=(const Reply&) = delete;
  Reply& operator=(Reply&& other) noexcept;
  ~Reply();

  Type type() const;
  // The bytes of a string, status or error reply ("" otherwise).
  std::string_view str() const;
  // An integer reply's value, or a string reply's text read as a decimal
  // integer (Lua scripts return both); 0 for anything else.
  std::int64_t integer() const;
  std::size_t size() const;       // array elements (0 when not an array)
  Reply at(std::size_t i) const;  // borrowed; REQUIRES: i < size()

 private:
  redisReply* r_;
  bool owned_;
};

struct ConnectOptions {
  RedisAddress address;
  int database = 0;
  std::string user;      // empty: AUTH with the password alone
  std::string password;  // empty: no AUTH
  std::chrono::milliseconds connect_timeout{200};
  std::chrono::milliseconds command_timeout{200};
  // Set for TLS: every connection made with these options speaks TLS with
  // this context, whatever its address says (a Cluster's nodes come from
  // the slot map as host and port alone).
  std::shared_ptr<const TlsContext> tls;
};

// What OpenRedis connects with: the address parsed, the password read from
// options.password_file (a trailing newline is not part of it), and for a
// "tls://" address (or Cluster seeds) the TLS certificates loaded.
// kInvalidArgument for a bad address, an empty file, TLS files OpenSSL
// refuses or TLS files without a "tls://" address; kIo for a file that
// cannot be read.
Result<ConnectOptions> ConnectOptionsFor(const RedisOptions& options);

class Connection {
 public:
  // Connects, authenticates and selects the database. kUnavailable on any
  // failure, with a message that never contains the password.
  static Result<std::unique_ptr<Connection>> Open(const ConnectOptions& o);

  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection();

  // Sends one command (binary-safe arguments) and reads its reply. kUnavailable
  // when the connection failed (the connection is then broken: drop it); an
  // error reply is returned as a Reply of type kError, not as a failure.
  Result<Reply> Command(const std::vector<std::string_view>& args);

  // The time a command may take from now on (redisSetTimeout: the socket's
  // send and receive timeouts). kUnavailable when it cannot be set.
  [[nodiscard]] Result<void> SetTimeout(std::chrono::microseconds timeout);

  // A pipeline in three steps: Append queues commands in the connection's
  // buffer, Flush writes them all, Read takes their replies in order. Between
  // Flush and Read the server works while the caller flushes other
  // connections. Failures as for Command.
  [[nodiscard]] Result<void> Append(const std::vector<std::string_view>& args);
  [[nodiscard]] Result<void> Flush();
  Result<Reply> Read();

 private:
  explicit Connection(redisContext* c);
  Connection(std::unique_ptr<TlsStream> tls, redisReader* reader);
  // One of the two: hiredis's own connection (unix and plain TCP), or a TLS
  // stream with hiredis's reader and our own output buffer.
  redisContext* c_ = nullptr;
  std::unique_ptr<TlsStream> tls_;
  redisReader* reader_ = nullptr;
  std::string out_;
};

}  // namespace mw::store

#endif  // MW_STORE_REDIS_CONN_H_
