#include "milter/codec.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <tuple>
#include <utility>

#include "mw/ascii.h"

namespace mw::milter {
namespace {

// A released buffer is one a large packet grew; ordinary reads (Postfix's
// 64 KiB body chunks) fit under this, so a busy connection keeps its buffer
// and an idle one that once saw a 1 MiB packet gives it back.
constexpr std::size_t kKeepBytes = 128 * 1024;
constexpr std::size_t kMinAlloc = 4096;
// The most data one frame can carry: the length field also counts the
// command byte.
constexpr std::size_t kMaxData = std::numeric_limits<std::uint32_t>::max() - 1;
// libmilter's MAXREPLYLEN: the longest reply text smfi_setreply takes.
constexpr std::size_t kMaxReplyText = 980;

std::uint32_t GetBe32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (std::uint32_t{u[0]} << 24) | (std::uint32_t{u[1]} << 16) |
         (std::uint32_t{u[2]} << 8) | std::uint32_t{u[3]};
}

void PutBe32(std::string& out, std::uint32_t v) {
  const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                         static_cast<char>(v >> 8), static_cast<char>(v)};
  out.append(bytes, 4);
}

// The frame head for `data_len` bytes of data. REQUIRES: data_len <=
// kMaxData.
void PutHead(std::string& out, char command, std::size_t data_len) {
  PutBe32(out, static_cast<std::uint32_t>(data_len + 1));
  out.push_back(command);
}

void PutString(std::string& out, std::string_view s) {
  out.append(s);
  out.push_back('\0');
}

// 'X' for a printable byte, 0x1f otherwise: error messages are one log line.
std::string Describe(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u > 0x20 && u < 0x7f) return std::string{'\'', c, '\''};
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string{'0', 'x', kHex[u >> 4], kHex[u & 15]};
}

Error Malformed(const char* command, std::string_view what) {
  return Error::Corrupt("milter " + std::string(command) + ": " +
                        std::string(what));
}

// Reads fields off the front of a packet's data; every read checks the
// length first, so nothing outside the view is touched.
class Reader {
 public:
  explicit Reader(std::string_view data) : rest_(data) {}

  bool empty() const { return rest_.empty(); }

  // The string up to the next NUL (the NUL consumed); nullopt without one.
  std::optional<std::string_view> CString() {
    const std::size_t nul = rest_.find('\0');
    if (nul == std::string_view::npos) return std::nullopt;
    std::string_view s = rest_.substr(0, nul);
    rest_.remove_prefix(nul + 1);
    return s;
  }

  bool Byte(char& c) {
    if (rest_.empty()) return false;
    c = rest_.front();
    rest_.remove_prefix(1);
    return true;
  }

  bool U16(std::uint16_t& v) {
    if (rest_.size() < 2) return false;
    const auto* u = reinterpret_cast<const unsigned char*>(rest_.data());
    v = static_cast<std::uint16_t>((u[0] << 8) | u[1]);
    rest_.remove_prefix(2);
    return true;
  }

  bool U32(std::uint32_t& v) {
    if (rest_.size() < 4) return false;
    v = GetBe32(rest_.data());
    rest_.remove_prefix(4);
    return true;
  }

 private:
  std::string_view rest_;
};

// MAIL and RCPT: the address, then ESMTP parameters, each NUL-terminated.
Result<std::pair<std::string_view, std::vector<std::string_view>>>
ParseEnvelope(std::string_view data, const char* command) {
  Reader r(data);
  if (r.empty()) return Fail(Malformed(command, "no address"));
  const auto address = r.CString();
  if (!address) return Fail(Malformed(command, "address not NUL-terminated"));
  std::vector<std::string_view> params;
  while (!r.empty()) {
    const auto p = r.CString();
    if (!p) return Fail(Malformed(command, "parameter not NUL-terminated"));
    if (params.size() == kMaxParams)
      return Fail(Error::Limit("milter " + std::string(command) + ": over " +
                               std::to_string(kMaxParams) + " parameters"));
    params.push_back(*p);
  }
  return std::pair{*address, std::move(params)};
}

// HELO, UNKNOWN: exactly one NUL-terminated string.
Result<std::string_view> ParseOneString(std::string_view data,
                                        const char* command) {
  Reader r(data);
  const auto s = r.CString();
  if (!s) return Fail(Malformed(command, "string not NUL-terminated"));
  if (!r.empty()) return Fail(Malformed(command, "data after the string"));
  return *s;
}

// A header field name: what RFC 5322 allows (printable ASCII, no colon).
bool ValidHeaderName(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u > 0x20 && u < 0x7f && c != ':';
  });
}

// A value must not end the field early: a NUL would cut the packet's string,
// and a line break not followed by white space would start a new field (a
// header injection).
bool ValidHeaderValue(std::string_view value) {
  for (std::size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    if (c == '\0' || c == '\r') return false;
    if (c == '\n' && (i + 1 == value.size() ||
                      (value[i + 1] != ' ' && value[i + 1] != '\t')))
      return false;
  }
  return true;
}

bool OneLine(std::string_view text) {
  return text.find_first_of(std::string_view("\0\r\n", 3)) ==
         std::string_view::npos;
}

// "d.ddd.ddd" (RFC 3463), each part after the class 1-3 digits.
bool ValidEnhancedCode(std::string_view x) {
  if (x.size() < 5 || !IsDigit(x[0]) || x[1] != '.') return false;
  std::size_t i = 2;
  for (int part = 0; part < 2; ++part) {
    std::size_t digits = 0;
    while (i < x.size() && IsDigit(x[i])) ++i, ++digits;
    if (digits < 1 || digits > 3) return false;
    if (part == 0) {
      if (i >= x.size() || x[i] != '.') return false;
      ++i;
    }
  }
  return i == x.size();
}

Result<void> CheckFits(std::size_t data_len) {
  if (data_len > kMaxData)
    return Fail(Error::Limit("milter packet of " + std::to_string(data_len) +
                             " bytes does not fit its 32-bit length"));
  return {};
}

Result<void> AppendHeaderEdit(std::string& out, char command,
                              std::optional<std::uint32_t> index,
                              std::string_view name, std::string_view value) {
  if (!ValidHeaderName(name))
    return Fail(Error::InvalidArgument("milter header edit: bad name \"" +
                                       std::string(name) + "\""));
  if (!ValidHeaderValue(value))
    return Fail(Error::InvalidArgument("milter header edit: value of " +
                                       std::string(name) +
                                       " holds NUL, CR or an unfolded LF"));
  const std::size_t len = (index ? 4 : 0) + name.size() + value.size() + 2;
  if (auto fits = CheckFits(len); !fits) return fits;
  PutHead(out, command, len);
  if (index) PutBe32(out, *index);
  PutString(out, name);
  PutString(out, value);
  return {};
}

// Reply data for a header edit: [index] name NUL value NUL, nothing after.
Result<std::tuple<std::uint32_t, std::string_view, std::string_view>>
ParseHeaderEdit(std::string_view data, bool with_index, const char* what) {
  Reader r(data);
  std::uint32_t index = 0;
  if (with_index && !r.U32(index)) return Fail(Malformed(what, "no index"));
  const auto name = r.CString();
  if (!name) return Fail(Malformed(what, "name not NUL-terminated"));
  const auto value = r.CString();
  if (!value) return Fail(Malformed(what, "value not NUL-terminated"));
  if (!r.empty()) return Fail(Malformed(what, "data after the value"));
  return std::tuple{index, *name, *value};
}

}  // namespace

// ---------------------------------------------------------------------------
// Decoder

Decoder::Decoder(DecoderOptions options) : max_packet_(options.max_packet) {
  assert(max_packet_ >= 1 &&
         max_packet_ <= std::numeric_limits<std::uint32_t>::max());
}

// Makes `min` bytes of room after end_. Moving the unread bytes to the front
// invalidates the Packets handed out, which the callers (Feed, Prepare)
// document; Next() never calls this, so one read's packets can all be held.
void Decoder::MakeRoom(std::size_t min) {
  if (begin_ == end_) {
    begin_ = end_ = 0;
    if (capacity_ > kKeepBytes && min <= kKeepBytes) {
      buf_.reset();
      capacity_ = 0;
    }
  } else if (begin_ > 0) {
    // Only the tail of a partial packet moves, once: later reads append
    // after it until the packet completes.
    std::memmove(buf_.get(), buf_.get() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (capacity_ - end_ >= min) return;
  const std::size_t want = end_ + min;
  const std::size_t cap = std::max({want, kMinAlloc, 2 * capacity_});
  // new char[] leaves the bytes uninitialised: nothing reads them before a
  // Feed or a Commit wrote them.
  std::unique_ptr<char[]> bigger(new char[cap]);
  if (end_ > 0) std::memcpy(bigger.get(), buf_.get(), end_);
  buf_ = std::move(bigger);
  capacity_ = cap;
}

void Decoder::Feed(std::string_view bytes) {
  prepared_ = 0;
  if (error_ || bytes.empty()) return;
  MakeRoom(bytes.size());
  std::memcpy(buf_.get() + end_, bytes.data(), bytes.size());
  end_ += bytes.size();
}

std::span<char> Decoder::Prepare(std::size_t min) {
  MakeRoom(std::max<std::size_t>(min, 1));
  prepared_ = capacity_ - end_;
  return {buf_.get() + end_, prepared_};
}

void Decoder::Commit(std::size_t n) {
  assert(n <= prepared_);
  n = std::min(n, prepared_);
  prepared_ -= n;
  if (error_) return;
  end_ += n;
}

Result<std::optional<Packet>> Decoder::Next() {
  if (error_) return Fail(*error_);
  const std::size_t avail = end_ - begin_;
  if (avail < 4) return std::optional<Packet>();
  const char* head = buf_.get() + begin_;
  const std::uint32_t len = GetBe32(head);
  // Both end the connection: after a bad length the next frame boundary is
  // unknown. Checked before the data arrives, so an oversize packet is never
  // buffered.
  if (len == 0) {
    error_ = Error::Corrupt("milter packet of length 0");
  } else if (len > max_packet_) {
    error_ =
        Error::Limit("milter packet of " + std::to_string(len) +
                     " bytes over the limit of " + std::to_string(max_packet_));
  }
  if (error_) return Fail(*error_);
  if (avail - 4 < len) return std::optional<Packet>();
  Packet p{head[4], std::string_view(head + 5, len - 1)};
  begin_ += 4 + std::size_t{len};
  return std::optional<Packet>(p);
}

Result<void> AppendPacket(std::string& out, char command,
                          std::string_view data) {
  if (auto fits = CheckFits(data.size()); !fits) return fits;
  PutHead(out, command, data.size());
  out.append(data);
  return {};
}

// ---------------------------------------------------------------------------
// The MTA's commands

Result<OptNeg> ParseOptNeg(std::string_view data) {
  Reader r(data);
  OptNeg o;
  if (!r.U32(o.version) || !r.U32(o.actions) || !r.U32(o.protocol))
    return Fail(
        Malformed("OPTNEG", std::to_string(data.size()) + " bytes, 12 needed"));
  return o;
}

Result<Connect> ParseConnect(std::string_view data) {
  constexpr const char* kName = "CONNECT";
  Reader r(data);
  Connect c;
  const auto host = r.CString();
  if (!host) return Fail(Malformed(kName, "hostname not NUL-terminated"));
  c.hostname = *host;
  char family = 0;
  if (!r.Byte(family)) return Fail(Malformed(kName, "no address family"));
  switch (family) {
    case static_cast<char>(Family::kUnknown):
      c.family = Family::kUnknown;
      if (!r.empty())
        return Fail(Malformed(kName, "data after address family U"));
      return c;
    case static_cast<char>(Family::kUnix):
    case static_cast<char>(Family::kInet):
    case static_cast<char>(Family::kInet6):
      c.family = static_cast<Family>(family);
      break;
    default:
      return Fail(
          Malformed(kName, "unknown address family " + Describe(family)));
  }
  if (!r.U16(c.port)) return Fail(Malformed(kName, "no port"));
  const auto address = r.CString();
  if (!address) return Fail(Malformed(kName, "address not NUL-terminated"));
  c.address = *address;
  if (!r.empty()) return Fail(Malformed(kName, "data after the address"));
  return c;
}

Result<Helo> ParseHelo(std::string_view data) {
  auto s = ParseOneString(data, "HELO");
  if (!s) return Fail(std::move(s.error()));
  return Helo{*s};
}

Result<Unknown> ParseUnknown(std::string_view data) {
  auto s = ParseOneString(data, "UNKNOWN");
  if (!s) return Fail(std::move(s.error()));
  return Unknown{*s};
}

Result<Mail> ParseMail(std::string_view data) {
  auto e = ParseEnvelope(data, "MAIL");
  if (!e) return Fail(std::move(e.error()));
  return Mail{e->first, std::move(e->second)};
}

Result<Rcpt> ParseRcpt(std::string_view data) {
  auto e = ParseEnvelope(data, "RCPT");
  if (!e) return Fail(std::move(e.error()));
  return Rcpt{e->first, std::move(e->second)};
}

Result<Header> ParseHeader(std::string_view data) {
  constexpr const char* kName = "HEADER";
  Reader r(data);
  const auto name = r.CString();
  if (!name) return Fail(Malformed(kName, "name not NUL-terminated"));
  if (name->empty()) return Fail(Malformed(kName, "empty name"));
  const auto value = r.CString();
  if (!value) return Fail(Malformed(kName, "value not NUL-terminated"));
  if (!r.empty()) return Fail(Malformed(kName, "data after the value"));
  return Header{*name, *value};
}

// Lenient where the others are strict (see codec.h): macros only inform the
// daemon, and a malformed macro packet must not cost a message.
Result<Macros> ParseMacros(std::string_view data) {
  if (data.empty()) return Fail(Malformed("MACRO", "no stage"));
  Macros m;
  m.stage = data.front();
  data.remove_prefix(1);
  const auto nuls =
      static_cast<std::size_t>(std::count(data.begin(), data.end(), '\0'));
  m.macros.reserve(std::min(nuls / 2 + 1, kMaxMacros));
  Reader r(data);
  while (m.macros.size() < kMaxMacros) {
    const auto name = r.CString();
    if (!name) break;  // nothing left, or an unterminated tail: dropped
    const auto value = r.CString();
    m.macros.push_back(Macro{*name, value.value_or(std::string_view())});
    if (!value) break;
  }
  return m;
}

Result<Command> Parse(const Packet& packet) {
  const std::string_view d = packet.data;
  // Converts a Result<T> into a Result<Command>, keeping the error.
  const auto lift = [](auto&& r) -> Result<Command> {
    if (!r) return Fail(std::move(r.error()));
    return Command(std::move(*r));
  };
  switch (packet.command) {
    case smfic::kOptNeg:
      return lift(ParseOptNeg(d));
    case smfic::kConnect:
      return lift(ParseConnect(d));
    case smfic::kHelo:
      return lift(ParseHelo(d));
    case smfic::kMail:
      return lift(ParseMail(d));
    case smfic::kRcpt:
      return lift(ParseRcpt(d));
    case smfic::kData:
      return Command(Data{});
    case smfic::kHeader:
      return lift(ParseHeader(d));
    case smfic::kEoh:
      return Command(EndOfHeaders{});
    case smfic::kBody:
      return Command(Body{d});
    case smfic::kEob:
      return Command(EndOfBody{d});
    case smfic::kMacro:
      return lift(ParseMacros(d));
    case smfic::kAbort:
      return Command(Abort{});
    case smfic::kQuit:
      return Command(Quit{});
    case smfic::kQuitNc:
      return Command(QuitNewConnection{});
    case smfic::kUnknown:
      return lift(ParseUnknown(d));
    default:
      return Fail(Error::Corrupt("milter: unknown command " +
                                 Describe(packet.command)));
  }
}

// ---------------------------------------------------------------------------
// Our replies

void AppendOptNeg(std::string& out, const OptNeg& reply) {
  PutHead(out, smfir::kOptNeg, 12);
  PutBe32(out, reply.version);
  PutBe32(out, reply.actions);
  PutBe32(out, reply.protocol);
}

void AppendContinue(std::string& out) { PutHead(out, smfir::kContinue, 0); }
void AppendAccept(std::string& out) { PutHead(out, smfir::kAccept, 0); }
void AppendReject(std::string& out) { PutHead(out, smfir::kReject, 0); }
void AppendTempFail(std::string& out) { PutHead(out, smfir::kTempFail, 0); }
void AppendDiscard(std::string& out) { PutHead(out, smfir::kDiscard, 0); }
void AppendSkip(std::string& out) { PutHead(out, smfir::kSkip, 0); }
void AppendProgress(std::string& out) { PutHead(out, smfir::kProgress, 0); }

Result<void> AppendReplyCode(std::string& out, std::string_view rcode,
                             std::string_view xcode, std::string_view text) {
  // Postfix checks the same before it takes a reply (milter8.c): class 4 or
  // 5, three digits, and an enhanced code of the same class.
  if (rcode.size() != 3 || (rcode[0] != '4' && rcode[0] != '5') ||
      !IsDigit(rcode[1]) || !IsDigit(rcode[2]))
    return Fail(Error::InvalidArgument("milter reply: bad SMTP code \"" +
                                       std::string(rcode) + "\""));
  std::string x(xcode);
  if (x.empty()) x = std::string{rcode[0]} + ".0.0";
  if (!ValidEnhancedCode(x) || x[0] != rcode[0])
    return Fail(Error::InvalidArgument("milter reply: bad enhanced code \"" +
                                       x + "\" for " + std::string(rcode)));
  if (!OneLine(text))
    return Fail(
        Error::InvalidArgument("milter reply: text holds NUL, CR or LF"));
  if (text.size() > kMaxReplyText)
    return Fail(Error::InvalidArgument(
        "milter reply: text of " + std::to_string(text.size()) +
        " bytes over " + std::to_string(kMaxReplyText)));
  const std::size_t percents =
      static_cast<std::size_t>(std::count(text.begin(), text.end(), '%'));
  const std::size_t len =
      3 + 1 + x.size() + (text.empty() ? 0 : 1) + text.size() + percents + 1;
  PutHead(out, smfir::kReplyCode, len);
  out.append(rcode);
  out.push_back(' ');
  out.append(x);
  if (!text.empty()) {
    out.push_back(' ');
    for (char c : text) {
      out.push_back(c);
      if (c == '%') out.push_back('%');
    }
  }
  out.push_back('\0');
  return {};
}

Result<void> AppendAddHeader(std::string& out, std::string_view name,
                             std::string_view value) {
  return AppendHeaderEdit(out, smfir::kAddHeader, std::nullopt, name, value);
}

Result<void> AppendInsertHeader(std::string& out, std::uint32_t index,
                                std::string_view name, std::string_view value) {
  return AppendHeaderEdit(out, smfir::kInsHeader, index, name, value);
}

Result<void> AppendChangeHeader(std::string& out, std::uint32_t index,
                                std::string_view name, std::string_view value) {
  return AppendHeaderEdit(out, smfir::kChgHeader, index, name, value);
}

Result<void> AppendQuarantine(std::string& out, std::string_view reason) {
  // libmilter refuses an empty reason too (smfi_quarantine).
  if (reason.empty() || !OneLine(reason))
    return Fail(Error::InvalidArgument(
        "milter quarantine: reason empty or holds NUL, CR or LF"));
  if (auto fits = CheckFits(reason.size() + 1); !fits) return fits;
  PutHead(out, smfir::kQuarantine, reason.size() + 1);
  PutString(out, reason);
  return {};
}

Result<Reply> ParseReply(const Packet& packet) {
  const std::string_view d = packet.data;
  const auto bare = [&](Reply r, const char* what) -> Result<Reply> {
    if (!d.empty()) return Fail(Malformed(what, "unexpected data"));
    return r;
  };
  switch (packet.command) {
    case smfir::kOptNeg: {
      // Postfix reads bytes after the 12 as macro lists (SMFIR_SETSYMLIST);
      // we never send them, and ignore them here.
      auto o = ParseOptNeg(d);
      if (!o) return Fail(std::move(o.error()));
      return Reply(*o);
    }
    case smfir::kContinue:
      return bare(Continue{}, "reply CONTINUE");
    case smfir::kAccept:
      return bare(Accept{}, "reply ACCEPT");
    case smfir::kReject:
      return bare(Reject{}, "reply REJECT");
    case smfir::kTempFail:
      return bare(TempFail{}, "reply TEMPFAIL");
    case smfir::kDiscard:
      return bare(Discard{}, "reply DISCARD");
    case smfir::kSkip:
      return bare(Skip{}, "reply SKIP");
    case smfir::kProgress:
      return bare(Progress{}, "reply PROGRESS");
    case smfir::kReplyCode:
    case smfir::kQuarantine: {
      const bool code = packet.command == smfir::kReplyCode;
      const char* what = code ? "reply REPLYCODE" : "reply QUARANTINE";
      auto s = ParseOneString(d, what);
      if (!s) return Fail(std::move(s.error()));
      if (code) return Reply(ReplyCode{*s});
      return Reply(Quarantine{*s});
    }
    case smfir::kAddHeader: {
      auto e = ParseHeaderEdit(d, false, "reply ADDHEADER");
      if (!e) return Fail(std::move(e.error()));
      return Reply(AddHeader{std::get<1>(*e), std::get<2>(*e)});
    }
    case smfir::kInsHeader: {
      auto e = ParseHeaderEdit(d, true, "reply INSHEADER");
      if (!e) return Fail(std::move(e.error()));
      return Reply(
          InsertHeader{std::get<0>(*e), std::get<1>(*e), std::get<2>(*e)});
    }
    case smfir::kChgHeader: {
      auto e = ParseHeaderEdit(d, true, "reply CHGHEADER");
      if (!e) return Fail(std::move(e.error()));
      return Reply(
          ChangeHeader{std::get<0>(*e), std::get<1>(*e), std::get<2>(*e)});
    }
    default:
      return Fail(Error::Corrupt("milter: unsupported reply " +
                                 Describe(packet.command)));
  }
}

// ---------------------------------------------------------------------------
// Option negotiation

Result<Negotiation> Negotiate(const OptNeg& mta, const Wants& wants) {
  if (mta.version < kMinProtocolVersion)
    return Fail(Error::Unavailable(
        "milter OPTNEG: the MTA speaks protocol version " +
        std::to_string(mta.version) + ", " +
        std::to_string(kMinProtocolVersion) + " or later needed"));
  const std::uint32_t actions = mta.actions ? mta.actions : smfif::kV1Actions;
  const std::uint32_t protocol =
      mta.protocol ? mta.protocol : smfip::kV1Protocol;
  const std::uint32_t skip = wants.skip & smfip::kNoSendMask;
  const std::uint32_t no_reply = wants.no_reply & smfip::kNoReplyMask;
  const std::uint32_t extensions = wants.extensions & smfip::kExtensionMask;

  Negotiation n;
  n.reply.version = std::min(kProtocolVersion, mta.version);
  n.reply.actions = wants.actions & actions;
  n.reply.protocol = (skip | no_reply | extensions) & protocol;
  n.missing_actions = wants.actions & ~actions;
  n.still_sent = skip & ~protocol;
  n.must_reply = no_reply & ~protocol;
  n.missing_extensions = extensions & ~protocol;
  return n;
}

}  // namespace mw::milter
