// TLS to a Redis server (Redis's tls-port), for "tls://host:port"
// addresses: OpenSSL over a TCP socket of our own, since Debian 12's hiredis
// (0.14) has no TLS; hiredis's reader still parses the replies
// (redis_conn.cc). The server's certificate is always verified, against the
// given CA file or the system's, and must name the host (or
// TlsOptions::server_name); there is no switch to turn that off.
//
// Thread-safety: a TlsContext is shared read-only by every connection of a
// store (OpenSSL 3 makes SSL_CTX safe for that); a TlsStream is used by one
// thread at a time, as a Connection is.
#ifndef MW_STORE_REDIS_TLS_H_
#define MW_STORE_REDIS_TLS_H_

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "mw/result.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace mw::store {

struct TlsOptions {
  std::string ca_file;    // PEM CA certificates; empty: the system's
  std::string cert_file;  // the client's certificate chain (PEM); empty: none
  std::string key_file;   // its private key (PEM); required with cert_file
  // The name the server's certificate must carry; empty: the host connected
  // to (a DNS name, or an IP address matched against the certificate's IP
  // addresses).
  std::string server_name;
};

// The certificates and settings every connection of a store shares, loaded
// once. kIo when a file cannot be read, kInvalidArgument when it holds no
// certificate or key OpenSSL accepts, or a certificate without its key; the
// message names the file and OpenSSL's reason.
class TlsContext {
 public:
  static Result<std::shared_ptr<const TlsContext>> Load(const TlsOptions& o);
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;
  ~TlsContext();

  SSL_CTX* ctx() const { return ctx_; }
  const std::string& server_name() const { return server_name_; }

 private:
  TlsContext(SSL_CTX* ctx, std::string server_name)
      : ctx_(ctx), server_name_(std::move(server_name)) {}
  SSL_CTX* ctx_;
  std::string server_name_;
};

// One TLS connection. Blocking I/O under socket timeouts, as hiredis's own
// connections: a read or write that times out or fails breaks the stream
// (the caller drops it).
class TlsStream {
 public:
  // TCP connect within `connect_timeout`, then the handshake within it too;
  // afterwards reads and writes wait at most `io_timeout` each.
  // kUnavailable when the server cannot be reached or the handshake breaks
  // off; kInvalidArgument when the server's certificate is refused (it does
  // not verify, or names another host): a configuration error, not an
  // outage.
  static Result<std::unique_ptr<TlsStream>> Connect(
      const TlsContext& context, const std::string& host, int port,
      std::chrono::milliseconds connect_timeout,
      std::chrono::microseconds io_timeout);
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;
  ~TlsStream();

  [[nodiscard]] Result<void> Write(std::string_view bytes);
  // At least one byte, at most `size`; kUnavailable on timeout, error or a
  // closed connection.
  Result<std::size_t> ReadSome(char* buffer, std::size_t size);
  [[nodiscard]] Result<void> SetTimeout(std::chrono::microseconds timeout);

 private:
  TlsStream(int fd, SSL* ssl, std::string where)
      : fd_(fd), ssl_(ssl), where_(std::move(where)) {}
  Error Broken(std::string_view what, int ret);

  int fd_;
  SSL* ssl_;
  std::string where_;  // "host:port", for messages
  // The server asked for a client certificate and the context has none.
  bool asked_for_certificate_ = false;
};

}  // namespace mw::store

#endif  // MW_STORE_REDIS_TLS_H_
