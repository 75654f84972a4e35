// milter_load: drives a running milter over the milter protocol the way an
// MTA (Postfix) does, from many connections at once, and reports throughput,
// latency and the milter's memory.
//
//   milter_load --socket unix:PATH|inet:PORT@HOST|inet6:PORT@HOST
//               --connections N [--seconds S] [--timeout T] [--rcpt ADDR]...
//               [--no-nr] [--pid PID] [--split] [--rate R] [--sample S]
//               FILE...
//
// Opens N connections (one thread each), negotiates, and keeps all of them
// open for the whole run; each sends the FILEs (raw messages) in turn until
// S seconds (default 10) have passed.
//
// The negotiation offers what Postfix 3.7 offers with its default
// milter_protocol = 6 (src/milter/milter8.c): every action it can carry out
// (0x1ff) and every version-6 protocol flag (0x1fffff): the steps the milter
// may skip, the steps it may leave unanswered (SMFIP_NR_*), SMFIP_SKIP,
// SMFIP_RCPT_REJ and SMFIP_HDR_LEADSPC. --no-nr offers no SMFIP_NR_* flag
// (an MTA without them: the milter must answer every step). The tool then
// does exactly what the milter answered: a step it asked to skip
// (SMFIP_NO*) is not sent, with its macros; a step it asked to leave
// unanswered (SMFIP_NR_*) is not waited for; every other step waits for its
// reply. A milter that answers with a version over 6, or takes an action or
// flag that was not offered, fails the connection.
//
// Per connection: CONNECT (family 4, 127.0.0.1 port 25), HELO, one UNKNOWN
// command ("XLOAD"), then per message: MAIL FROM with its macros, one RCPT
// per --rcpt (default one, <rcpt@example.org>), DATA, the headers one by one
// (one leading space dropped from each value unless the milter took
// SMFIP_HDR_LEADSPC, as Postfix does), end of headers, the body in 65535-byte
// chunks with CRLF line ends (stopped early by a SKIP reply), end of
// message; then the replies until the final one (continue, accept, reject,
// tempfail, discard or a reply code), modifications (header edits,
// quarantine, ...) before it checked against the actions negotiated. A step
// answered with accept, reject, tempfail, discard or a reply code ends the
// message there (ABORT follows, as Postfix sends it), except that a refused
// RCPT only drops that recipient. QUIT at the end.
//
// Every reply is awaited for at most --timeout seconds (default 10; a
// PROGRESS reply restarts the wait), and connect and writes have the same
// limit: a milter that does not answer, closes the connection or breaks the
// protocol is reported on stderr (`milter_load: connection N: what`), counted
// in `failures` and that connection is closed; the others go on. The tool
// never waits longer than that for anything.
//
// Prints the negotiation the first connection got, then messages/s, the
// messages refused (reject, tempfail, discard, a reply code: counted in
// `messages` too), the latency from MAIL FROM to the message's last reply
// (p50, p99, max) and the failures; with --pid, the milter's VmRSS and VmHWM
// read from /proc while every connection is open. Exit 0 when nothing
// failed, 1 otherwise, 2 for a usage error.
//
// --split writes a macro packet and its command as two writes and leaves
// Nagle's algorithm on (what Postfix does: it sets no TCP_NODELAY); by
// default each command goes in one write with TCP_NODELAY. --rate R paces
// all connections together to R messages per second (default: as fast as
// the milter answers); --sample S prints, every S seconds, the messages
// answered in that interval (per second) and their latency (p50, p99, max),
// and with --pid the milter's VmRSS: a soak's memory over time, and how
// throughput moves as the milter's store fills (a run's overall figures
// average a falling rate over its whole length).
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "bench/percentile.h"
#include "milter/codec.h"

namespace {

namespace milter = mw::milter;
namespace smfic = mw::milter::smfic;
namespace smfif = mw::milter::smfif;
namespace smfip = mw::milter::smfip;
namespace smfir = mw::milter::smfir;
using mw::bench::PercentileOfSorted;

using Clock = std::chrono::steady_clock;

// Postfix's my_actions in milter8_connect().
constexpr std::uint32_t kOfferedActions =
    smfif::kAddHdrs | smfif::kChgBody | smfif::kAddRcpt | smfif::kDelRcpt |
    smfif::kChgHdrs | smfif::kQuarantine | smfif::kChgFrom |
    smfif::kAddRcptPar | smfif::kSetSymList;
// Postfix's MILTER8_V6_PROTO_MASK.
constexpr std::uint32_t kOfferedProtocol =
    smfip::kNoSendMask | smfip::kSkip | smfip::kRcptRej | smfip::kNoReplyMask |
    smfip::kHdrLeadSpc;
// Postfix's MILTER8_DATA_SIZE chunks (libmilter's MILTER_CHUNK_SIZE).
constexpr std::size_t kBodyChunk = 65535;

struct Options {
  std::string socket;
  int connections = 1;
  double seconds = 10;
  double timeout = 10;
  bool no_nr = false;
  std::vector<std::string> rcpts;
  int pid = 0;
  bool split = false;
  double rate = 0;
  double sample = 0;
};

struct Message {
  // Values as in the message after the colon (leading white space kept),
  // folded lines joined with "\n" as Postfix passes them.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // CRLF line ends, as on the wire
};

Message Split(const std::string& raw) {
  Message m;
  std::size_t pos = 0;
  std::string name, value;
  auto flush = [&] {
    if (!name.empty()) m.headers.emplace_back(name, value);
    name.clear();
    value.clear();
  };
  while (pos < raw.size()) {
    std::size_t eol = raw.find('\n', pos);
    if (eol == std::string::npos) eol = raw.size();
    std::string line = raw.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') {
      if (!name.empty()) value += "\n" + line;  // folded
      continue;
    }
    flush();
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    name = line.substr(0, colon);
    // "Subject :" is the field "Subject", as Postfix's is_header() reads it
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t'))
      name.pop_back();
    value = line.substr(colon + 1);
  }
  flush();
  for (std::size_t i = pos; i < raw.size(); ++i) {
    if (raw[i] == '\n' && (i == pos || raw[i - 1] != '\r')) m.body += '\r';
    m.body += raw[i];
  }
  return m;
}

std::string Z(std::string_view s) {
  std::string out(s);
  out.push_back('\0');
  return out;
}

std::string Hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}

// "'c'" for a printable byte, "0x01" otherwise.
std::string ByteName(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u > 0x20 && u < 0x7f) return std::string{'\'', c, '\''};
  return Hex(u);
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", s);
  return buf;
}

// How one message ended.
enum class Outcome {
  kDone,     // continue or accept: the MTA would deliver it
  kRefused,  // reject, tempfail, discard or a reply code (or no recipient)
  kFailed,   // no reply in time, a closed connection, a protocol error
};

// The MTA's side of one milter connection. Not thread-safe: one thread each.
class Connection {
 public:
  explicit Connection(const Options& options)
      : options_(options),
        timeout_(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(options.timeout))) {}
  ~Connection() {
    if (fd_ >= 0) close(fd_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects, negotiates and sends the connection's steps (CONNECT, HELO,
  // UNKNOWN). False on failure, error() says why.
  bool Open() {
    if (!Dial()) return false;
    if (!Negotiate()) return false;
    // Postfix's default milter_connect_macros, a few of them.
    const std::string macros = Z("j") + Z("mx.load.example") +
                               Z("{daemon_name}") + Z("milter_load") + Z("v") +
                               Z("milter_load");
    const std::string client =
        Z("client.example") + "4" + std::string("\0\x19", 2) + Z("127.0.0.1");
    char r = Step(smfic::kConnect, "CONNECT", smfip::kNoConnect, smfip::kNrConn,
                  client, macros);
    if (r == 0) return false;
    if (r != smfir::kContinue)
      return Fail("the milter answered CONNECT with " + ByteName(r) +
                  ": no mail on this connection");
    r = Step(smfic::kHelo, "HELO", smfip::kNoHelo, smfip::kNrHelo,
             Z("client.example"));
    if (r == 0) return false;
    if (r != smfir::kContinue)
      return Fail("the milter answered HELO with " + ByteName(r) +
                  ": no mail on this connection");
    // Any answer is a fine SMTP reply to an unknown command.
    return Step(smfic::kUnknown, "UNKNOWN", smfip::kNoUnknown, smfip::kNrUnkn,
                Z("XLOAD")) != 0;
  }

  Outcome Send(const Message& m, const std::string& qid) {
    const std::string mail_macros =
        Z("i") + Z(qid) + Z("{mail_addr}") + Z("load@example.org");
    char r = Step(smfic::kMail, "MAIL", smfip::kNoMail, smfip::kNrMail,
                  Z("<load@example.org>"), mail_macros);
    if (r != smfir::kContinue) return EndEarly(r);

    int accepted = 0;
    for (const std::string& rcpt : options_.rcpts) {
      r = Step(smfic::kRcpt, "RCPT", smfip::kNoRcpt, smfip::kNrRcpt,
               Z("<" + rcpt + ">"), Z("{rcpt_addr}") + Z(rcpt));
      if (r == 0) return Outcome::kFailed;
      if (r == smfir::kContinue) {
        ++accepted;
      } else if (r == smfir::kAccept || r == smfir::kDiscard) {
        return EndEarly(r);  // the whole message, as Postfix takes them
      }
      // reject, tempfail, a reply code: that recipient only
    }
    if (accepted == 0) return EndEarly(smfir::kReject);

    r = Step(smfic::kData, "DATA", smfip::kNoData, smfip::kNrData, {});
    if (r != smfir::kContinue) return EndEarly(r);
    for (const auto& [name, value] : m.headers) {
      // Without SMFIP_HDR_LEADSPC, Postfix drops one space (not a tab)
      // after the colon.
      std::string_view v = value;
      if ((protocol_ & smfip::kHdrLeadSpc) == 0 && !v.empty() && v[0] == ' ')
        v.remove_prefix(1);
      r = Step(smfic::kHeader, "HEADER", smfip::kNoHdrs, smfip::kNrHdr,
               Z(name) + Z(v));
      if (r != smfir::kContinue) return EndEarly(r);
    }
    r = Step(smfic::kEoh, "EOH", smfip::kNoEoh, smfip::kNrEoh, {});
    if (r != smfir::kContinue) return EndEarly(r);
    for (std::size_t off = 0; off < m.body.size(); off += kBodyChunk) {
      r = Step(smfic::kBody, "BODY", smfip::kNoBody, smfip::kNrBody,
               std::string_view(m.body).substr(off, kBodyChunk));
      if (r == smfir::kSkip) break;
      if (r != smfir::kContinue) return EndEarly(r);
    }
    if (!Write(smfic::kEob, {}, Z("i") + Z(qid))) return Outcome::kFailed;
    return EndOfMessage();
  }

  // Says goodbye; errors do not matter any more.
  void Quit() {
    if (fd_ < 0) return;
    std::string out;
    if (milter::AppendPacket(out, smfic::kQuit, {})) WriteAll(out);
    close(fd_);
    fd_ = -1;
  }

  const std::string& error() const { return error_; }
  std::uint32_t version() const { return version_; }
  std::uint32_t actions() const { return actions_; }
  std::uint32_t protocol() const { return protocol_; }
  std::uint32_t offered() const { return offered_; }

 private:
  bool Fail(std::string what) {
    if (error_.empty()) error_ = std::move(what);
    return false;
  }

  // Connect and writes give up after the timeout too (SO_SNDTIMEO bounds
  // connect(2) on unix and TCP sockets alike).
  bool Dial() {
    const std::string& a = options_.socket;
    sockaddr_storage addr{};
    socklen_t addr_len = 0;
    if (a.rfind("unix:", 0) == 0) {
      const std::string path = a.substr(5);
      auto* sun = reinterpret_cast<sockaddr_un*>(&addr);
      if (path.empty() || path.size() >= sizeof sun->sun_path)
        return Fail("bad socket path: " + a);
      sun->sun_family = AF_UNIX;
      std::memcpy(sun->sun_path, path.c_str(), path.size() + 1);
      addr_len = sizeof(sockaddr_un);
    } else if (a.rfind("inet:", 0) == 0 || a.rfind("inet6:", 0) == 0) {
      // As libmilter reads them: inet: is IPv4, inet6: IPv6.
      const bool v6 = a[4] == '6';
      const std::string rest = a.substr(v6 ? 6 : 5);
      const std::size_t at = rest.find('@');
      const std::string port = rest.substr(0, at);
      const std::string host = at != std::string::npos ? rest.substr(at + 1)
                               : v6                    ? "::1"
                                                       : "127.0.0.1";
      addrinfo hints{};
      hints.ai_family = v6 ? AF_INET6 : AF_INET;
      hints.ai_socktype = SOCK_STREAM;
      addrinfo* ai = nullptr;
      if (const int e = getaddrinfo(host.c_str(), port.c_str(), &hints, &ai);
          e != 0)
        return Fail(a + ": " + gai_strerror(e));
      std::memcpy(&addr, ai->ai_addr, ai->ai_addrlen);
      addr_len = ai->ai_addrlen;
      freeaddrinfo(ai);
    } else {
      return Fail(
          "bad socket (unix:PATH, inet:PORT@HOST or inet6:PORT@HOST): " + a);
    }
    fd_ = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return Fail(std::string("socket: ") + std::strerror(errno));
    const auto usec = static_cast<long long>(options_.timeout * 1e6);
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(usec / 1000000);
    tv.tv_usec = static_cast<suseconds_t>(usec % 1000000);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), addr_len) != 0) {
      const int e = errno;
      return Fail("connect " + a + ": " +
                  (e == EAGAIN || e == EINPROGRESS
                       ? "no answer within " + Seconds(options_.timeout)
                       : std::string(std::strerror(e))));
    }
    if (addr.ss_family != AF_UNIX && !options_.split) {
      const int on = 1;
      setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    }
    return true;
  }

  bool Negotiate() {
    offered_ = kOfferedProtocol;
    if (options_.no_nr) offered_ &= ~smfip::kNoReplyMask;
    std::string out;
    milter::AppendOptNeg(out, milter::OptNeg{milter::kProtocolVersion,
                                             kOfferedActions, offered_});
    if (!WriteAll(out)) return false;
    milter::Packet p;
    if (!Await("OPTNEG", &p)) return false;
    if (p.command != smfir::kOptNeg)
      return Fail("the milter answered OPTNEG with " + ByteName(p.command));
    auto reply = milter::ParseReply(p);
    if (!reply) return Fail(reply.error().message());
    const auto& o = std::get<milter::OptNeg>(*reply);
    version_ = o.version;
    actions_ = o.actions;
    protocol_ = o.protocol;
    if (o.version < milter::kMinProtocolVersion ||
        o.version > milter::kProtocolVersion)
      return Fail("the milter answered OPTNEG with protocol version " +
                  std::to_string(o.version) + " (2 to 6 offered)");
    // Postfix closes the connection for these; a flag not offered is a
    // milter that would leave an MTA without it waiting (or talk past it).
    if ((o.actions & ~kOfferedActions) != 0)
      return Fail("the milter took actions it was not offered: " +
                  Hex(o.actions & ~kOfferedActions));
    if ((o.protocol & ~offered_) != 0)
      return Fail("the milter took protocol flags it was not offered: " +
                  Hex(o.protocol & ~offered_));
    // Postfix sends no event the milter's version does not define.
    if (o.version < 4) skip_ |= smfip::kNoData;
    if (o.version < 3) skip_ |= smfip::kNoUnknown;
    return true;
  }

  // One command, with its macro packet first (stage = the command) when
  // `macros` is not empty; two writes in --split mode, one otherwise.
  bool Write(char cmd, std::string_view data, std::string_view macros = {}) {
    std::string out;
    if (!macros.empty()) {
      if (!milter::AppendPacket(out, smfic::kMacro,
                                std::string(1, cmd) + std::string(macros)))
        return Fail("a macro packet too large");
      if (options_.split) {
        if (!WriteAll(out)) return false;
        out.clear();
      }
    }
    if (!milter::AppendPacket(out, cmd, data))
      return Fail("a packet too large");
    return WriteAll(out);
  }

  bool WriteAll(std::string_view s) {
    while (!s.empty()) {
      const ssize_t w = send(fd_, s.data(), s.size(), MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return Fail("the milter read nothing for " + Seconds(options_.timeout));
      if (w <= 0) return Fail(std::string("write: ") + std::strerror(errno));
      s.remove_prefix(static_cast<std::size_t>(w));
    }
    return true;
  }

  // The next reply (PROGRESS replies restart the wait and are not
  // returned); false when none came within the timeout, the connection
  // closed or the stream broke. The packet stays valid until the next
  // Await.
  bool Await(const char* what, milter::Packet* out) {
    auto deadline = Clock::now() + timeout_;
    for (;;) {
      auto next = decoder_.Next();
      if (!next)
        return Fail(std::string("reply to ") + what + ": " +
                    next.error().message());
      if (*next) {
        const milter::Packet& p = **next;
        if (p.command == smfir::kProgress) {
          if (auto r = milter::ParseReply(p); !r)
            return Fail(r.error().message());
          deadline = Clock::now() + timeout_;
          continue;
        }
        *out = p;
        return true;
      }
      const auto left = deadline - Clock::now();
      if (left <= Clock::duration::zero())
        return Fail(std::string("no reply to ") + what + " within " +
                    Seconds(options_.timeout));
      pollfd pfd{fd_, POLLIN, 0};
      const auto ms =
          std::chrono::ceil<std::chrono::milliseconds>(left).count();
      const int ready =
          poll(&pfd, 1,
               static_cast<int>(std::min<long long>(ms, 1000 * 1000 * 1000)));
      if (ready < 0 && errno != EINTR)
        return Fail(std::string("poll: ") + std::strerror(errno));
      if (ready <= 0) continue;
      auto space = decoder_.Prepare(65536);
      const ssize_t n = recv(fd_, space.data(), space.size(), 0);
      if (n < 0) {
        const int e = errno;
        decoder_.Commit(0);
        if (e == EINTR || e == EAGAIN) continue;
        return Fail(std::string("read: ") + std::strerror(e));
      }
      decoder_.Commit(static_cast<std::size_t>(n));
      if (n == 0)
        return Fail(std::string("the milter closed the connection (waiting "
                                "for the reply to ") +
                    what + ")");
    }
  }

  // A step before the end of the message: not sent when the milter asked
  // to skip it (`no_send`, with its macros), not awaited when it asked to
  // leave it unanswered (`no_reply`). Returns the reply's command byte,
  // 'c' for a step not sent or not answered, 0 on failure (error() says
  // why). A SKIP is returned only for BODY, and only when offered.
  char Step(char cmd, const char* what, std::uint32_t no_send,
            std::uint32_t no_reply, std::string_view data,
            std::string_view macros = {}) {
    if (((protocol_ | skip_) & no_send) != 0) return smfir::kContinue;
    if (!Write(cmd, data, macros)) return 0;
    if ((protocol_ & no_reply) != 0) return smfir::kContinue;
    milter::Packet p;
    if (!Await(what, &p)) return 0;
    if (auto r = milter::ParseReply(p); !r) {
      Fail(std::string("reply to ") + what + ": " + r.error().message());
      return 0;
    }
    switch (p.command) {
      case smfir::kContinue:
      case smfir::kAccept:
      case smfir::kReject:
      case smfir::kTempFail:
      case smfir::kDiscard:
      case smfir::kReplyCode:
        return p.command;
      case smfir::kSkip:
        if (cmd == smfic::kBody && (offered_ & smfip::kSkip) != 0)
          return p.command;
        break;
      default:
        break;
    }
    Fail("unexpected reply " + ByteName(p.command) + " to " + what);
    return 0;
  }

  // A message a step's reply ended before its end: ABORT, as Postfix sends
  // at the end of the transaction. `r` 0: the step failed.
  Outcome EndEarly(char r) {
    if (r == 0) return Outcome::kFailed;
    if (!Write(smfic::kAbort, {})) return Outcome::kFailed;
    return r == smfir::kAccept ? Outcome::kDone : Outcome::kRefused;
  }

  // The replies to end of message: modifications, then the verdict.
  Outcome EndOfMessage() {
    for (;;) {
      milter::Packet p;
      if (!Await("end of message", &p)) return Outcome::kFailed;
      std::uint32_t needs = 0;
      switch (p.command) {
        case smfir::kAddHeader:
        case smfir::kInsHeader:
          needs = smfif::kAddHdrs;
          break;
        case smfir::kChgHeader:
          needs = smfif::kChgHdrs;
          break;
        case smfir::kQuarantine:
          needs = smfif::kQuarantine;
          break;
        case smfir::kChgFrom:
          needs = smfif::kChgFrom;
          break;
        case smfir::kAddRcpt:
          needs = smfif::kAddRcpt;
          break;
        case smfir::kAddRcptPar:
          needs = smfif::kAddRcptPar;
          break;
        case smfir::kDelRcpt:
          needs = smfif::kDelRcpt;
          break;
        case smfir::kReplBody:
          needs = smfif::kChgBody;
          break;
        default:
          break;
      }
      if (needs != 0 && (actions_ & needs) == 0) {
        Fail("the milter sent " + ByteName(p.command) +
             " without negotiating action " + Hex(needs));
        return Outcome::kFailed;
      }
      // The codec reads the replies mailwave writes; the others are only
      // checked against the negotiation.
      const bool unparsed =
          p.command == smfir::kChgFrom || p.command == smfir::kAddRcpt ||
          p.command == smfir::kAddRcptPar || p.command == smfir::kDelRcpt ||
          p.command == smfir::kReplBody;
      if (!unparsed) {
        if (auto r = milter::ParseReply(p); !r) {
          Fail("reply to end of message: " + r.error().message());
          return Outcome::kFailed;
        }
      }
      if (needs != 0) continue;
      Outcome outcome;
      switch (p.command) {
        case smfir::kContinue:
        case smfir::kAccept:
          outcome = Outcome::kDone;
          break;
        case smfir::kReject:
        case smfir::kTempFail:
        case smfir::kDiscard:
        case smfir::kReplyCode:
          outcome = Outcome::kRefused;
          break;
        default:
          Fail("unexpected reply " + ByteName(p.command) +
               " to end of message");
          return Outcome::kFailed;
      }
      // Nothing may follow the verdict before our next command: a reply
      // here answers a step the milter said it would not answer.
      if (decoder_.buffered() != 0) {
        Fail("more replies after the end of message's verdict");
        return Outcome::kFailed;
      }
      return outcome;
    }
  }

  const Options& options_;
  const Clock::duration timeout_;
  int fd_ = -1;
  milter::Decoder decoder_;
  std::string error_;
  std::uint32_t offered_ = 0;
  // The milter's OPTNEG answer.
  std::uint32_t version_ = 0;
  std::uint32_t actions_ = 0;
  std::uint32_t protocol_ = 0;
  // Steps not sent to a milter of an older protocol version.
  std::uint32_t skip_ = 0;
};

long ProcKb(int pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) == 0)
      return std::atol(line.c_str() + key.size() + 1);
  }
  return -1;
}

int Usage() {
  std::fputs(
      "usage: milter_load --socket unix:PATH|inet[6]:PORT@HOST --connections N "
      "[--seconds S] [--timeout T] [--rcpt ADDR]... [--no-nr] [--pid PID] "
      "[--split] [--rate R] [--sample S] FILE...\n",
      stderr);
  return 2;
}

// Sleeps until `t` or until `stop` is set, whichever comes first.
void SleepUntil(Clock::time_point t, const std::atomic<bool>& stop) {
  while (!stop.load() && Clock::now() < t)
    std::this_thread::sleep_for(std::min<Clock::duration>(
        t - Clock::now(), std::chrono::milliseconds(100)));
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  std::vector<Message> messages;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--socket" && has_value) {
      o.socket = argv[++i];
    } else if (a == "--connections" && has_value) {
      o.connections = std::atoi(argv[++i]);
    } else if (a == "--seconds" && has_value) {
      o.seconds = std::atof(argv[++i]);
    } else if (a == "--timeout" && has_value) {
      o.timeout = std::atof(argv[++i]);
    } else if (a == "--rcpt" && has_value) {
      std::string r = argv[++i];
      if (r.size() >= 2 && r.front() == '<' && r.back() == '>')
        r = r.substr(1, r.size() - 2);
      o.rcpts.push_back(r);
    } else if (a == "--no-nr") {
      o.no_nr = true;
    } else if (a == "--pid" && has_value) {
      o.pid = std::atoi(argv[++i]);
    } else if (a == "--rate" && has_value) {
      o.rate = std::atof(argv[++i]);
    } else if (a == "--sample" && has_value) {
      o.sample = std::atof(argv[++i]);
    } else if (a == "--split") {
      o.split = true;
    } else if (!a.empty() && a[0] == '-') {
      return Usage();
    } else {
      std::ifstream in(a, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "milter_load: cannot read %s\n", a.c_str());
        return 2;
      }
      std::string raw((std::istreambuf_iterator<char>(in)), {});
      if (!raw.empty()) messages.push_back(Split(raw));
    }
  }
  if (o.rcpts.empty()) o.rcpts.push_back("rcpt@example.org");
  if (o.socket.empty() || o.connections < 1 || messages.empty() ||
      !(o.timeout > 0) || !std::isfinite(o.timeout))
    return Usage();

  const long rss_before = o.pid > 0 ? ProcKb(o.pid, "VmRSS") : -1;
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  std::atomic<long> failures{0};
  std::atomic<long> refused{0};
  // --rate: message n (over all connections) starts no earlier than n/rate
  // seconds after the start.
  std::atomic<long> ticket{0};
  Clock::time_point paced_start;
  std::mutex mu;
  std::vector<double> latencies_ms;
  // The latencies of the messages answered since the last --sample line,
  // under mu.
  std::vector<double> interval_ms;
  std::string negotiated;  // the first connection's, under mu
  std::vector<std::thread> threads;
  for (int c = 0; c < o.connections; ++c) {
    threads.emplace_back([&, c] {
      Connection conn(o);
      auto failed = [&] {
        std::fprintf(stderr, "milter_load: connection %d: %s\n", c,
                     conn.error().c_str());
        ++failures;
      };
      const bool open = conn.Open();
      if (conn.version() != 0) {
        std::lock_guard lock(mu);
        if (negotiated.empty())
          negotiated = "negotiated version=" + std::to_string(conn.version()) +
                       " actions=" + Hex(conn.actions()) +
                       " protocol=" + Hex(conn.protocol()) +
                       " offered=" + Hex(conn.offered());
      }
      ++ready;
      if (!open) {
        failed();
        return;
      }
      while (!go.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::vector<double> mine;
      for (std::size_t n = static_cast<std::size_t>(c); !stop.load(); ++n) {
        const Message& m = messages[n % messages.size()];
        if (o.rate > 0) {
          const long k = ticket.fetch_add(1);
          SleepUntil(paced_start + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(
                                           static_cast<double>(k) / o.rate)),
                     stop);
          if (stop.load()) break;
        }
        const auto t0 = Clock::now();
        const Outcome outcome =
            conn.Send(m, "LOAD" + std::to_string(c) + "x" + std::to_string(n));
        if (outcome == Outcome::kFailed) {
          failed();
          break;
        }
        if (outcome == Outcome::kRefused) ++refused;
        mine.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - t0)
                .count());
        if (o.sample > 0) {
          std::lock_guard lock(mu);
          interval_ms.push_back(mine.back());
        }
      }
      conn.Quit();
      std::lock_guard lock(mu);
      latencies_ms.insert(latencies_ms.end(), mine.begin(), mine.end());
    });
  }
  while (ready.load() < o.connections)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const long rss_open = o.pid > 0 ? ProcKb(o.pid, "VmRSS") : -1;
  const auto start = Clock::now();
  paced_start = start;
  go = true;
  long rss_peak_run = -1;
  auto next_sample = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(o.sample));
  while (Clock::now() - start < std::chrono::duration<double>(o.seconds)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (o.pid > 0)
      rss_peak_run = std::max(rss_peak_run, ProcKb(o.pid, "VmRSS"));
    if (o.sample > 0 && Clock::now() >= next_sample) {
      std::vector<double> interval;
      {
        std::lock_guard lock(mu);
        interval.swap(interval_ms);
      }
      std::sort(interval.begin(), interval.end());
      std::printf(
          "sample t=%.0f messages_per_s=%.1f latency_ms p50=%.3f p99=%.3f "
          "max=%.3f",
          std::chrono::duration<double>(Clock::now() - start).count(),
          static_cast<double>(interval.size()) / o.sample,
          PercentileOfSorted(interval, 0.5), PercentileOfSorted(interval, 0.99),
          interval.empty() ? 0.0 : interval.back());
      if (o.pid > 0) std::printf(" milter_rss_kib=%ld", ProcKb(o.pid, "VmRSS"));
      std::printf("\n");
      std::fflush(stdout);
      next_sample += std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(o.sample));
    }
  }
  const long rss_busy = o.pid > 0 ? ProcKb(o.pid, "VmRSS") : -1;
  stop = true;
  for (auto& t : threads) t.join();
  const double elapsed =
      std::chrono::duration<double>(Clock::now() - start).count();

  std::sort(latencies_ms.begin(), latencies_ms.end());
  auto pct = [&](double p) { return PercentileOfSorted(latencies_ms, p); };
  if (!negotiated.empty()) std::printf("%s\n", negotiated.c_str());
  std::printf(
      "connections=%d split=%s nr=%s rcpts=%zu messages=%zu refused=%ld "
      "seconds=%.2f messages_per_s=%.1f latency_ms p50=%.3f p99=%.3f "
      "max=%.3f failures=%ld\n",
      o.connections, o.split ? "yes" : "no", o.no_nr ? "no" : "offered",
      o.rcpts.size(), latencies_ms.size(), refused.load(), elapsed,
      static_cast<double>(latencies_ms.size()) / elapsed, pct(0.5), pct(0.99),
      latencies_ms.empty() ? 0.0 : latencies_ms.back(), failures.load());
  if (o.pid > 0) {
    std::printf(
        "milter_rss_kib before=%ld connections_open=%ld busy_peak=%ld "
        "busy_end=%ld hwm=%ld threads=%ld\n",
        rss_before, rss_open, rss_peak_run, rss_busy, ProcKb(o.pid, "VmHWM"),
        ProcKb(o.pid, "Threads"));
  }
  return failures.load() == 0 ? 0 : 1;
}
