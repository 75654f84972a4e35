// One connection's protocol state (milter/src/conversation.h), fed byte
// streams built with the codec's encoders as an MTA would send them; the
// replies are read back with the codec's ParseReply.
#include "milter/src/conversation.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <string>
#include <variant>
#include <vector>

#include "milter/src/in_flight.h"
#include "tests/milter/frames.h"

namespace mw::milter {
namespace {

using testing::Frame;
using testing::OptNegPacket;
using testing::Str;
using testing::U32;

// Postfix's offer: every action, every flag but HDR_LEADSPC's absence.
constexpr std::uint32_t kAllActions = 0x1FF;
constexpr std::uint32_t kPostfixProtocol = 0x001FFFFF;

struct Fed {
  std::vector<Conversation::Next> steps;
  std::string out;
};

// Feeds `bytes` through a Decoder in one piece; stops at kMessage/kClose.
Fed Feed(Conversation& c, const std::string& bytes) {
  Fed run;
  Decoder d;
  d.Feed(bytes);
  while (true) {
    auto next = d.Next();
    EXPECT_TRUE(next.has_value());
    if (!next || !*next) break;
    auto command = Parse(**next);
    EXPECT_TRUE(command.has_value()) << command.error().message();
    if (!command) break;
    auto step = c.Feed(*command, run.out);
    run.steps.push_back(step);
    if (step != Conversation::Next::kGoOn) break;
  }
  return run;
}

// The reply command bytes in `out`, in order.
std::string ReplyBytes(const std::string& out) {
  Decoder d;
  d.Feed(out);
  std::string commands;
  while (true) {
    auto next = d.Next();
    if (!next || !*next) break;
    commands += (*next)->command;
  }
  return commands;
}

std::vector<Reply> Replies(const std::string& out, Decoder& d) {
  d.Feed(out);
  std::vector<Reply> replies;
  while (true) {
    auto next = d.Next();
    if (!next || !*next) break;
    auto r = ParseReply(**next);
    EXPECT_TRUE(r.has_value());
    if (r) replies.push_back(*r);
  }
  return replies;
}

TEST(MilterConversation, NegotiatesLikeTheLibmilterAdapter) {
  Conversation c(1 << 20);
  Fed r = Feed(c, OptNegPacket(kAllActions, kPostfixProtocol));
  Decoder d;
  auto replies = Replies(r.out, d);
  ASSERT_EQ(replies.size(), 1u);
  const auto& o = std::get<OptNeg>(replies[0]);
  EXPECT_EQ(o.version, 6u);
  EXPECT_EQ(o.actions, smfif::kAddHdrs | smfif::kChgHdrs | smfif::kQuarantine);
  EXPECT_EQ(o.protocol, smfip::kNoHelo | smfip::kNoUnknown | smfip::kNoData |
                            smfip::kNrConn | smfip::kNrMail | smfip::kNrRcpt |
                            smfip::kNrHdr | smfip::kNrEoh | smfip::kNrBody);
  EXPECT_EQ(o.protocol & smfip::kHdrLeadSpc, 0u);
}

TEST(MilterConversation, ClosesWithoutHeaderActions) {
  Conversation c(1 << 20);
  Fed r = Feed(c, OptNegPacket(smfif::kAddHdrs, kPostfixProtocol));
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0], Conversation::Next::kClose);
  EXPECT_TRUE(r.out.empty());
}

// An MTA without no-reply flags (an old Sendmail, protocol version 2 bits):
// every step gets CONTINUE, and HELO too when it cannot be skipped.
TEST(MilterConversation, AnswersEveryStepWithoutNoReplyFlags) {
  Conversation c(1 << 20);
  Feed(c, OptNegPacket(kAllActions, smfip::kV1Protocol));
  EXPECT_EQ(c.no_reply(), 0u);
  std::string stream;
  stream +=
      Frame(smfic::kConnect, Str("mx.example") + "4" +
                                 std::string("\x00\x19", 2) + Str("192.0.2.7"));
  stream += Frame(smfic::kHelo, Str("mx.example"));
  stream += Frame(smfic::kMail, Str("<a@example.org>"));
  stream += Frame(smfic::kRcpt, Str("<b@example.net>"));
  stream += Frame(smfic::kHeader, Str("Subject") + Str("hi"));
  stream += Frame(smfic::kEoh);
  stream += Frame(smfic::kBody, "body\r\n");
  Fed r = Feed(c, stream);
  EXPECT_EQ(ReplyBytes(r.out), "ccccccc");
}

TEST(MilterConversation, NoReplyStepsStayQuiet) {
  Conversation c(1 << 20);
  Feed(c, OptNegPacket(kAllActions, kPostfixProtocol));
  std::string stream;
  stream += Frame(smfic::kMacro, std::string(1, smfic::kConnect) + Str("j") +
                                     Str("mx.example"));
  stream +=
      Frame(smfic::kConnect, Str("[192.0.2.7]") + "4" +
                                 std::string("\x04\x00", 2) + Str("192.0.2.7"));
  stream += Frame(smfic::kMacro,
                  std::string(1, smfic::kMail) + Str("i") + Str("4XyZ1"));
  stream += Frame(smfic::kMail, Str("<a@example.org>") + Str("SIZE=10"));
  stream += Frame(smfic::kRcpt, Str("<b@example.net>"));
  stream += Frame(smfic::kRcpt, Str("<c@example.net>"));
  stream += Frame(smfic::kHeader, Str("Subject") + Str("hi"));
  stream += Frame(smfic::kHeader, Str("X-Mailwave-Verdict") + Str("forged"));
  stream += Frame(smfic::kEoh);
  stream += Frame(smfic::kBody, "body\r\n");
  stream += Frame(smfic::kEob);
  Fed r = Feed(c, stream);
  EXPECT_TRUE(r.out.empty());
  ASSERT_FALSE(r.steps.empty());
  EXPECT_EQ(r.steps.back(), Conversation::Next::kMessage);
  EXPECT_EQ(MessagesInFlight(), 1u);
  TakenMessage m = c.TakeMessage();
  EXPECT_EQ(m.get()->queue_id(), "4XyZ1");
  EXPECT_EQ(m.get()->sender(), "a@example.org");
  EXPECT_EQ(m.get()->recipients(),
            (std::vector<std::string>{"b@example.net", "c@example.net"}));
  EXPECT_EQ(m.get()->ClientIp(), "192.0.2.7");
  EXPECT_EQ(m.get()->bytes(),
            "Subject: hi\r\nX-Mailwave-Verdict: forged\r\n\r\nbody\r\n");
  EXPECT_FALSE(c.in_message());
  m = TakenMessage();
  EXPECT_EQ(MessagesInFlight(), 0u);
}

TEST(MilterConversation, EmptyMacroPacketAndEobWithData) {
  Conversation c(1 << 20);
  Feed(c, OptNegPacket(kAllActions, kPostfixProtocol));
  std::string stream;
  stream += Frame(smfic::kMacro, std::string(1, smfic::kMail));  // no pairs
  stream += Frame(smfic::kMail, Str("<>"));
  stream += Frame(smfic::kEoh);
  stream +=
      Frame(smfic::kMacro, std::string(1, smfic::kEob) + Str("i") + Str("EQ"));
  stream += Frame(smfic::kEob, "last chunk\r\n");
  Fed r = Feed(c, stream);
  ASSERT_EQ(r.steps.back(), Conversation::Next::kMessage);
  TakenMessage m = c.TakeMessage();
  EXPECT_EQ(m.get()->queue_id(), "EQ");  // from the end of message's macros
  EXPECT_EQ(m.get()->sender(), "");
  EXPECT_EQ(m.get()->bytes(), "\r\nlast chunk\r\n");
}

TEST(MilterConversation, UnixAndUnknownClients) {
  Conversation c(1 << 20);
  Feed(c, OptNegPacket(kAllActions, kPostfixProtocol));
  Fed r = Feed(c, Frame(smfic::kConnect, Str("localhost") + "L" +
                                             std::string("\x00\x00", 2) +
                                             Str("/run/smtpd.sock")) +
                      Frame(smfic::kMail, Str("<a@b>")) + Frame(smfic::kEob));
  TakenMessage m = c.TakeMessage();
  EXPECT_EQ(m.get()->client(), nullptr);
  EXPECT_EQ(m.get()->ClientIp(), "");
  Feed(c, Frame(smfic::kConnect, Str("unknown") + "U") +
              Frame(smfic::kMail, Str("<a@b>")) + Frame(smfic::kEob));
  EXPECT_EQ(c.TakeMessage().get()->client(), nullptr);
  Feed(c, Frame(smfic::kConnect, Str("[2001:db8::1]") + "6" +
                                     std::string("\x00\x19", 2) +
                                     Str("IPv6:2001:db8::1")) +
              Frame(smfic::kMail, Str("<a@b>")) + Frame(smfic::kEob));
  EXPECT_EQ(c.TakeMessage().get()->ClientIp(), "2001:db8::1");
}

// Out of order: a body without MAIL opens a message; a second MAIL starts
// over; the connection never closes for it.
TEST(MilterConversation, ResynchronisesOutOfOrderCommands) {
  Conversation c(1 << 20);
  Feed(c, OptNegPacket(kAllActions, kPostfixProtocol));
  Fed r = Feed(c, Frame(smfic::kBody, "orphan") +
                      Frame(smfic::kHeader, Str("A") + Str("1")));
  EXPECT_TRUE(c.in_message());
  EXPECT_EQ(MessagesInFlight(), 1u);
  r = Feed(c, Frame(smfic::kMail, Str("<x@y>")) +
                  Frame(smfic::kHeader, Str("B") + Str("")) +
                  Frame(smfic::kEob));
  ASSERT_EQ(r.steps.back(), Conversation::Next::kMessage);
  TakenMessage m = c.TakeMessage();
  EXPECT_EQ(m.get()->bytes(), "B: \r\n");
  EXPECT_EQ(MessagesInFlight(), 1u);  // the taken one
  m = TakenMessage();
  // ABORT forgets an open message and is never answered.
  r = Feed(c, Frame(smfic::kMail, Str("<x@y>")) + Frame(smfic::kAbort));
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(c.in_message());
  EXPECT_EQ(MessagesInFlight(), 0u);
}

TEST(MilterConversation, QuitNewConnectionStartsOver) {
  Conversation c(1 << 20);
  Feed(c, OptNegPacket(kAllActions, kPostfixProtocol));
  Fed r = Feed(
      c, Frame(smfic::kConnect,
               Str("h") + "4" + std::string("\x00\x19", 2) + Str("192.0.2.7")) +
             Frame(smfic::kMail, Str("<x@y>")) + Frame(smfic::kQuitNc));
  EXPECT_EQ(r.steps.back(), Conversation::Next::kGoOn);
  EXPECT_TRUE(r.out.empty());
  EXPECT_FALSE(c.in_message());
  EXPECT_EQ(MessagesInFlight(), 0u);
  // The next SMTP session on the same socket starts with CONNECT under the
  // options negotiated before (libmilter: ST_Q_NC -> ST_CONN): still no
  // replies, and the old client is gone.
  r = Feed(c, Frame(smfic::kConnect, Str("h") + "U") +
                  Frame(smfic::kMail, Str("<x@y>")) + Frame(smfic::kEob));
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(r.steps.back(), Conversation::Next::kMessage);
  EXPECT_EQ(c.TakeMessage().get()->client(), nullptr);
  // An OPTNEG that comes anyway renegotiates (here without no-reply flags).
  r = Feed(c, Frame(smfic::kQuitNc) +
                  OptNegPacket(kAllActions, smfip::kV1Protocol) +
                  Frame(smfic::kConnect, Str("h") + "U") +
                  Frame(smfic::kMail, Str("<x@y>")));
  EXPECT_EQ(ReplyBytes(r.out), "Occ");
  c.TakeMessage();
  EXPECT_EQ(Feed(c, Frame(smfic::kQuit)).steps.back(),
            Conversation::Next::kClose);
}

TEST(MilterConversation, EncodesTheEndOfMessageInOneBuffer) {
  Conversation c(1 << 20);
  Feed(c, OptNegPacket(kAllActions, kPostfixProtocol));
  EndOfMessage e;
  e.deletions = {{"X-Mailwave-Verdict", 2}, {"X-Mailwave-Verdict", 1}};
  e.headers = {{"X-Mailwave-Language", "en"}};
  e.quarantine = "mailwave: spread wave";
  std::string out;
  EXPECT_TRUE(c.AppendEndOfMessage(e, "Q1", out).empty());
  Decoder d;
  auto replies = Replies(out, d);
  ASSERT_EQ(replies.size(), 5u);
  EXPECT_EQ(std::get<ChangeHeader>(replies[0]).index, 2u);
  EXPECT_EQ(std::get<ChangeHeader>(replies[0]).value, "");
  EXPECT_EQ(std::get<ChangeHeader>(replies[1]).index, 1u);
  EXPECT_EQ(std::get<AddHeader>(replies[2]).name, "X-Mailwave-Language");
  EXPECT_EQ(std::get<AddHeader>(replies[2]).value, "en");
  EXPECT_EQ(std::get<Quarantine>(replies[3]).reason, "mailwave: spread wave");
  EXPECT_TRUE(std::holds_alternative<Continue>(replies[4]));

  EndOfMessage reject;
  reject.verdict = EndOfMessage::Verdict::kReject;
  reject.rcode = "550";
  reject.xcode = "5.7.1";
  reject.text = "spread wave";
  out.clear();
  EXPECT_TRUE(c.AppendEndOfMessage(reject, "Q1", out).empty());
  Decoder d2;
  replies = Replies(out, d2);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(std::get<ReplyCode>(replies[0]).text, "550 5.7.1 spread wave");

  EndOfMessage tempfail;
  tempfail.verdict = EndOfMessage::Verdict::kTempfail;
  out.clear();
  EXPECT_TRUE(c.AppendEndOfMessage(tempfail, "Q1", out).empty());
  EXPECT_EQ(ReplyBytes(out), "t");
  reject.rcode.clear();
  out.clear();
  EXPECT_TRUE(c.AppendEndOfMessage(reject, "Q1", out).empty());
  EXPECT_EQ(ReplyBytes(out), "r");
}

TEST(MilterConversation, AReplyTextTheProtocolCannotCarryIsRefused) {
  Conversation c(1 << 20);
  Feed(c, OptNegPacket(kAllActions, kPostfixProtocol));
  EndOfMessage reject;
  reject.verdict = EndOfMessage::Verdict::kReject;
  reject.rcode = "550";
  reject.xcode = "5.7.1";
  reject.text = std::string("spread\0wave", 11);  // a NUL ends a C string
  std::string out;
  const std::vector<std::string> refused =
      c.AppendEndOfMessage(reject, "Q1", out);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].find("rejected with its own"), std::string::npos);
  EXPECT_EQ(ReplyBytes(out), "r");
}

TEST(MilterConversation, QuarantineNotGrantedIsRefused) {
  Conversation c(1 << 20);
  Feed(c, OptNegPacket(smfif::kAddHdrs | smfif::kChgHdrs, kPostfixProtocol));
  EndOfMessage e;
  e.quarantine = "held";
  std::string out;
  const std::vector<std::string> refused = c.AppendEndOfMessage(e, "Q2", out);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].find("quarantine"), std::string::npos);
  EXPECT_EQ(ReplyBytes(out), "c");
}

}  // namespace
}  // namespace mw::milter
