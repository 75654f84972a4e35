// The milter protocol (Sendmail's libmilter protocol, version 6, as Postfix's
// milter8.c speaks it) as values: framing, the MTA's commands, our replies
// and the option negotiation. No I/O, no libmilter: the engine that owns the
// sockets feeds the bytes it read into a Decoder, parses each Packet into a
// Command, and appends its replies to one buffer that leaves in one write.
//
// Wire format, both directions: a 32-bit big-endian length that counts the
// command byte and the data, the command byte, then length - 1 bytes of
// data. Strings in the data are NUL-terminated; integers are big-endian.
//
// Parsed values (Packet, Command, Reply) are views into the Decoder's buffer:
// they stay valid until the Decoder's next Feed() or Prepare(), or its
// destruction. Copy what must live longer.
//
// Thread-safety: the free functions are pure; a Decoder is one connection's
// and is not safe to use from two threads at once.
#ifndef MW_MILTER_CODEC_H_
#define MW_MILTER_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "mw/result.h"

namespace mw::milter {

// The protocol version we speak; what libmilter 8.14+ and Postfix 2.6+ speak.
inline constexpr std::uint32_t kProtocolVersion = 6;
// The oldest MTA protocol version libmilter (and so we) negotiate with.
inline constexpr std::uint32_t kMinProtocolVersion = 2;

// Command bytes from the MTA (libmilter's SMFIC_*).
namespace smfic {
inline constexpr char kAbort = 'A';    // SMFIC_ABORT: forget the message
inline constexpr char kBody = 'B';     // SMFIC_BODY: a body chunk
inline constexpr char kConnect = 'C';  // SMFIC_CONNECT
inline constexpr char kMacro = 'D';    // SMFIC_MACRO: macros for a stage
inline constexpr char kEob = 'E';      // SMFIC_BODYEOB: end of the message
inline constexpr char kHelo = 'H';     // SMFIC_HELO
inline constexpr char kQuitNc = 'K';   // SMFIC_QUIT_NC: quit, new connection
inline constexpr char kHeader = 'L';   // SMFIC_HEADER
inline constexpr char kMail = 'M';     // SMFIC_MAIL: MAIL FROM
inline constexpr char kEoh = 'N';      // SMFIC_EOH: end of the headers
inline constexpr char kOptNeg = 'O';   // SMFIC_OPTNEG: option negotiation
inline constexpr char kQuit = 'Q';     // SMFIC_QUIT: close the connection
inline constexpr char kRcpt = 'R';     // SMFIC_RCPT: RCPT TO
inline constexpr char kData = 'T';     // SMFIC_DATA
inline constexpr char kUnknown = 'U';  // SMFIC_UNKNOWN: an unknown SMTP verb
}  // namespace smfic

// Reply bytes from the milter (libmilter's SMFIR_*). The encoders below write
// the ones mailwave uses; ParseReply reads those and refuses the others.
namespace smfir {
inline constexpr char kAddRcpt = '+';     // SMFIR_ADDRCPT
inline constexpr char kDelRcpt = '-';     // SMFIR_DELRCPT
inline constexpr char kAddRcptPar = '2';  // SMFIR_ADDRCPT_PAR
inline constexpr char kShutdown = '4';    // SMFIR_SHUTDOWN
inline constexpr char kAccept = 'a';      // SMFIR_ACCEPT
inline constexpr char kReplBody = 'b';    // SMFIR_REPLBODY
inline constexpr char kContinue = 'c';    // SMFIR_CONTINUE
inline constexpr char kDiscard = 'd';     // SMFIR_DISCARD
inline constexpr char kChgFrom = 'e';     // SMFIR_CHGFROM
inline constexpr char kConnFail = 'f';    // SMFIR_CONN_FAIL
inline constexpr char kAddHeader = 'h';   // SMFIR_ADDHEADER
inline constexpr char kInsHeader = 'i';   // SMFIR_INSHEADER
inline constexpr char kSetSymList = 'l';  // SMFIR_SETSYMLIST
inline constexpr char kChgHeader = 'm';   // SMFIR_CHGHEADER
inline constexpr char kProgress = 'p';    // SMFIR_PROGRESS
inline constexpr char kQuarantine = 'q';  // SMFIR_QUARANTINE
inline constexpr char kReject = 'r';      // SMFIR_REJECT
inline constexpr char kSkip = 's';        // SMFIR_SKIP
inline constexpr char kTempFail = 't';    // SMFIR_TEMPFAIL
inline constexpr char kReplyCode = 'y';   // SMFIR_REPLYCODE
inline constexpr char kOptNeg = 'O';  // the OPTNEG reply reuses SMFIC_OPTNEG
}  // namespace smfir

// Actions (modifications) a milter may ask for in OPTNEG (libmilter's
// SMFIF_*). The MTA offers a set; the milter may request only from it.
namespace smfif {
inline constexpr std::uint32_t kAddHdrs = 0x001;     // SMFIF_ADDHDRS
inline constexpr std::uint32_t kChgBody = 0x002;     // SMFIF_CHGBODY
inline constexpr std::uint32_t kAddRcpt = 0x004;     // SMFIF_ADDRCPT
inline constexpr std::uint32_t kDelRcpt = 0x008;     // SMFIF_DELRCPT
inline constexpr std::uint32_t kChgHdrs = 0x010;     // SMFIF_CHGHDRS
inline constexpr std::uint32_t kQuarantine = 0x020;  // SMFIF_QUARANTINE
inline constexpr std::uint32_t kChgFrom = 0x040;     // SMFIF_CHGFROM
inline constexpr std::uint32_t kAddRcptPar = 0x080;  // SMFIF_ADDRCPT_PAR
inline constexpr std::uint32_t kSetSymList = 0x100;  // SMFIF_SETSYMLIST
// What an MTA that sends 0 offers (libmilter: SMFI_V1_ACTS).
inline constexpr std::uint32_t kV1Actions = 0x00F;
}  // namespace smfif

// Protocol flags (libmilter's SMFIP_*), three kinds:
//   kNo*: the MTA need not send that step (the milter does not want it);
//   kNr*: the milter sends no reply to that step (the MTA must not wait);
//   extensions: kSkip, kRcptRej, kHdrLeadSpc.
// The MTA offers the flags it supports; the milter requests a subset.
namespace smfip {
inline constexpr std::uint32_t kNoConnect = 0x00000001;  // SMFIP_NOCONNECT
inline constexpr std::uint32_t kNoHelo = 0x00000002;     // SMFIP_NOHELO
inline constexpr std::uint32_t kNoMail = 0x00000004;     // SMFIP_NOMAIL
inline constexpr std::uint32_t kNoRcpt = 0x00000008;     // SMFIP_NORCPT
inline constexpr std::uint32_t kNoBody = 0x00000010;     // SMFIP_NOBODY
inline constexpr std::uint32_t kNoHdrs = 0x00000020;     // SMFIP_NOHDRS
inline constexpr std::uint32_t kNoEoh = 0x00000040;      // SMFIP_NOEOH
inline constexpr std::uint32_t kNrHdr = 0x00000080;      // SMFIP_NR_HDR
inline constexpr std::uint32_t kNoUnknown = 0x00000100;  // SMFIP_NOUNKNOWN
inline constexpr std::uint32_t kNoData = 0x00000200;     // SMFIP_NODATA
// The MTA understands SMFIR_SKIP (stop sending body chunks).
inline constexpr std::uint32_t kSkip = 0x00000400;  // SMFIP_SKIP
// The MTA also sends RCPTs it rejected.
inline constexpr std::uint32_t kRcptRej = 0x00000800;  // SMFIP_RCPT_REJ
inline constexpr std::uint32_t kNrConn = 0x00001000;   // SMFIP_NR_CONN
inline constexpr std::uint32_t kNrHelo = 0x00002000;   // SMFIP_NR_HELO
inline constexpr std::uint32_t kNrMail = 0x00004000;   // SMFIP_NR_MAIL
inline constexpr std::uint32_t kNrRcpt = 0x00008000;   // SMFIP_NR_RCPT
inline constexpr std::uint32_t kNrData = 0x00010000;   // SMFIP_NR_DATA
inline constexpr std::uint32_t kNrUnkn = 0x00020000;   // SMFIP_NR_UNKN
inline constexpr std::uint32_t kNrEoh = 0x00040000;    // SMFIP_NR_EOH
inline constexpr std::uint32_t kNrBody = 0x00080000;   // SMFIP_NR_BODY
// Header values arrive with the space after the colon kept, and the MTA
// adds none before values we add or change: without it Postfix drops one
// leading space from each value it sends and puts one before ours.
inline constexpr std::uint32_t kHdrLeadSpc = 0x00100000;  // SMFIP_HDR_LEADSPC
// Larger MTA data sizes (Sendmail); we never request them.
inline constexpr std::uint32_t kMds256K = 0x10000000;  // SMFIP_MDS_256K
inline constexpr std::uint32_t kMds1M = 0x20000000;    // SMFIP_MDS_1M

// The steps the MTA can leave out.
inline constexpr std::uint32_t kNoSendMask = kNoConnect | kNoHelo | kNoMail |
                                             kNoRcpt | kNoBody | kNoHdrs |
                                             kNoEoh | kNoUnknown | kNoData;
// The steps that can go unanswered.
inline constexpr std::uint32_t kNoReplyMask = kNrConn | kNrHelo | kNrMail |
                                              kNrRcpt | kNrData | kNrUnkn |
                                              kNrHdr | kNrEoh | kNrBody;
inline constexpr std::uint32_t kExtensionMask = kSkip | kRcptRej | kHdrLeadSpc;
// What an MTA that sends 0 offers (libmilter: SMFI_V1_PROT).
inline constexpr std::uint32_t kV1Protocol = 0x0000003F;
}  // namespace smfip

// ---------------------------------------------------------------------------
// Framing

// 1 MiB: ten times Postfix's largest packet (a 100 KiB header, 64 KiB body
// chunks), small enough that a hostile peer cannot make a connection hold
// much more than that.
inline constexpr std::size_t kDefaultMaxPacket = 1048576;

struct DecoderOptions {
  // The largest length field accepted (command byte + data). A packet over
  // it fails the stream before its data is read. REQUIRES: 1 <= max_packet
  // <= 0xFFFFFFFF.
  std::size_t max_packet = kDefaultMaxPacket;
};

// One frame: the command byte and its data (a view, see the file comment).
struct Packet {
  char command = 0;
  std::string_view data;
};

// A streaming decoder for one connection. Bytes go in, in any pieces (a
// packet split across reads, several packets in one read); complete packets
// come out in order. Typical use, once per read:
//
//   auto space = decoder.Prepare(65536);
//   n = read(fd, space.data(), space.size());
//   decoder.Commit(n);
//   while (true) {
//     auto next = decoder.Next();
//     if (!next) { close the connection; break; }   // framing error
//     if (!*next) break;                            // need more bytes
//     handle(**next);
//   }
//
// A length of 0 or over max_packet is a framing error: the stream cannot be
// resynchronised, so the connection must close. The error is sticky: every
// later Next() returns it again and Feed() drops its bytes.
//
// Memory: what the last read brought plus at most one partial packet from
// before it; a buffer grown past 128 KiB is released once it is empty.
class Decoder {
 public:
  explicit Decoder(DecoderOptions options = {});

  // Copies `bytes` to the end of the stream. Invalidates earlier Packets.
  void Feed(std::string_view bytes);

  // For reading straight into the decoder: a writable span of at least
  // `min` bytes (more when the buffer has room) at the end of the stream;
  // then Commit(n) with the n bytes written, n <= its size. Invalidates
  // earlier Packets and earlier Prepare() spans.
  std::span<char> Prepare(std::size_t min);
  // REQUIRES: n <= the size of the span the last Prepare() returned.
  void Commit(std::size_t n);

  // The next complete packet; nullopt when more bytes are needed; an error
  // (kCorrupt for length 0, kLimit over max_packet) when the stream is
  // broken. Never moves the buffer, so every Packet returned since the last
  // Feed/Prepare stays valid: all packets of one read can be handled in one
  // go.
  [[nodiscard]] Result<std::optional<Packet>> Next();

  // Bytes held that no Next() has returned yet.
  std::size_t buffered() const { return end_ - begin_; }
  // Whether a framing error was found.
  bool failed() const { return error_.has_value(); }

 private:
  void MakeRoom(std::size_t min);

  std::size_t max_packet_;
  std::unique_ptr<char[]> buf_;
  std::size_t capacity_ = 0;
  std::size_t begin_ = 0;  // first byte not yet returned by Next()
  std::size_t end_ = 0;    // end of the bytes fed
  std::size_t prepared_ = 0;
  std::optional<Error> error_;
};

// Appends one frame (length, command, data) to `out`. Fails (kLimit, `out`
// unchanged) only when the data does not fit the 32-bit length.
[[nodiscard]] Result<void> AppendPacket(std::string& out, char command,
                                        std::string_view data);

// ---------------------------------------------------------------------------
// The MTA's commands. Each is a view into the Packet's data.

// OPTNEG, both directions: protocol version, actions (smfif), protocol flags
// (smfip).
struct OptNeg {
  std::uint32_t version = 0;
  std::uint32_t actions = 0;
  std::uint32_t protocol = 0;
};

// The client's address family in CONNECT (libmilter's SMFIA_*).
enum class Family : char {
  kUnknown = 'U',  // nothing follows the family: no port, no address
  kUnix = 'L',     // Postfix sends port 0 and the socket's name
  kInet = '4',
  kInet6 = '6',
};

struct Connect {
  // The client's host name as the MTA knows it; Postfix sends "[address]"
  // when it has none.
  std::string_view hostname;
  Family family = Family::kUnknown;
  std::uint16_t port = 0;    // host order; 0 for kUnknown and kUnix
  std::string_view address;  // as sent, not checked; "" for kUnknown
};

struct Helo {
  std::string_view name;
};

// MAIL and RCPT: the address as the client wrote it ("<a@example.org>",
// "<>"), then its ESMTP parameters ("SIZE=1024", "BODY=8BITMIME").
struct Mail {
  std::string_view address;
  std::vector<std::string_view> params;
};
struct Rcpt {
  std::string_view address;
  std::vector<std::string_view> params;
};

struct Data {};

// One header field. Without kHdrLeadSpc Postfix has dropped the one space
// after the colon; with it, the value is as in the message. A value may be
// empty and may hold "\n" + white space where the field was folded.
struct Header {
  std::string_view name;
  std::string_view value;
};

struct EndOfHeaders {};

struct Body {
  std::string_view chunk;  // raw bytes, any length (Postfix: up to 65535)
};

// End of the message. Sendmail may carry the last body chunk here (Postfix
// sends it as a BODY first); `chunk` is empty otherwise.
struct EndOfBody {
  std::string_view chunk;
};

struct Macro {
  std::string_view name;  // as the MTA sends it: "i", "{daemon_name}"
  std::string_view value;
};

// Macros the MTA sends before a step: `stage` is that step's command byte
// (smfic::kConnect, kHelo, kMail, kRcpt, kData, kEoh, kEob; Postfix also
// sends kHeader and kUnknown), not checked here.
struct Macros {
  char stage = 0;
  std::vector<Macro> macros;
};

struct Abort {};
struct Quit {};
// Quit, but the MTA will start a new session on this connection (OPTNEG
// follows).
struct QuitNewConnection {};

// An SMTP command the MTA did not know, as the client sent it.
struct Unknown {
  std::string_view command;
};

using Command = std::variant<OptNeg, Connect, Helo, Mail, Rcpt, Data, Header,
                             EndOfHeaders, Body, EndOfBody, Macros, Abort, Quit,
                             QuitNewConnection, Unknown>;

// Bounds on what one packet can make us allocate: a 1 MiB packet of NULs
// would otherwise become a vector of half a million views (16 MiB). Postfix
// sends a handful of each.
inline constexpr std::size_t kMaxParams = 256;   // MAIL/RCPT parameters
inline constexpr std::size_t kMaxMacros = 1024;  // pairs in one MACRO

// Parses one command from the MTA. Fails with kCorrupt, naming the command
// and what is wrong, for an unknown command byte or malformed data; never
// reads outside `packet.data`. The format is strict: every string must be
// NUL-terminated and nothing may follow the last field, except where noted
// below. The stream itself stays in sync (the frame was whole), so a caller
// may answer and go on; libmilter closes the connection.
//   OPTNEG   3 x uint32; at least 12 bytes, more are ignored (libmilter
//            does the same; later versions may append).
//   CONNECT  hostname NUL, family; for L, 4, 6 then port (uint16) and
//            address NUL. Another family byte is an error.
//   HELO, UNKNOWN  one string NUL.
//   MAIL, RCPT     one or more strings, each NUL-terminated; more than
//                  kMaxParams parameters fail with kLimit.
//   HEADER   name NUL value NUL; the name must not be empty, the value may.
//   BODY, EOB      raw bytes, any length.
//   MACRO    stage byte, then name NUL value NUL pairs. Lenient, as macros
//            only inform: a stage byte alone gives no macros; a trailing
//            name without a value gets an empty value (libmilter keeps the
//            name and gives NULL for it); bytes after the last NUL are
//            dropped (as libmilter does); pairs past kMaxMacros are
//            dropped. Fails only with no stage byte.
//   DATA, EOH, ABORT, QUIT, QUIT_NC  any data is ignored (libmilter too).
[[nodiscard]] Result<Command> Parse(const Packet& packet);

// The same, one command each; `data` is the packet data after the command
// byte.
[[nodiscard]] Result<OptNeg> ParseOptNeg(std::string_view data);
[[nodiscard]] Result<Connect> ParseConnect(std::string_view data);
[[nodiscard]] Result<Helo> ParseHelo(std::string_view data);
[[nodiscard]] Result<Mail> ParseMail(std::string_view data);
[[nodiscard]] Result<Rcpt> ParseRcpt(std::string_view data);
[[nodiscard]] Result<Header> ParseHeader(std::string_view data);
[[nodiscard]] Result<Macros> ParseMacros(std::string_view data);
[[nodiscard]] Result<Unknown> ParseUnknown(std::string_view data);

// ---------------------------------------------------------------------------
// Our replies. Each Append* adds one whole frame to `out`, so the replies of
// one step (header edits, then the verdict) can leave in one write. The ones
// that take text check it first and, on failure (kInvalidArgument), leave
// `out` unchanged.

void AppendOptNeg(std::string& out, const OptNeg& reply);
void AppendContinue(std::string& out);
void AppendAccept(std::string& out);
void AppendReject(std::string& out);
void AppendTempFail(std::string& out);
void AppendDiscard(std::string& out);
// Stop sending body chunks (only if the MTA offered smfip::kSkip).
void AppendSkip(std::string& out);
// "Still working": resets the MTA's timeout at end of message.
void AppendProgress(std::string& out);

// The SMTP reply, as smfi_setreply: "<rcode> <xcode> <text>" NUL-terminated,
// e.g. ("550", "5.7.1", "spread wave") -> "550 5.7.1 spread wave". It is the
// verdict itself (reject for 5xx, tempfail for 4xx): send no 'r' or 't'
// after it. `rcode`: three digits, 4xx or 5xx. `xcode`: an enhanced status
// code ("5.7.1") whose class matches rcode, or "" for "<class>.0.0" (Postfix
// refuses a reply without one). `text`: one line (no CR, LF or NUL), at most
// 980 bytes (libmilter's MAXREPLYLEN); each '%' is sent doubled, since
// Sendmail uses the text as a format string and Postfix undoubles it.
[[nodiscard]] Result<void> AppendReplyCode(std::string& out,
                                           std::string_view rcode,
                                           std::string_view xcode,
                                           std::string_view text);

// Header edits (end of message only; need smfif::kAddHdrs or kChgHdrs).
// `name`: not empty, printable ASCII without ':' or white space. `value`: no
// NUL or CR; a LF only as a fold, followed by a space or tab (anything else
// would let the value start a header of its own).
// Appends a header at the end.
[[nodiscard]] Result<void> AppendAddHeader(std::string& out,
                                           std::string_view name,
                                           std::string_view value);
// Inserts a header before the `index`-th (0: at the top).
[[nodiscard]] Result<void> AppendInsertHeader(std::string& out,
                                              std::uint32_t index,
                                              std::string_view name,
                                              std::string_view value);
// Changes the `index`-th (1-based) field called `name`; an empty value
// deletes it.
[[nodiscard]] Result<void> AppendChangeHeader(std::string& out,
                                              std::uint32_t index,
                                              std::string_view name,
                                              std::string_view value);
// Puts the message on hold (needs smfif::kQuarantine). `reason`: not
// empty, one line without NUL.
[[nodiscard]] Result<void> AppendQuarantine(std::string& out,
                                            std::string_view reason);

// Replies as the MTA reads them: for tests and for tools that play the MTA
// (bench/milter). Views into the Packet's data.
struct Continue {};
struct Accept {};
struct Reject {};
struct TempFail {};
struct Discard {};
struct Skip {};
struct Progress {};
struct ReplyCode {
  std::string_view text;  // as sent: '%' still doubled
};
struct AddHeader {
  std::string_view name;
  std::string_view value;
};
struct InsertHeader {
  std::uint32_t index = 0;
  std::string_view name;
  std::string_view value;
};
struct ChangeHeader {
  std::uint32_t index = 0;
  std::string_view name;
  std::string_view value;
};
struct Quarantine {
  std::string_view reason;
};

using Reply = std::variant<OptNeg, Continue, Accept, Reject, TempFail, Discard,
                           Skip, Progress, ReplyCode, AddHeader, InsertHeader,
                           ChangeHeader, Quarantine>;

// Parses a reply the encoders above write (for OPTNEG, bytes after the 12
// are ignored, as Postfix reads them as macro lists). Fails with kCorrupt
// for other reply bytes, data where none belongs, or malformed data.
[[nodiscard]] Result<Reply> ParseReply(const Packet& packet);

// ---------------------------------------------------------------------------
// Option negotiation

// What the daemon would like. Each field holds flags of its kind only.
struct Wants {
  std::uint32_t actions = 0;     // smfif: the modifications it may send
  std::uint32_t skip = 0;        // smfip::kNoSendMask: steps it does not need
  std::uint32_t no_reply = 0;    // smfip::kNoReplyMask: steps it won't answer
  std::uint32_t extensions = 0;  // smfip::kExtensionMask
};

struct Negotiation {
  OptNeg reply;  // what to send back (AppendOptNeg)
  // Wanted but not offered; each field below is a subset of its Wants field.
  // Actions the daemon must not use (it may decide to close instead).
  std::uint32_t missing_actions = 0;
  // Steps the MTA will send anyway: answer them like any other.
  std::uint32_t still_sent = 0;
  // Steps that need a reply after all: answer each with CONTINUE.
  std::uint32_t must_reply = 0;
  std::uint32_t missing_extensions = 0;
};

// Computes our OPTNEG reply from the MTA's: version min(6, MTA's); each
// flag requested only when the MTA offered it, so the MTA never sees a
// request it cannot grant (Postfix drops a milter that asks for an action it
// did not offer). An MTA that offers 0 actions or 0 protocol flags offers
// libmilter's version-1 defaults (smfif::kV1Actions, smfip::kV1Protocol),
// as libmilter assumes. Fails (kUnavailable) for an MTA version under 2,
// which libmilter refuses too.
[[nodiscard]] Result<Negotiation> Negotiate(const OptNeg& mta,
                                            const Wants& wants);

}  // namespace mw::milter

#endif  // MW_MILTER_CODEC_H_
