// Relays: parsing of [milter] trusted_relays and matching client addresses
// (prefix boundaries, IPv6, IPv4-mapped IPv6, other families).
#include "milter/src/relays.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <string>

namespace mw::milter {
namespace {

sockaddr_storage V4(const char* text) {
  sockaddr_storage ss{};
  auto* in = reinterpret_cast<sockaddr_in*>(&ss);
  in->sin_family = AF_INET;
  EXPECT_EQ(inet_pton(AF_INET, text, &in->sin_addr), 1);
  return ss;
}

sockaddr_storage V6(const char* text) {
  sockaddr_storage ss{};
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
  in6->sin6_family = AF_INET6;
  EXPECT_EQ(inet_pton(AF_INET6, text, &in6->sin6_addr), 1);
  return ss;
}

bool Has(const Relays& r, const sockaddr_storage& ss) {
  return r.Contains(reinterpret_cast<const sockaddr*>(&ss));
}

TEST(Relays, EmptyTrustsNobody) {
  auto r = Relays::Parse("");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
  EXPECT_FALSE(Has(*r, V4("127.0.0.1")));
  EXPECT_TRUE(Relays::Parse(" , ")->empty());
}

TEST(Relays, AddressesAndPrefixes) {
  auto r =
      Relays::Parse("192.0.2.7, 198.51.100.0/25 2001:db8::/32\t10.0.0.0/8");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(Has(*r, V4("192.0.2.7")));
  EXPECT_FALSE(Has(*r, V4("192.0.2.8")));
  EXPECT_TRUE(Has(*r, V4("198.51.100.0")));
  EXPECT_TRUE(Has(*r, V4("198.51.100.127")));
  EXPECT_FALSE(Has(*r, V4("198.51.100.128"))) << "/25 ends at .127";
  EXPECT_TRUE(Has(*r, V4("10.255.1.2")));
  EXPECT_TRUE(Has(*r, V6("2001:db8:ffff::1")));
  EXPECT_FALSE(Has(*r, V6("2001:db9::1")));
  // An IPv4 client seen through an IPv6 socket.
  EXPECT_TRUE(Has(*r, V6("::ffff:192.0.2.7")));
  EXPECT_FALSE(Has(*r, V6("::ffff:192.0.2.9")));
  // No address, or not an IP one: never trusted.
  EXPECT_FALSE(r->Contains(nullptr));
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  EXPECT_FALSE(r->Contains(reinterpret_cast<const sockaddr*>(&sun)));
}

TEST(Relays, ZeroLengthPrefixMatchesItsFamilyOnly) {
  auto r = Relays::Parse("0.0.0.0/0");
  ASSERT_TRUE(r);
  EXPECT_TRUE(Has(*r, V4("203.0.113.9")));
  EXPECT_FALSE(Has(*r, V6("2001:db8::1")));
}

TEST(Relays, BadEntriesAreNamed) {
  for (const char* bad :
       {"mx.example.org", "192.0.2.0/33", "192.0.2.0/", "2001:db8::/129",
        "192.0.2.0/-1", "192.0.2.0/8x", "300.1.1.1"}) {
    auto r = Relays::Parse(std::string("192.0.2.1 ") + bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message(), std::string("milter.trusted_relays: '") +
                                       bad +
                                       "' is not an IP address or prefix");
  }
}

}  // namespace
}  // namespace mw::milter
