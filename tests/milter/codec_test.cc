// The milter protocol codec (milter/src/codec.cc): framing with the
// streaming Decoder (pieces, pipelining, bad lengths), every MTA command
// from hand-built bytes and from a Postfix session written after Postfix's
// milter8.c, the reply encoders (exact bytes, refusals, round trips through
// the Decoder) and the negotiation helper.
#include "milter/codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/milter/frames.h"

namespace mw::milter {
namespace {

using namespace std::literals;
using testing::Frame;
using testing::U32;

std::string Port(std::uint16_t v) {
  return {static_cast<char>(v >> 8), static_cast<char>(v)};
}

// A packet copied out of the decoder, so it outlives the next Feed().
struct Owned {
  char command;
  std::string data;
  bool operator==(const Owned&) const = default;
};

// Drains every complete packet; fails the test on a framing error.
void Drain(Decoder& d, std::vector<Owned>& out) {
  while (true) {
    auto next = d.Next();
    ASSERT_TRUE(next) << next.error().ToString();
    if (!*next) return;
    out.push_back({(*next)->command, std::string((*next)->data)});
  }
}

std::vector<Owned> DecodeInPieces(std::string_view stream,
                                  const std::vector<std::size_t>& cuts) {
  Decoder d;
  std::vector<Owned> out;
  std::size_t at = 0;
  for (std::size_t cut : cuts) {
    d.Feed(stream.substr(at, cut - at));
    Drain(d, out);
    at = cut;
  }
  d.Feed(stream.substr(at));
  Drain(d, out);
  EXPECT_EQ(d.buffered(), 0u);
  return out;
}

template <typename T>
T Must(Result<T> r) {
  EXPECT_TRUE(r) << r.error().ToString();
  return r ? std::move(*r) : T{};
}

template <typename T>
T As(const Packet& p) {
  auto c = Parse(p);
  EXPECT_TRUE(c) << c.error().ToString();
  if (!c) return T{};
  EXPECT_TRUE(std::holds_alternative<T>(*c)) << "index " << c->index();
  return std::holds_alternative<T>(*c) ? std::get<T>(*c) : T{};
}

Error::Code ErrorOf(const Packet& p) {
  auto c = Parse(p);
  EXPECT_FALSE(c);
  return c ? Error::Code::kInternal : c.error().code();
}

// ---------------------------------------------------------------------------
// A Postfix 3.x session (milter_protocol = 6), byte for byte as milter8.c
// writes it: OPTNEG offering everything it has (actions 0x1ff, events
// 0x1fffff), then for each event its macros ('D' + the event byte + name/value
// pairs; an empty list still sends the packet) and the event. Headers carry
// the eoh macros under 'L'; the body goes in BODY chunks and EOB has no data.

const std::vector<Owned>& PostfixSession() {
  static const std::vector<Owned> kPackets = {
      {'O', U32(6) + U32(0x1ff) + U32(0x1fffff)},
      {'D',
       "Cj\0mx.example.org\0{daemon_name}\0mx.example.org\0v\0Postfix 3.7.11\0"s},
      {'C', "client.example.net\0"s + "4" + Port(50000) + "192.0.2.10\0"s},
      {'D', "H"s},
      {'H', "client.example.net\0"s},
      {'D', "Mi\0004Xk2m1pQ\0{mail_addr}\0alice@example.net\0"s},
      {'M', "<alice@example.net>\0SIZE=1234\0BODY=8BITMIME\0"s},
      {'D', "R{rcpt_addr}\0bob@example.org\0"s},
      {'R', "<bob@example.org>\0"s},
      {'D', "Ti\0004Xk2m1pQ\0"s},
      {'T', ""s},
      {'D', "L"s},
      {'L', "Subject\0 hello world\0"s},
      {'D', "L"s},
      {'L', "X-Empty\0\0"s},
      {'D', "N"s},
      {'N', ""s},
      {'D', "B"s},
      {'B', "Hello Bob.\r\n"s},
      {'D', "E"s},
      {'E', ""s},
      {'A', ""s},
      {'Q', ""s},
  };
  return kPackets;
}

std::string PostfixStream() {
  std::string s;
  for (const Owned& p : PostfixSession()) s += Frame(p.command, p.data);
  return s;
}

TEST(MilterDecoder, PostfixSessionInOneRead) {
  const std::string stream = PostfixStream();
  EXPECT_EQ(DecodeInPieces(stream, {}), PostfixSession());
}

TEST(MilterDecoder, SplitAtEveryByte) {
  const std::string stream = PostfixStream();
  std::vector<std::size_t> every;
  for (std::size_t i = 1; i < stream.size(); ++i) every.push_back(i);
  EXPECT_EQ(DecodeInPieces(stream, every), PostfixSession());
}

TEST(MilterDecoder, SplitInTwoAtEveryPosition) {
  const std::string stream = PostfixStream();
  for (std::size_t i = 0; i <= stream.size(); ++i)
    ASSERT_EQ(DecodeInPieces(stream, {i}), PostfixSession()) << "cut " << i;
}

TEST(MilterDecoder, PipelinedPacketsStayValidTogether) {
  // The engine handles every packet of one read before reading again: the
  // views from Next() must all stay valid until the next Feed.
  Decoder d;
  d.Feed(Frame('L', "A\0one\0"sv) + Frame('L', "B\0two\0"sv) + Frame('N') +
         Frame('B', "body"));
  std::vector<Packet> held;
  while (true) {
    auto next = d.Next();
    ASSERT_TRUE(next);
    if (!*next) break;
    held.push_back(**next);
  }
  ASSERT_EQ(held.size(), 4u);
  EXPECT_EQ(As<Header>(held[0]).value, "one");
  EXPECT_EQ(As<Header>(held[1]).name, "B");
  EXPECT_EQ(held[2].command, 'N');
  EXPECT_EQ(held[2].data, "");
  EXPECT_EQ(As<Body>(held[3]).chunk, "body");
}

TEST(MilterDecoder, PrepareAndCommitReadIntoTheBuffer) {
  const std::string stream = PostfixStream();
  Decoder d;
  std::vector<Owned> out;
  // Reads of 7 bytes, as a socket might hand them out.
  for (std::size_t at = 0; at < stream.size(); at += 7) {
    const std::size_t n = std::min<std::size_t>(7, stream.size() - at);
    std::span<char> space = d.Prepare(n);
    ASSERT_GE(space.size(), n);
    std::copy_n(stream.data() + at, n, space.data());
    d.Commit(n);
    Drain(d, out);
  }
  EXPECT_EQ(out, PostfixSession());
}

TEST(MilterDecoder, TruncatedPacketWaits) {
  Decoder d;
  const std::string f = Frame('H', "client.example.net\0"sv);
  d.Feed(f.substr(0, 3));  // not even the length
  auto next = d.Next();
  ASSERT_TRUE(next);
  EXPECT_FALSE(*next);
  d.Feed(f.substr(3, 5));  // length and command, part of the data
  next = d.Next();
  ASSERT_TRUE(next);
  EXPECT_FALSE(*next);
  EXPECT_EQ(d.buffered(), 8u);
  d.Feed(f.substr(8));
  next = d.Next();
  ASSERT_TRUE(next);
  ASSERT_TRUE(*next);
  EXPECT_EQ(As<Helo>(**next).name, "client.example.net");
  EXPECT_EQ(d.buffered(), 0u);
}

TEST(MilterDecoder, LengthZeroIsFatalAndSticky) {
  Decoder d;
  d.Feed(Frame('c') + U32(0) + Frame('c'));
  auto first = d.Next();
  ASSERT_TRUE(first);
  ASSERT_TRUE(*first);
  auto bad = d.Next();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), Error::Code::kCorrupt);
  EXPECT_TRUE(d.failed());
  // Nothing after it is trusted, whatever arrives later.
  d.Feed(Frame('c'));
  auto again = d.Next();
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code(), Error::Code::kCorrupt);
}

TEST(MilterDecoder, OversizeFailsBeforeItsData) {
  Decoder d(DecoderOptions{.max_packet = 16});
  d.Feed(Frame('B', std::string(15, 'x')));  // length 16: at the cap
  auto ok = d.Next();
  ASSERT_TRUE(ok);
  ASSERT_TRUE(*ok);
  EXPECT_EQ((*ok)->data.size(), 15u);
  d.Feed(U32(17));  // only the length: refused at once
  auto bad = d.Next();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), Error::Code::kLimit);
  EXPECT_NE(bad.error().message().find("17"), std::string::npos);
}

TEST(MilterDecoder, DefaultCapIsOneMiB) {
  Decoder d;
  d.Feed(Frame('B', std::string(kDefaultMaxPacket - 1, 'b')));
  auto ok = d.Next();
  ASSERT_TRUE(ok);
  ASSERT_TRUE(*ok);
  EXPECT_EQ((*ok)->data.size(), kDefaultMaxPacket - 1);
  // Postfix's largest packets (a 100 KiB header) are far under it; one
  // byte over is refused.
  d.Feed(U32(kDefaultMaxPacket + 1) + "B");
  auto bad = d.Next();
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), Error::Code::kLimit);
  // A length with the top bit set is not taken for a negative number.
  Decoder d2;
  d2.Feed(U32(0xffffffff));
  EXPECT_FALSE(d2.Next());
}

TEST(MilterDecoder, LargePacketInSmallReadsThenSmallOnes) {
  // A 1 MiB packet in 4 KiB reads, then ordinary traffic: the buffer grows
  // for it and everything after still decodes.
  const std::string big = Frame('B', std::string(kDefaultMaxPacket - 1, 'z'));
  const std::string stream = big + PostfixStream();
  std::vector<std::size_t> cuts;
  for (std::size_t i = 4096; i < stream.size(); i += 4096) cuts.push_back(i);
  std::vector<Owned> out = DecodeInPieces(stream, cuts);
  ASSERT_EQ(out.size(), PostfixSession().size() + 1);
  EXPECT_EQ(out[0].data.size(), kDefaultMaxPacket - 1);
  EXPECT_EQ(std::vector<Owned>(out.begin() + 1, out.end()), PostfixSession());
}

// ---------------------------------------------------------------------------
// The MTA's commands

TEST(MilterParse, PostfixSessionEveryPacket) {
  const auto& s = PostfixSession();
  const auto packet = [&](std::size_t i) {
    return Packet{s[i].command, s[i].data};
  };
  const OptNeg o = As<OptNeg>(packet(0));
  EXPECT_EQ(o.version, 6u);
  EXPECT_EQ(o.actions, 0x1ffu);
  EXPECT_EQ(o.protocol, 0x1fffffu);

  const Macros conn = As<Macros>(packet(1));
  EXPECT_EQ(conn.stage, smfic::kConnect);
  ASSERT_EQ(conn.macros.size(), 3u);
  EXPECT_EQ(conn.macros[1].name, "{daemon_name}");
  EXPECT_EQ(conn.macros[2].value, "Postfix 3.7.11");

  const Connect c = As<Connect>(packet(2));
  EXPECT_EQ(c.hostname, "client.example.net");
  EXPECT_EQ(c.family, Family::kInet);
  EXPECT_EQ(c.port, 50000);
  EXPECT_EQ(c.address, "192.0.2.10");

  EXPECT_TRUE(As<Macros>(packet(3)).macros.empty());
  EXPECT_EQ(As<Helo>(packet(4)).name, "client.example.net");

  const Macros mail_macros = As<Macros>(packet(5));
  ASSERT_EQ(mail_macros.macros.size(), 2u);
  EXPECT_EQ(mail_macros.macros[0].name, "i");
  EXPECT_EQ(mail_macros.macros[0].value, "4Xk2m1pQ");

  const Mail m = As<Mail>(packet(6));
  EXPECT_EQ(m.address, "<alice@example.net>");
  EXPECT_EQ(m.params,
            (std::vector<std::string_view>{"SIZE=1234", "BODY=8BITMIME"}));
  const Rcpt r = As<Rcpt>(packet(8));
  EXPECT_EQ(r.address, "<bob@example.org>");
  EXPECT_TRUE(r.params.empty());

  As<Data>(packet(10));
  const Macros header_macros = As<Macros>(packet(11));
  EXPECT_EQ(header_macros.stage, smfic::kHeader);
  EXPECT_TRUE(header_macros.macros.empty());
  const Header h = As<Header>(packet(12));
  EXPECT_EQ(h.name, "Subject");
  EXPECT_EQ(h.value, " hello world");  // SMFIP_HDR_LEADSPC keeps the space
  const Header empty = As<Header>(packet(14));
  EXPECT_EQ(empty.name, "X-Empty");
  EXPECT_EQ(empty.value, "");
  As<EndOfHeaders>(packet(16));
  EXPECT_EQ(As<Macros>(packet(17)).stage, smfic::kBody);
  EXPECT_EQ(As<Body>(packet(18)).chunk, "Hello Bob.\r\n");
  EXPECT_EQ(As<EndOfBody>(packet(20)).chunk, "");
  As<Abort>(packet(21));
  As<Quit>(packet(22));
}

TEST(MilterParse, OptNeg) {
  const std::string twelve = U32(2) + U32(0x3f) + U32(0x7f);
  const OptNeg o = As<OptNeg>({'O', twelve});
  EXPECT_EQ(o.version, 2u);
  EXPECT_EQ(o.actions, 0x3fu);
  EXPECT_EQ(o.protocol, 0x7fu);
  // Extra bytes are ignored, as libmilter does.
  EXPECT_EQ(As<OptNeg>({'O', twelve + "more"}).protocol, 0x7fu);
  for (std::size_t n = 0; n < 12; ++n)
    EXPECT_EQ(ErrorOf({'O', twelve.substr(0, n)}), Error::Code::kCorrupt) << n;
}

TEST(MilterParse, ConnectEveryFamily) {
  const std::string v6_bytes =
      "[2001:db8::25]\0"s + "6" + Port(443) + "2001:db8::25\0"s;
  const Connect v6 = As<Connect>({'C', v6_bytes});
  EXPECT_EQ(v6.hostname, "[2001:db8::25]");
  EXPECT_EQ(v6.family, Family::kInet6);
  EXPECT_EQ(v6.port, 443);
  EXPECT_EQ(v6.address, "2001:db8::25");

  // Postfix for a client on a unix socket: port 0, the socket's name.
  const std::string unix_bytes =
      "localhost\0"s + "L" + Port(0) + "/var/run/smtp.sock\0"s;
  const Connect unix_socket = As<Connect>({'C', unix_bytes});
  EXPECT_EQ(unix_socket.family, Family::kUnix);
  EXPECT_EQ(unix_socket.port, 0);
  EXPECT_EQ(unix_socket.address, "/var/run/smtp.sock");
  // An empty address is taken as sent.
  EXPECT_EQ(As<Connect>({'C', "localhost\0L\0\0\0"sv}).address, "");

  // Unknown family: the host name and 'U', nothing more.
  const Connect unknown = As<Connect>({'C', "unknown\0U"sv});
  EXPECT_EQ(unknown.hostname, "unknown");
  EXPECT_EQ(unknown.family, Family::kUnknown);
  EXPECT_EQ(unknown.port, 0);
  EXPECT_EQ(unknown.address, "");
  EXPECT_EQ(As<Connect>({'C', "\0U"sv}).hostname, "");
}

TEST(MilterParse, ConnectMalformed) {
  const std::string h = "host\0"s;
  for (const std::string& bad : std::vector<std::string>{
           "",                                 // nothing
           "host",                             // host name without NUL
           h,                                  // no family
           h + "X" + Port(25) + "1.2.3.4\0"s,  // bad family
           h + "U\0"s,                         // data after 'U'
           h + "4",                            // no port
           h + "4\0"s,                         // half a port
           h + "4" + Port(25),                 // port, no address
           h + "4" + Port(25) + "1.2.3.4",     // address without NUL
           h + "6" + Port(25) + "::1\0junk"s,  // data after the address
       }) {
    auto c = ParseConnect(bad);
    EXPECT_FALSE(c) << bad;
    if (!c) {
      EXPECT_EQ(c.error().code(), Error::Code::kCorrupt);
      EXPECT_NE(c.error().message().find("CONNECT"), std::string::npos);
    }
  }
  auto bad_family = ParseConnect("h\0X\0\0a\0"sv);
  ASSERT_FALSE(bad_family);
  EXPECT_NE(bad_family.error().message().find("'X'"), std::string::npos);
  auto binary_family = ParseConnect("h\0\x01\0\0a\0"sv);
  ASSERT_FALSE(binary_family);
  EXPECT_NE(binary_family.error().message().find("0x01"), std::string::npos);
}

TEST(MilterParse, HeloAndUnknown) {
  EXPECT_EQ(As<Helo>({'H', "mail.example.net\0"sv}).name, "mail.example.net");
  EXPECT_EQ(As<Helo>({'H', "\0"sv}).name, "");
  EXPECT_EQ(ErrorOf({'H', ""sv}), Error::Code::kCorrupt);
  EXPECT_EQ(ErrorOf({'H', "no-nul"sv}), Error::Code::kCorrupt);
  EXPECT_EQ(ErrorOf({'H', "a\0b\0"sv}), Error::Code::kCorrupt);
  EXPECT_EQ(As<Unknown>({'U', "XCLIENT NAME=x\0"sv}).command, "XCLIENT NAME=x");
  EXPECT_EQ(ErrorOf({'U', "XCLIENT"sv}), Error::Code::kCorrupt);
}

TEST(MilterParse, MailAndRcpt) {
  const Mail bounce = As<Mail>({'M', "<>\0"sv});
  EXPECT_EQ(bounce.address, "<>");
  EXPECT_TRUE(bounce.params.empty());
  const Rcpt r = As<Rcpt>({'R', "<bob@example.org>\0NOTIFY=NEVER\0\0"sv});
  EXPECT_EQ(r.address, "<bob@example.org>");
  EXPECT_EQ(r.params, (std::vector<std::string_view>{"NOTIFY=NEVER", ""}));
  EXPECT_EQ(ErrorOf({'M', ""sv}), Error::Code::kCorrupt);
  EXPECT_EQ(ErrorOf({'M', "<a@b>"sv}), Error::Code::kCorrupt);
  EXPECT_EQ(ErrorOf({'R', "<a@b>\0SIZE=1"sv}), Error::Code::kCorrupt);
}

TEST(MilterParse, CommandsWithoutData) {
  As<Data>({'T', ""sv});
  As<EndOfHeaders>({'N', ""sv});
  As<Abort>({'A', ""sv});
  As<Quit>({'Q', ""sv});
  As<QuitNewConnection>({'K', ""sv});
  // Data where none belongs is ignored, as libmilter ignores it.
  As<Quit>({'Q', "junk"sv});
  As<QuitNewConnection>({'K', "\0"sv});
}

TEST(MilterParse, Header) {
  const Header folded = As<Header>({'L', "Received\0from a\n\tby b\0"sv});
  EXPECT_EQ(folded.name, "Received");
  EXPECT_EQ(folded.value, "from a\n\tby b");
  EXPECT_EQ(As<Header>({'L', "X-Empty\0\0"sv}).value, "");
  EXPECT_EQ(ErrorOf({'L', ""sv}), Error::Code::kCorrupt);
  EXPECT_EQ(ErrorOf({'L', "\0value\0"sv}), Error::Code::kCorrupt);  // no name
  EXPECT_EQ(ErrorOf({'L', "Subject\0"sv}), Error::Code::kCorrupt);  // no value
  EXPECT_EQ(ErrorOf({'L', "Subject\0hi"sv}), Error::Code::kCorrupt);
  EXPECT_EQ(ErrorOf({'L', "Subject\0hi\0x"sv}), Error::Code::kCorrupt);
}

TEST(MilterParse, BodyAndEndOfBody) {
  // Raw bytes, NULs included.
  const std::string_view raw = "line\r\n\0\xff\r\n"sv;
  EXPECT_EQ(As<Body>({'B', raw}).chunk, raw);
  EXPECT_EQ(As<Body>({'B', ""sv}).chunk, "");
  // Sendmail may carry the last chunk on EOB.
  EXPECT_EQ(As<EndOfBody>({'E', "last chunk\r\n"sv}).chunk, "last chunk\r\n");
}

TEST(MilterParse, MacrosEmptyOddAndUnterminated) {
  // The stage byte alone: no macros (Postfix sends this for an empty list).
  const Macros empty = As<Macros>({'D', "N"sv});
  EXPECT_EQ(empty.stage, smfic::kEoh);
  EXPECT_TRUE(empty.macros.empty());
  // No stage byte at all: the only malformed macro packet.
  EXPECT_EQ(ErrorOf({'D', ""sv}), Error::Code::kCorrupt);

  // An odd count: the last name gets an empty value.
  const Macros odd = As<Macros>({'D', "Cj\0host\0_\0"sv});
  ASSERT_EQ(odd.macros.size(), 2u);
  EXPECT_EQ(odd.macros[0].name, "j");
  EXPECT_EQ(odd.macros[0].value, "host");
  EXPECT_EQ(odd.macros[1].name, "_");
  EXPECT_EQ(odd.macros[1].value, "");
  const Macros one = As<Macros>({'D', "M{mail_addr}\0"sv});
  ASSERT_EQ(one.macros.size(), 1u);
  EXPECT_EQ(one.macros[0].value, "");

  // Bytes after the last NUL are dropped, as libmilter drops them.
  const Macros tail = As<Macros>({'D', "Ri\0Q1\0junk"sv});
  ASSERT_EQ(tail.macros.size(), 1u);
  EXPECT_EQ(tail.macros[0].value, "Q1");
  const Macros half = As<Macros>({'D', "Ri\0junk"sv});
  ASSERT_EQ(half.macros.size(), 1u);
  EXPECT_EQ(half.macros[0].name, "i");
  EXPECT_EQ(half.macros[0].value, "");
  EXPECT_TRUE(As<Macros>({'D', "Rjunk"sv}).macros.empty());

  // Empty names and values are kept as sent.
  const Macros blanks = As<Macros>({'D', "T\0\0{x}\0\0"sv});
  ASSERT_EQ(blanks.macros.size(), 2u);
  EXPECT_EQ(blanks.macros[1].name, "{x}");
}

TEST(MilterParse, AllocationIsBounded) {
  // A packet of NULs: no more views than the caps allow.
  const std::string nuls(kDefaultMaxPacket - 1, '\0');
  auto mail = ParseMail(nuls);
  ASSERT_FALSE(mail);
  EXPECT_EQ(mail.error().code(), Error::Code::kLimit);
  std::string many = "<a@b>\0"s;
  for (std::size_t i = 0; i < kMaxParams; ++i) many += "X=1\0"s;
  EXPECT_EQ(Must(ParseRcpt(many)).params.size(), kMaxParams);
  EXPECT_FALSE(ParseRcpt(many + "Y=2\0"s));
  const Macros m = Must(ParseMacros("C" + nuls));
  EXPECT_EQ(m.macros.size(), kMaxMacros);
}

TEST(MilterParse, UnknownCommandByte) {
  auto c = Parse({'Z', ""sv});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code(), Error::Code::kCorrupt);
  EXPECT_NE(c.error().message().find("'Z'"), std::string::npos);
  // A reply byte is not a command.
  EXPECT_FALSE(Parse({'c', ""sv}));
}

// ---------------------------------------------------------------------------
// Our replies

TEST(MilterEncode, ExactBytes) {
  std::string out;
  AppendContinue(out);
  EXPECT_EQ(out, U32(1) + "c");
  out.clear();
  AppendOptNeg(out, OptNeg{6, 0x31, 0x000ff302});
  EXPECT_EQ(out, U32(13) + "O" + U32(6) + U32(0x31) + U32(0xff302));
  out.clear();
  ASSERT_TRUE(AppendReplyCode(out, "550", "5.7.1", "spread wave"));
  EXPECT_EQ(out, U32(23) + "y550 5.7.1 spread wave\0"s);
  out.clear();
  ASSERT_TRUE(AppendAddHeader(out, "X-Mailwave-Language", "en"));
  EXPECT_EQ(out, U32(24) + "hX-Mailwave-Language\0en\0"s);
  out.clear();
  ASSERT_TRUE(AppendChangeHeader(out, 2, "X-Mailwave-Wave", ""));
  EXPECT_EQ(out, U32(22) + "m" + U32(2) + "X-Mailwave-Wave\0\0"s);
  out.clear();
  ASSERT_TRUE(AppendInsertHeader(out, 0, "X-A", "b"));
  EXPECT_EQ(out, U32(11) + "i" + U32(0) + "X-A\0b\0"s);
  out.clear();
  ASSERT_TRUE(AppendQuarantine(out, "mailwave: spread wave"));
  EXPECT_EQ(out, U32(23) + "qmailwave: spread wave\0"s);
}

TEST(MilterEncode, EveryBareReply) {
  std::string out;
  AppendContinue(out);
  AppendAccept(out);
  AppendReject(out);
  AppendTempFail(out);
  AppendDiscard(out);
  AppendSkip(out);
  AppendProgress(out);
  std::string expected;
  for (char c : "cartdsp"sv) expected += "\0\0\0\x01"s + c;
  EXPECT_EQ(out, expected);
}

TEST(MilterEncode, ReplyCodeChecksLikePostfix) {
  std::string out;
  ASSERT_TRUE(AppendReplyCode(out, "451", "", "try later"));
  EXPECT_EQ(out.substr(5), "451 4.0.0 try later\0"sv);
  out.clear();
  ASSERT_TRUE(AppendReplyCode(out, "550", "5.7.1", ""));
  EXPECT_EQ(out.substr(5), "550 5.7.1\0"sv);
  out.clear();
  // Sendmail uses the text as a format string, Postfix undoubles: send %%.
  ASSERT_TRUE(AppendReplyCode(out, "550", "5.7.100", "100% spam"));
  EXPECT_EQ(out.substr(5), "550 5.7.100 100%% spam\0"sv);
  // The length field counts the doubled text.
  Decoder d;
  d.Feed(out);
  auto p = d.Next();
  ASSERT_TRUE(p && *p);
  EXPECT_EQ((*p)->data, "550 5.7.100 100%% spam\0"sv);

  out = "kept";
  for (auto [rcode, xcode, text] : std::vector<
           std::tuple<std::string_view, std::string_view, std::string_view>>{
           {"250", "2.0.0", "ok"},      // not a refusal
           {"55", "5.7.1", "x"},        // two digits
           {"5x0", "5.7.1", "x"},       // not a number
           {"550", "4.7.1", "x"},       // classes differ
           {"550", "5.7", "x"},         // not an enhanced code
           {"550", "5.7.1000", "x"},    // detail of four digits
           {"550", "5..1", "x"},        // empty subject
           {"550", "5.7.1 ", "x"},      // trailing space
           {"550", "5.7.1", "a\r\nb"},  // two lines
           {"550", "5.7.1", "a\0b"sv},  // NUL
       }) {
    auto r = AppendReplyCode(out, rcode, xcode, text);
    EXPECT_FALSE(r) << rcode << " " << xcode;
    if (!r) {
      EXPECT_EQ(r.error().code(), Error::Code::kInvalidArgument);
    }
  }
  EXPECT_FALSE(AppendReplyCode(out, "550", "5.7.1", std::string(981, 'x')));
  EXPECT_EQ(out, "kept");
  EXPECT_TRUE(AppendReplyCode(out, "550", "5.7.1", std::string(980, 'x')));
}

TEST(MilterEncode, HeaderEditsRefuseInjection) {
  std::string out = "kept";
  for (std::string_view name :
       {""sv, "X Y"sv, "X:Y"sv, "X\tY"sv, "X\nY"sv, "X\0Y"sv, "\x80"sv}) {
    auto r = AppendAddHeader(out, name, "v");
    EXPECT_FALSE(r) << std::string(name);
    if (!r) {
      EXPECT_EQ(r.error().code(), Error::Code::kInvalidArgument);
    }
  }
  for (std::string_view value :
       {"a\nX-Forged: yes"sv, "a\n"sv, "a\rb"sv, "a\r\n b"sv, "a\0b"sv}) {
    EXPECT_FALSE(AppendAddHeader(out, "X-A", value));
    EXPECT_FALSE(AppendInsertHeader(out, 1, "X-A", value));
    EXPECT_FALSE(AppendChangeHeader(out, 1, "X-A", value));
  }
  EXPECT_EQ(out, "kept");
  // A folded value is one field.
  EXPECT_TRUE(AppendAddHeader(out, "X-A", "one\n\ttwo\n three"));
  EXPECT_TRUE(AppendAddHeader(out, "X-A", ""));
}

TEST(MilterEncode, QuarantineReason) {
  std::string out;
  EXPECT_FALSE(AppendQuarantine(out, ""));
  EXPECT_FALSE(AppendQuarantine(out, "a\nb"));
  EXPECT_FALSE(AppendQuarantine(out, "a\0b"sv));
  EXPECT_TRUE(out.empty());
}

TEST(MilterEncode, RoundTripThroughTheDecoder) {
  // Every reply of one message, in one buffer, as the engine will write it.
  std::string out;
  AppendOptNeg(out, OptNeg{6, 0x31, 0x302});
  AppendContinue(out);
  AppendProgress(out);
  ASSERT_TRUE(AppendChangeHeader(out, 1, "X-Mailwave-Wave", ""));
  ASSERT_TRUE(AppendInsertHeader(out, 3, "X-Mailwave-Language", "de"));
  ASSERT_TRUE(AppendAddHeader(out, "X-Mailwave-Wave",
                              "cluster=90a6231e; members=2;\n\twave=no"));
  ASSERT_TRUE(AppendQuarantine(out, "mailwave: spread wave, cluster 7f3a9c21"));
  ASSERT_TRUE(AppendReplyCode(out, "451", "4.7.1", "50% done"));
  AppendAccept(out);
  AppendReject(out);
  AppendTempFail(out);
  AppendDiscard(out);
  AppendSkip(out);

  Decoder d;
  d.Feed(out);
  std::vector<Reply> replies;
  while (true) {
    auto next = d.Next();
    ASSERT_TRUE(next);
    if (!*next) break;
    auto r = ParseReply(**next);
    ASSERT_TRUE(r) << r.error().ToString();
    replies.push_back(*r);
  }
  ASSERT_EQ(replies.size(), 13u);
  const auto& o = std::get<OptNeg>(replies[0]);
  EXPECT_EQ(o.version, 6u);
  EXPECT_EQ(o.actions, 0x31u);
  EXPECT_EQ(o.protocol, 0x302u);
  EXPECT_TRUE(std::holds_alternative<Continue>(replies[1]));
  EXPECT_TRUE(std::holds_alternative<Progress>(replies[2]));
  const auto& chg = std::get<ChangeHeader>(replies[3]);
  EXPECT_EQ(chg.index, 1u);
  EXPECT_EQ(chg.name, "X-Mailwave-Wave");
  EXPECT_EQ(chg.value, "");
  const auto& ins = std::get<InsertHeader>(replies[4]);
  EXPECT_EQ(ins.index, 3u);
  EXPECT_EQ(ins.value, "de");
  const auto& add = std::get<AddHeader>(replies[5]);
  EXPECT_EQ(add.value, "cluster=90a6231e; members=2;\n\twave=no");
  EXPECT_EQ(std::get<Quarantine>(replies[6]).reason,
            "mailwave: spread wave, cluster 7f3a9c21");
  EXPECT_EQ(std::get<ReplyCode>(replies[7]).text, "451 4.7.1 50%% done");
  EXPECT_TRUE(std::holds_alternative<Accept>(replies[8]));
  EXPECT_TRUE(std::holds_alternative<Reject>(replies[9]));
  EXPECT_TRUE(std::holds_alternative<TempFail>(replies[10]));
  EXPECT_TRUE(std::holds_alternative<Discard>(replies[11]));
  EXPECT_TRUE(std::holds_alternative<Skip>(replies[12]));
}

TEST(MilterParseReply, RefusesWhatWeNeverSend) {
  EXPECT_FALSE(ParseReply({'c', "x"sv}));          // data on a bare reply
  EXPECT_FALSE(ParseReply({'+', "<a@b>\0"sv}));    // add recipient
  EXPECT_FALSE(ParseReply({'O', "short"sv}));      // short OPTNEG
  EXPECT_FALSE(ParseReply({'y', "550 5.7.1"sv}));  // no NUL
  EXPECT_FALSE(ParseReply({'m', "\0\0\0"sv}));     // short index
  EXPECT_FALSE(ParseReply({'h', "X\0v\0more"sv}));
}

TEST(MilterAppendPacket, AnyCommandAndData) {
  std::string out;
  ASSERT_TRUE(AppendPacket(out, 'B', "\0\xff"sv));
  EXPECT_EQ(out, U32(3) + "B\0\xff"s);
}

// ---------------------------------------------------------------------------
// Negotiation

// What mailwave-milter asks for (milter/src/callbacks.cc, Negotiate).
Wants Mailwave() {
  return Wants{
      .actions = smfif::kAddHdrs | smfif::kChgHdrs | smfif::kQuarantine,
      .skip = smfip::kNoHelo | smfip::kNoUnknown | smfip::kNoData,
      .no_reply = smfip::kNrConn | smfip::kNrMail | smfip::kNrRcpt |
                  smfip::kNrHdr | smfip::kNrEoh | smfip::kNrBody,
      .extensions = smfip::kHdrLeadSpc,
  };
}

TEST(MilterNegotiate, PostfixOffersEverything) {
  const Negotiation n = Must(Negotiate(OptNeg{6, 0x1ff, 0x1fffff}, Mailwave()));
  EXPECT_EQ(n.reply.version, 6u);
  EXPECT_EQ(n.reply.actions, 0x31u);
  EXPECT_EQ(n.reply.protocol, smfip::kNoHelo | smfip::kNoUnknown |
                                  smfip::kNoData | smfip::kNrConn |
                                  smfip::kNrMail | smfip::kNrRcpt |
                                  smfip::kNrHdr | smfip::kNrEoh |
                                  smfip::kNrBody | smfip::kHdrLeadSpc);
  EXPECT_EQ(n.missing_actions, 0u);
  EXPECT_EQ(n.still_sent, 0u);
  EXPECT_EQ(n.must_reply, 0u);
  EXPECT_EQ(n.missing_extensions, 0u);
}

TEST(MilterNegotiate, MtaWithoutNoReplyFlags) {
  // Postfix with milter_protocol = 2: no NR_*, no NOUNKNOWN or NODATA.
  const Negotiation n = Must(Negotiate(OptNeg{2, 0x1ff, 0x7f}, Mailwave()));
  EXPECT_EQ(n.reply.version, 2u);
  EXPECT_EQ(n.reply.protocol, smfip::kNoHelo);
  EXPECT_EQ(n.reply.protocol & smfip::kNoReplyMask, 0u);
  EXPECT_EQ(n.must_reply, Mailwave().no_reply);
  EXPECT_EQ(n.still_sent, smfip::kNoUnknown | smfip::kNoData);
  EXPECT_EQ(n.missing_extensions, smfip::kHdrLeadSpc);
}

TEST(MilterNegotiate, NeverAsksForAnActionNotOffered) {
  // No quarantine offered (SMFI_V2_ACTS without it).
  const Negotiation n = Must(Negotiate(OptNeg{6, 0x1f, 0x1fffff}, Mailwave()));
  EXPECT_EQ(n.reply.actions, smfif::kAddHdrs | smfif::kChgHdrs);
  EXPECT_EQ(n.missing_actions, smfif::kQuarantine);
  // Nothing the daemon needs offered: it asks for nothing and says so.
  const Negotiation none = Must(Negotiate(OptNeg{6, 0x40, 0x1}, Mailwave()));
  EXPECT_EQ(none.reply.actions, 0u);
  EXPECT_EQ(none.missing_actions, Mailwave().actions);
  EXPECT_EQ(none.reply.protocol, 0u);
}

TEST(MilterNegotiate, VersionIsTheLower) {
  EXPECT_EQ(
      Must(Negotiate(OptNeg{7, 0x1ff, 0x1fffff}, Mailwave())).reply.version,
      6u);
  EXPECT_EQ(Must(Negotiate(OptNeg{4, 0x1ff, 0x3ff}, Mailwave())).reply.version,
            4u);
  auto old = Negotiate(OptNeg{1, 0x1ff, 0x1fffff}, Mailwave());
  ASSERT_FALSE(old);
  EXPECT_EQ(old.error().code(), Error::Code::kUnavailable);
  EXPECT_FALSE(Negotiate(OptNeg{0, 0, 0}, Mailwave()));
}

TEST(MilterNegotiate, ZeroMeansVersionOneDefaults) {
  const Negotiation n = Must(Negotiate(OptNeg{2, 0, 0}, Mailwave()));
  // SMFI_V1_ACTS: no header changes, no quarantine; SMFI_V1_PROT: only the
  // first six steps can be skipped, nothing goes unanswered.
  EXPECT_EQ(n.reply.actions, smfif::kAddHdrs);
  EXPECT_EQ(n.missing_actions, smfif::kChgHdrs | smfif::kQuarantine);
  EXPECT_EQ(n.reply.protocol, smfip::kNoHelo);
}

TEST(MilterNegotiate, FlagsOfTheWrongKindAreIgnored) {
  Wants w;
  w.skip = smfip::kNrConn | smfip::kNoConnect;  // an NR flag among the skips
  w.no_reply = smfip::kNoBody | smfip::kNrBody;
  w.extensions = smfip::kMds1M | smfip::kSkip;
  const Negotiation n = Must(Negotiate(OptNeg{6, 0x1ff, 0xffffffff}, w));
  EXPECT_EQ(n.reply.protocol,
            smfip::kNoConnect | smfip::kNrBody | smfip::kSkip);
}

}  // namespace
}  // namespace mw::milter
