// The Session: the rebuilt message, the size limit and the incoming headers
// of ours counted by name for deletion by index.
#include "milter/src/session.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <string>
#include <vector>

namespace mw::milter {
namespace {

TEST(Session, RebuildsTheMessageWithCrlf) {
  Session s(1 << 20);
  s.AddHeader("Subject", "one\n\ttwo");
  s.AddHeader("From", "a@example.org");
  s.EndHeaders();
  s.AddBody("body\r\n");
  s.AddBody("more\r\n");
  EXPECT_EQ(
      s.bytes(),
      "Subject: one\r\n\ttwo\r\nFrom: a@example.org\r\n\r\nbody\r\nmore\r\n");
  EXPECT_FALSE(s.too_large());
  EXPECT_EQ(s.size(), s.bytes().size());
}

TEST(Session, BodyWithoutEohStillSeparatesTheHeaders) {
  Session s(1 << 20);
  s.AddHeader("Subject", "x");
  s.AddBody("b");
  s.EndHeaders();
  EXPECT_EQ(s.bytes(), "Subject: x\r\n\r\nb");
}

TEST(Session, StopsAtTheLimitAndCountsTheRest) {
  Session s(16);
  s.AddHeader("Subject", "0123456789");  // 21 bytes
  s.AddHeader("X-Mailwave-Wave", "forged");
  EXPECT_TRUE(s.too_large());
  EXPECT_EQ(s.bytes(), "Subject: 0123456");
  EXPECT_EQ(s.size(), 21u + 25u);
  ASSERT_EQ(s.ours().size(), 1u);  // headers are counted past the limit
}

TEST(Session, CountsOurHeadersByNameWithoutCase) {
  Session s(1 << 20);
  s.AddHeader("X-Mailwave-Wave", "1");
  s.AddHeader("Subject", "x");
  s.AddHeader("x-mailwave-language", "2");
  s.AddHeader("X-MAILWAVE-WAVE", "3");
  s.AddHeader("X-Mailwavefoo", "not ours");
  ASSERT_EQ(s.ours().size(), 2u);
  EXPECT_EQ(s.ours()[0].name, "X-Mailwave-Wave");
  EXPECT_EQ(s.ours()[0].count, 2);
  EXPECT_EQ(s.ours()[1].name, "x-mailwave-language");
  EXPECT_EQ(s.ours()[1].count, 1);
}

TEST(Session, DeletesFromTheHighestIndexDown) {
  Session s(1 << 20);
  s.AddHeader("X-Mailwave-Wave", "1");
  s.AddHeader("x-mailwave-language", "1");
  s.AddHeader("X-MAILWAVE-WAVE", "2");
  s.AddHeader("X-Mailwave-Wave", "3");
  using D = Session::Deletion;
  EXPECT_EQ(s.Deletions(), (std::vector<D>{{"X-Mailwave-Wave", 3},
                                           {"X-Mailwave-Wave", 2},
                                           {"X-Mailwave-Wave", 1},
                                           {"x-mailwave-language", 1}}));
  EXPECT_TRUE(Session(16).Deletions().empty());
}

TEST(Session, ResetForgetsTheMessage) {
  Session s(8);
  s.set_queue_id("Q1");
  s.set_sender("a@example.org");
  s.AddHeader("X-Mailwave-Wave", "forged");
  s.Reset();
  EXPECT_EQ(s.queue_id(), "");
  EXPECT_EQ(s.sender(), "");
  EXPECT_EQ(s.bytes(), "");
  EXPECT_FALSE(s.too_large());
  EXPECT_EQ(s.size(), 0u);
  EXPECT_TRUE(s.ours().empty());
}

// The envelope's recipients are kept in order and forgotten with the
// message; the connection's client stays.
TEST(Session, RecipientsArePerMessage) {
  Session s(1 << 20);
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  v4.sin_addr.s_addr = htonl(0xC0000207);  // 192.0.2.7
  s.set_client(reinterpret_cast<const sockaddr*>(&v4), sizeof v4);
  s.AddRecipient("a@example.net");
  s.AddRecipient("b@example.net");
  EXPECT_EQ(s.recipients(),
            (std::vector<std::string>{"a@example.net", "b@example.net"}));
  s.Reset();
  EXPECT_TRUE(s.recipients().empty());
  EXPECT_EQ(s.ClientIp(), "192.0.2.7");
}

TEST(Session, ClientIpAsText) {
  Session s(1 << 20);
  EXPECT_EQ(s.ClientIp(), "");  // no connect step
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  ASSERT_EQ(inet_pton(AF_INET6, "2001:db8::1", &v6.sin6_addr), 1);
  s.set_client(reinterpret_cast<const sockaddr*>(&v6), sizeof v6);
  EXPECT_EQ(s.ClientIp(), "2001:db8::1");
  ASSERT_EQ(inet_pton(AF_INET6, "::ffff:192.0.2.9", &v6.sin6_addr), 1);
  s.set_client(reinterpret_cast<const sockaddr*>(&v6), sizeof v6);
  EXPECT_EQ(s.ClientIp(), "::ffff:192.0.2.9");  // sender/ reads it as IPv4
  sockaddr un{};
  un.sa_family = AF_UNIX;
  s.set_client(&un, sizeof un);
  EXPECT_EQ(s.ClientIp(), "");
}

}  // namespace
}  // namespace mw::milter
