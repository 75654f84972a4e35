#include "redis_conn.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "redis_tls.h"

namespace mw::store {
namespace {

timeval ToTimeval(std::chrono::microseconds us) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(us.count() / 1'000'000);
  tv.tv_usec = static_cast<suseconds_t>(us.count() % 1'000'000);
  return tv;
}

std::string Where(const RedisAddress& a) {
  return a.unix_path.empty() ? a.host + ":" + std::to_string(a.port)
                             : a.unix_path;
}

Result<std::string> ReadPassword(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Fail(Error::Io("redis: cannot read the password file " + path +
                          ": " + std::strerror(errno)));
  }
  std::string pw((std::istreambuf_iterator<char>(in)),
                 std::istreambuf_iterator<char>());
  // A file written by `echo` ends with a newline that is not the password's.
  while (!pw.empty() && (pw.back() == '\n' || pw.back() == '\r')) pw.pop_back();
  if (pw.empty()) {
    return Fail(Error::InvalidArgument("redis: the password file " + path +
                                       " is empty"));
  }
  return pw;
}

}  // namespace

Result<RedisAddress> ParseRedisAddress(std::string_view text) {
  RedisAddress a;
  constexpr std::string_view kUnix = "unix:";
  constexpr std::string_view kTcp = "tcp://";
  constexpr std::string_view kTls = "tls://";
  if (text.substr(0, kUnix.size()) == kUnix) {
    a.unix_path = std::string(text.substr(kUnix.size()));
    if (a.unix_path.empty() || a.unix_path[0] != '/') {
      return Fail(Error::InvalidArgument(
          "redis address: \"unix:\" needs an absolute socket path"));
    }
    return a;
  }
  const bool tls = text.substr(0, kTls.size()) == kTls;
  if (tls || text.substr(0, kTcp.size()) == kTcp) {
    a.tls = tls;
    const std::string_view rest = text.substr(kTcp.size());
    const std::size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      return Fail(Error::InvalidArgument(std::string("redis address: \"") +
                                         (tls ? "tls" : "tcp") +
                                         "://host:port\" expected"));
    }
    std::string_view host = rest.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);  // [::1]
    }
    const std::string_view port = rest.substr(colon + 1);
    int p = 0;
    const auto [end, ec] =
        std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || end != port.data() + port.size() || p <= 0 ||
        p > 65535) {
      return Fail(Error::InvalidArgument("redis address: bad port \"" +
                                         std::string(port) + "\""));
    }
    a.host = std::string(host);
    a.port = p;
    return a;
  }
  return Fail(Error::InvalidArgument(
      "redis address must be \"unix:/path\", \"tcp://host:port\" or "
      "\"tls://host:port\", not \"" +
      std::string(text) + "\""));
}

Result<ConnectOptions> ConnectOptionsFor(const RedisOptions& options) {
  ConnectOptions connect;
  bool tls = false;
  // On a Cluster the nodes come from the seeds and the slot map.
  if (options.cluster.empty()) {
    auto address = ParseRedisAddress(options.address);
    if (!address) return Fail(address.error());
    connect.address = *address;
    tls = address->tls;
  } else if (auto seed = ParseRedisAddress(options.cluster.front())) {
    // ParseClusterSeeds checks every seed, and that they agree on TLS.
    tls = seed->tls;
  }
  const bool tls_files =
      !options.tls_ca_file.empty() || !options.tls_cert_file.empty() ||
      !options.tls_key_file.empty() || !options.tls_server_name.empty();
  if (tls) {
    auto context = TlsContext::Load({.ca_file = options.tls_ca_file,
                                     .cert_file = options.tls_cert_file,
                                     .key_file = options.tls_key_file,
                                     .server_name = options.tls_server_name});
    if (!context) return Fail(context.error());
    connect.tls = std::move(*context);
  } else if (tls_files) {
    // Certificates given for a plain address: the site meant TLS and would
    // otherwise send its password in clear.
    return Fail(Error::InvalidArgument(
        "redis: TLS certificates or a server name are set, but the address "
        "is not \"tls://host:port\""));
  }
  connect.database = options.database;
  connect.user = options.user;
  if (!options.password_file.empty()) {
    auto pw = ReadPassword(options.password_file);
    if (!pw) return Fail(pw.error());
    connect.password = std::move(*pw);
  }
  connect.connect_timeout = options.connect_timeout;
  connect.command_timeout = options.command_timeout;
  return connect;
}

Reply::~Reply() {
  if (owned_ && r_ != nullptr) freeReplyObject(r_);
}

Reply& Reply::operator=(Reply&& other) noexcept {
  if (this != &other) {
    if (owned_ && r_ != nullptr) freeReplyObject(r_);
    r_ = other.r_;
    owned_ = other.owned_;
    other.r_ = nullptr;
  }
  return *this;
}

Reply::Type Reply::type() const {
  if (r_ == nullptr) return Type::kOther;
  switch (r_->type) {
    case REDIS_REPLY_STRING:
      return Type::kString;
    case REDIS_REPLY_ARRAY:
      return Type::kArray;
    case REDIS_REPLY_INTEGER:
      return Type::kInteger;
    case REDIS_REPLY_NIL:
      return Type::kNil;
    case REDIS_REPLY_STATUS:
      return Type::kStatus;
    case REDIS_REPLY_ERROR:
      return Type::kError;
    default:
      return Type::kOther;
  }
}

std::string_view Reply::str() const {
  if (r_ == nullptr) return {};
  switch (r_->type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
    case REDIS_REPLY_ERROR:
      return {r_->str, r_->len};
    default:
      return {};
  }
}

std::int64_t Reply::integer() const {
  if (r_ == nullptr) return 0;
  if (r_->type == REDIS_REPLY_INTEGER) return r_->integer;
  if (r_->type == REDIS_REPLY_STRING) {
    long long v = 0;
    std::from_chars(r_->str, r_->str + r_->len, v);
    return v;
  }
  return 0;
}

std::size_t Reply::size() const {
  return r_ != nullptr && r_->type == REDIS_REPLY_ARRAY ? r_->elements : 0;
}

Reply Reply::at(std::size_t i) const { return Reply(r_->element[i], false); }

Connection::Connection(redisContext* c) : c_(c) {}

Connection::Connection(std::unique_ptr<TlsStream> tls, redisReader* reader)
    : tls_(std::move(tls)), reader_(reader) {}

Connection::~Connection() {
  if (c_ != nullptr) redisFree(c_);
  if (reader_ != nullptr) redisReaderFree(reader_);
}

Result<std::unique_ptr<Connection>> Connection::Open(const ConnectOptions& o) {
  std::unique_ptr<Connection> conn;
  if (o.tls != nullptr) {
    if (!o.address.unix_path.empty()) {
      return Fail(Error::InvalidArgument(
          "redis: TLS is for \"tls://host:port\", not a unix socket"));
    }
    auto stream = TlsStream::Connect(*o.tls, o.address.host, o.address.port,
                                     o.connect_timeout, o.command_timeout);
    if (!stream) return Fail(stream.error());
    redisReader* reader = redisReaderCreate();
    if (reader == nullptr) {
      return Fail(Error::Unavailable("redis: cannot allocate a reader"));
    }
    conn.reset(new Connection(std::move(*stream), reader));
  } else if (o.address.tls) {
    return Fail(Error::Internal("redis: a tls:// address without a context"));
  } else {
    const timeval connect_tv = ToTimeval(o.connect_timeout);
    redisContext* c = o.address.unix_path.empty()
                          ? redisConnectWithTimeout(o.address.host.c_str(),
                                                    o.address.port, connect_tv)
                          : redisConnectUnixWithTimeout(
                                o.address.unix_path.c_str(), connect_tv);
    if (c == nullptr) {
      return Fail(Error::Unavailable("redis: cannot allocate a connection"));
    }
    conn.reset(new Connection(c));
    if (c->err != 0) {
      return Fail(Error::Unavailable("redis: connect " + Where(o.address) +
                                     ": " + c->errstr));
    }
    if (redisSetTimeout(c, ToTimeval(o.command_timeout)) != REDIS_OK) {
      return Fail(Error::Unavailable("redis: cannot set the command timeout"));
    }
  }
  if (!o.password.empty()) {
    std::vector<std::string_view> auth = {"AUTH"};
    if (!o.user.empty()) auth.push_back(o.user);
    auth.push_back(o.password);
    auto r = conn->Command(auth);
    if (!r) return Fail(r.error());
    if (r->type() == Reply::Type::kError) {
      // Redis's own text ("WRONGPASS invalid username-password pair ...")
      // names no secret.
      return Fail(Error::InvalidArgument(
          "redis: authentication as " +
          (o.user.empty() ? std::string("the default user") : o.user) +
          " refused: " + std::string(r->str())));
    }
  }
  if (o.database != 0) {
    const std::string db = std::to_string(o.database);
    auto r = conn->Command({"SELECT", db});
    if (!r) return Fail(r.error());
    if (r->type() == Reply::Type::kError) {
      return Fail(Error::InvalidArgument("redis: SELECT " + db + ": " +
                                         std::string(r->str())));
    }
  }
  return conn;
}

namespace {

Error Broken(const redisContext* c) {
  return Error::Unavailable(
      std::string("redis: ") + (c->err != 0 ? c->errstr : "no reply") +
      (c->err == REDIS_ERR_IO ? " (timeout or connection lost)" : ""));
}

}  // namespace

Result<void> Connection::Append(const std::vector<std::string_view>& args) {
  std::vector<const char*> argv;
  std::vector<std::size_t> argvlen;
  argv.reserve(args.size());
  argvlen.reserve(args.size());
  for (const std::string_view a : args) {
    argv.push_back(a.data());
    argvlen.push_back(a.size());
  }
  if (tls_ != nullptr) {
    char* cmd = nullptr;
    const int len = redisFormatCommandArgv(&cmd, static_cast<int>(argv.size()),
                                           argv.data(), argvlen.data());
    if (len < 0 || cmd == nullptr) {
      return Fail(Error::Unavailable("redis: cannot format a command"));
    }
    out_.append(cmd, static_cast<std::size_t>(len));
    redisFreeCommand(cmd);
    return {};
  }
  if (redisAppendCommandArgv(c_, static_cast<int>(argv.size()), argv.data(),
                             argvlen.data()) != REDIS_OK) {
    return Fail(Broken(c_));
  }
  return {};
}

Result<void> Connection::Flush() {
  if (tls_ != nullptr) {
    auto written = tls_->Write(out_);
    out_.clear();
    return written;
  }
  int done = 0;
  while (done == 0) {
    if (redisBufferWrite(c_, &done) != REDIS_OK) return Fail(Broken(c_));
  }
  return {};
}

Result<Reply> Connection::Read() {
  if (tls_ != nullptr) {
    // As redisGetReply: what is queued goes first.
    if (!out_.empty()) {
      if (auto sent = Flush(); !sent) return Fail(sent.error());
    }
    for (;;) {
      void* r = nullptr;
      if (redisReaderGetReply(reader_, &r) != REDIS_OK) {
        return Fail(
            Error::Unavailable(std::string("redis: ") + reader_->errstr));
      }
      if (r != nullptr) return Reply(static_cast<redisReply*>(r));
      char buf[16 * 1024];
      auto n = tls_->ReadSome(buf, sizeof buf);
      if (!n) return Fail(n.error());
      if (redisReaderFeed(reader_, buf, *n) != REDIS_OK) {
        return Fail(
            Error::Unavailable(std::string("redis: ") + reader_->errstr));
      }
    }
  }
  void* r = nullptr;
  if (redisGetReply(c_, &r) != REDIS_OK || r == nullptr)
    return Fail(Broken(c_));
  return Reply(static_cast<redisReply*>(r));
}

Result<Reply> Connection::Command(const std::vector<std::string_view>& args) {
  // A pipeline of one: redisGetReply writes the buffer before it reads.
  auto sent = Append(args);
  if (!sent) return Fail(sent.error());
  return Read();
}

Result<void> Connection::SetTimeout(std::chrono::microseconds timeout) {
  if (tls_ != nullptr) return tls_->SetTimeout(timeout);
  if (redisSetTimeout(c_, ToTimeval(timeout)) != REDIS_OK) {
    return Fail(Error::Unavailable("redis: cannot set the command timeout"));
  }
  return {};
}

}  // namespace mw::store
