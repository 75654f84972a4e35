// Tests for SuffixList (sender/src/suffix_list.cc), with libpsl itself as
// the oracle.
#include <gtest/gtest.h>
#include <libpsl.h>

#include <string>

#include "sender/address.h"

namespace mw::sender {
namespace {

std::shared_ptr<const SuffixList> List() {
  static const std::shared_ptr<const SuffixList> list = [] {
    auto l = SuffixList::Open();
    EXPECT_TRUE(l.has_value()) << (l ? "" : l.error().message());
    return l ? *l : nullptr;
  }();
  return list;
}

TEST(SuffixList, RegistrableDomain) {
  const auto psl = List();
  ASSERT_NE(psl, nullptr);
  EXPECT_EQ(psl->RegistrableDomain("a.b.example.co.uk"), "example.co.uk");
  EXPECT_EQ(psl->RegistrableDomain("mail.news.example.co.uk"), "example.co.uk");
  EXPECT_EQ(psl->RegistrableDomain("example.co.uk"), "example.co.uk");
  EXPECT_EQ(psl->RegistrableDomain("Mail.Example.COM."), "example.com");
  EXPECT_EQ(psl->RegistrableDomain("returns.groups.yahoo.com"), "yahoo.com");
}

TEST(SuffixList, PrivateSuffixes) {
  const auto psl = List();
  ASSERT_NE(psl, nullptr);
  // github.io is a public suffix (private section): each user is a domain.
  EXPECT_EQ(psl->RegistrableDomain("octocat.github.io"), "octocat.github.io");
  EXPECT_EQ(psl->RegistrableDomain("www.octocat.github.io"),
            "octocat.github.io");
  EXPECT_EQ(psl->RegistrableDomain("github.io"), "github.io");
  EXPECT_EQ(psl->RegistrableDomain("github.com"), "github.com");
}

TEST(SuffixList, PublicSuffixAndNonDomainsGiveThemselves) {
  const auto psl = List();
  ASSERT_NE(psl, nullptr);
  EXPECT_EQ(psl->RegistrableDomain("co.uk"), "co.uk");
  EXPECT_EQ(psl->RegistrableDomain("COM"), "com");
  EXPECT_EQ(psl->RegistrableDomain(""), "");
  EXPECT_EQ(psl->RegistrableDomain("localhost"), "localhost");
  EXPECT_EQ(psl->RegistrableDomain("192.0.2.1"), "192.0.2.1");
  EXPECT_EQ(psl->RegistrableDomain("[192.0.2.1]"), "[192.0.2.1]");
  EXPECT_EQ(psl->RegistrableDomain("a..example.com"), "a..example.com");
  EXPECT_EQ(psl->RegistrableDomain("bad domain.com"), "bad domain.com");
}

TEST(SuffixList, AgreesWithLibpsl) {
  const auto psl = List();
  ASSERT_NE(psl, nullptr);
  psl_ctx_t* oracle = psl_latest(nullptr);
  ASSERT_NE(oracle, nullptr);
  for (const char* d :
       {"www.example.com", "a.b.example.co.uk", "x.y.z.example.com.au",
        "foo.s3.amazonaws.com", "user.blogspot.com", "www.city.kawasaki.jp",
        "a.b.c.kobe.jp", "mail.example.xn--p1ai", "sub.example.pvt.k12.ma.us",
        "deep.er.herokuapp.com", "a.appspot.com", "one.two.example.unknowntld",
        "x.ck", "www.ck", "mail.esp.example",
        "bounces.e.newsletter.example.de"}) {
    const char* want = psl_registrable_domain(oracle, d);
    EXPECT_EQ(psl->RegistrableDomain(d), want != nullptr ? want : d) << d;
  }
  psl_free(oracle);
}

TEST(SuffixList, OpensTwiceIndependently) {
  auto a = SuffixList::Open();
  auto b = SuffixList::Open();
  ASSERT_TRUE(a.has_value() && b.has_value());
  a->reset();  // one freed, the other still works
  EXPECT_EQ((*b)->RegistrableDomain("a.example.org"), "example.org");
}

}  // namespace
}  // namespace mw::sender
