#include "redis_tls.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace mw::store {
namespace {

// OpenSSL's queued errors as one line (and the queue emptied: a later call
// must not report this one's reasons).
std::string OpensslReason() {
  std::string out;
  unsigned long e = 0;
  while ((e = ERR_get_error()) != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? std::string("no reason given") : out;
}

// Whether `path` can be opened for reading, for a kIo error that says so
// before OpenSSL's less direct "no such file" reason.
Result<void> Readable(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Fail(Error::Io("redis: cannot read the TLS " + std::string(what) +
                          " " + path + ": " + std::strerror(errno)));
  }
  return {};
}

bool IsIpAddress(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

bool SetSocketTimeouts(int fd, std::chrono::microseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1'000'000);
  tv.tv_usec = static_cast<suseconds_t>(timeout.count() % 1'000'000);
  return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0 &&
         setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) == 0;
}

// A non-blocking connect to one address, waited for up to `timeout`; the
// socket is blocking again on success. -1 with errno set on failure.
int ConnectOne(const addrinfo& ai, std::chrono::milliseconds timeout) {
  const int fd =
      ::socket(ai.ai_family, ai.ai_socktype | SOCK_CLOEXEC, ai.ai_protocol);
  if (fd < 0) return -1;
  const int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = ::connect(fd, ai.ai_addr, ai.ai_addrlen);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (rc == 0) {
      errno = ETIMEDOUT;
      rc = -1;
    } else if (rc > 0) {
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      errno = err;
      rc = err == 0 ? 0 : -1;
    }
  }
  if (rc != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  fcntl(fd, F_SETFL, flags);
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// Called in the handshake when the server asks for a client certificate
// and none is configured: noted, so that the server's refusal (in TLS 1.3 a
// reset after the handshake, at the first command) can say why.
int NoteCertificateRequest(SSL* ssl, X509**, EVP_PKEY**) {
  if (auto* asked = static_cast<bool*>(SSL_get_app_data(ssl))) *asked = true;
  return 0;  // none: go on without
}

}  // namespace

Result<std::shared_ptr<const TlsContext>> TlsContext::Load(
    const TlsOptions& o) {
  if (o.cert_file.empty() != o.key_file.empty()) {
    return Fail(Error::InvalidArgument(
        "redis: a TLS client certificate needs its key, and a key its "
        "certificate (redis_tls_cert and redis_tls_key)"));
  }
  SSL_CTX* raw = SSL_CTX_new(TLS_client_method());
  if (raw == nullptr) {
    return Fail(Error::Internal("redis: TLS: " + OpensslReason()));
  }
  // Owned from here: the constructor is private, the pointer is not.
  std::shared_ptr<const TlsContext> context(new TlsContext(raw, o.server_name));
  SSL_CTX_set_min_proto_version(raw, TLS1_2_VERSION);
  SSL_CTX_set_verify(raw, SSL_VERIFY_PEER, nullptr);
  if (!o.ca_file.empty()) {
    if (auto ok = Readable(o.ca_file, "CA file (redis_tls_ca)"); !ok)
      return Fail(ok.error());
    if (SSL_CTX_load_verify_locations(raw, o.ca_file.c_str(), nullptr) != 1) {
      return Fail(
          Error::InvalidArgument("redis: the TLS CA file (redis_tls_ca) " +
                                 o.ca_file + ": " + OpensslReason()));
    }
  } else if (SSL_CTX_set_default_verify_paths(raw) != 1) {
    return Fail(Error::InvalidArgument(
        "redis: the system's TLS CA certificates: " + OpensslReason()));
  }
  if (o.cert_file.empty()) {
    SSL_CTX_set_client_cert_cb(raw, NoteCertificateRequest);
  } else {
    if (auto ok = Readable(o.cert_file, "certificate (redis_tls_cert)"); !ok)
      return Fail(ok.error());
    if (auto ok = Readable(o.key_file, "key (redis_tls_key)"); !ok)
      return Fail(ok.error());
    if (SSL_CTX_use_certificate_chain_file(raw, o.cert_file.c_str()) != 1) {
      return Fail(Error::InvalidArgument(
          "redis: the TLS certificate (redis_tls_cert) " + o.cert_file + ": " +
          OpensslReason()));
    }
    // OpenSSL checks here that the key is the certificate's, too.
    if (SSL_CTX_use_PrivateKey_file(raw, o.key_file.c_str(),
                                    SSL_FILETYPE_PEM) != 1) {
      return Fail(Error::InvalidArgument("redis: the TLS key (redis_tls_key) " +
                                         o.key_file + " (of " + o.cert_file +
                                         "): " + OpensslReason()));
    }
  }
  return context;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

Result<std::unique_ptr<TlsStream>> TlsStream::Connect(
    const TlsContext& context, const std::string& host, int port,
    std::chrono::milliseconds connect_timeout,
    std::chrono::microseconds io_timeout) {
  const std::string where = host + ":" + std::to_string(port);
  const auto deadline = std::chrono::steady_clock::now() + connect_timeout;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
      rc != 0) {
    return Fail(Error::Unavailable("redis: connect " + where + ": " +
                                   gai_strerror(rc)));
  }
  int fd = -1;
  int err = 0;
  for (const addrinfo* ai = found; ai != nullptr && fd < 0; ai = ai->ai_next) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      err = ETIMEDOUT;
      break;
    }
    fd = ConnectOne(*ai, left);
    if (fd < 0) err = errno;
  }
  freeaddrinfo(found);
  if (fd < 0) {
    return Fail(Error::Unavailable("redis: connect " + where + ": " +
                                   std::strerror(err)));
  }
  std::unique_ptr<TlsStream> s(new TlsStream(fd, nullptr, where));
  s->ssl_ = SSL_new(context.ctx());
  if (s->ssl_ == nullptr) {
    return Fail(Error::Internal("redis: TLS: " + OpensslReason()));
  }
  const std::string& name =
      context.server_name().empty() ? host : context.server_name();
  if (IsIpAddress(name)) {
    X509_VERIFY_PARAM* param = SSL_get0_param(s->ssl_);
    X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str());
  } else {
    SSL_set_tlsext_host_name(s->ssl_, name.c_str());
    SSL_set1_host(s->ssl_, name.c_str());
  }
  SSL_set_app_data(s->ssl_, &s->asked_for_certificate_);
  SSL_set_fd(s->ssl_, fd);
  // The handshake runs non-blocking under what is left of connect_timeout:
  // a peer that accepts but never answers (or trickles) must not hold the
  // call longer than a refused connect would.
  const int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = 0;
  for (;;) {
    ERR_clear_error();
    errno = 0;
    rc = SSL_connect(s->ssl_);
    if (rc == 1) break;
    const int want = SSL_get_error(s->ssl_, rc);
    if (want != SSL_ERROR_WANT_READ && want != SSL_ERROR_WANT_WRITE) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd,
             static_cast<short>(want == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT),
             0};
    if (left.count() <= 0 ||
        ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
      return Fail(Error::Unavailable("redis: " + where +
                                     ": TLS handshake: timeout (no answer "
                                     "within the connect timeout)"));
    }
  }
  fcntl(fd, F_SETFL, flags);
  if (rc != 1) {
    const long verify = SSL_get_verify_result(s->ssl_);
    if (verify != X509_V_OK) {
      return Fail(Error::InvalidArgument("redis: TLS: the certificate of " +
                                         where + " is refused (" +
                                         X509_verify_cert_error_string(verify) +
                                         "; expected name " + name + ")"));
    }
    return Fail(s->Broken("TLS handshake", rc));
  }
  if (auto ok = s->SetTimeout(io_timeout); !ok) return Fail(ok.error());
  return s;
}

TlsStream::~TlsStream() {
  if (ssl_ != nullptr) {
    // No close_notify: the server would answer it, and a stream dropped
    // after a timeout must not wait for anything.
    SSL_free(ssl_);
  }
  if (fd_ >= 0) ::close(fd_);
}

Error TlsStream::Broken(std::string_view what, int ret) {
  const int e = errno;
  const int code = SSL_get_error(ssl_, ret);
  std::string why;
  switch (code) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      why = "timeout";
      break;
    case SSL_ERROR_ZERO_RETURN:
      why = "closed by the server";
      break;
    case SSL_ERROR_SYSCALL:
      why = e != 0 ? std::strerror(e) : "connection lost";
      if (e == EAGAIN || e == EWOULDBLOCK) why = "timeout";
      break;
    default:
      why = OpensslReason();
  }
  ERR_clear_error();
  if (asked_for_certificate_) {
    why +=
        "; the server asked for a client certificate and none is set "
        "(redis_tls_cert, redis_tls_key)";
  }
  return Error::Unavailable("redis: " + where_ + ": " + std::string(what) +
                            ": " + why + " (timeout or connection lost)");
}

Result<void> TlsStream::Write(std::string_view bytes) {
  while (!bytes.empty()) {
    ERR_clear_error();
    errno = 0;
    const int n = SSL_write(ssl_, bytes.data(), static_cast<int>(bytes.size()));
    if (n <= 0) return Fail(Broken("write", n));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return {};
}

Result<std::size_t> TlsStream::ReadSome(char* buffer, std::size_t size) {
  ERR_clear_error();
  errno = 0;
  const int n = SSL_read(ssl_, buffer, static_cast<int>(size));
  if (n <= 0) return Fail(Broken("read", n));
  return static_cast<std::size_t>(n);
}

Result<void> TlsStream::SetTimeout(std::chrono::microseconds timeout) {
  if (!SetSocketTimeouts(fd_, timeout)) {
    return Fail(Error::Unavailable("redis: cannot set the command timeout"));
  }
  return {};
}

}  // namespace mw::store
