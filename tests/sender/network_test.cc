// Tests for ClientNetwork and Cidr (sender/src/network.cc).
#include <gtest/gtest.h>

#include "sender/address.h"

namespace mw::sender {
namespace {

TEST(ClientNetwork, Ipv4Slash24) {
  EXPECT_EQ(ClientNetwork("192.0.2.77"), "192.0.2.0/24");
  EXPECT_EQ(ClientNetwork("  198.51.100.1 "), "198.51.100.0/24");
  EXPECT_EQ(ClientNetwork("[192.0.2.1]"), "192.0.2.0/24");
}

TEST(ClientNetwork, Ipv6Slash48) {
  EXPECT_EQ(ClientNetwork("2001:db8:1:2::3"), "2001:db8:1::/48");
  EXPECT_EQ(ClientNetwork("2001:DB8:ABCD:FFFF:1:2:3:4"), "2001:db8:abcd::/48");
  EXPECT_EQ(ClientNetwork("IPv6:2001:db8:1:2::3"), "2001:db8:1::/48");
  EXPECT_EQ(ClientNetwork("[IPv6:2001:db8:1:2::3]"), "2001:db8:1::/48");
  EXPECT_EQ(ClientNetwork("::1"), "::/48");
}

TEST(ClientNetwork, MappedIpv4IsIpv4) {
  EXPECT_EQ(ClientNetwork("::ffff:192.0.2.1"), "192.0.2.0/24");
  EXPECT_EQ(ClientNetwork("[IPv6:::ffff:c000:0201]"), "192.0.2.0/24");
}

TEST(ClientNetwork, NotAnAddress) {
  for (const char* s :
       {"", "unknown", "192.0.2", "192.0.2.256", "1.2.3.4.5", "2001:db8::g",
        "fe80::1%eth0", "[]", "IPv6:", "192.0.2.1/24", "mail.example.org"}) {
    EXPECT_EQ(ClientNetwork(s), "") << s;
  }
}

TEST(Cidr, Ipv4) {
  const auto c = Cidr::Parse("10.1.0.0/16");
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->Contains("10.1.255.3"));
  EXPECT_TRUE(c->Contains("[10.1.0.0]"));
  EXPECT_TRUE(c->Contains("::ffff:10.1.2.3"));
  EXPECT_FALSE(c->Contains("10.2.0.1"));
  EXPECT_FALSE(c->Contains("2001:db8::1"));
  EXPECT_FALSE(c->Contains("garbage"));
  EXPECT_FALSE(c->Contains(""));
}

TEST(Cidr, OddPrefixesAndHostBits) {
  const auto c = Cidr::Parse("192.0.2.130/25");  // host bits dropped
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->Contains("192.0.2.200"));
  EXPECT_FALSE(c->Contains("192.0.2.127"));
  const auto all = Cidr::Parse("0.0.0.0/0");
  ASSERT_TRUE(all.has_value());
  EXPECT_TRUE(all->Contains("203.0.113.9"));
  EXPECT_FALSE(all->Contains("2001:db8::1"));
  const auto one = Cidr::Parse("192.0.2.1");
  ASSERT_TRUE(one.has_value());
  EXPECT_TRUE(one->Contains("192.0.2.1"));
  EXPECT_FALSE(one->Contains("192.0.2.2"));
}

TEST(Cidr, Ipv6) {
  const auto c = Cidr::Parse("2001:db8::/32");
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->Contains("2001:db8:ffff::1"));
  EXPECT_TRUE(c->Contains("IPv6:2001:DB8::1"));
  EXPECT_FALSE(c->Contains("2001:db9::1"));
  EXPECT_FALSE(c->Contains("192.0.2.1"));
  const auto odd = Cidr::Parse("2001:db8:8000::/33");
  ASSERT_TRUE(odd.has_value());
  EXPECT_TRUE(odd->Contains("2001:db8:8000::1"));
  EXPECT_FALSE(odd->Contains("2001:db8:7fff::1"));
  const auto host = Cidr::Parse("2001:db8::1/128");
  ASSERT_TRUE(host.has_value());
  EXPECT_TRUE(host->Contains("2001:db8::1"));
  EXPECT_FALSE(host->Contains("2001:db8::2"));
}

TEST(Cidr, BadInput) {
  for (const char* s :
       {"10.0.0.0/33", "2001:db8::/129", "10.0.0.0/", "10.0.0.0/-1",
        "10.0.0.0/8x", "10.0.0.0/0008", "10.0.0/8", "/8", "", "example.org/24",
        "10.0.0.0/8/8"}) {
    EXPECT_FALSE(Cidr::Parse(s).has_value()) << s;
  }
  const auto e = Cidr::Parse("10.0.0.0/33");
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().message(), "bad prefix length");
  EXPECT_EQ(Cidr::Parse("10.0.0/8").error().message(), "bad address");
}

}  // namespace
}  // namespace mw::sender
