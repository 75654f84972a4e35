// Tests for the allow list (sender/src/allow.cc): the file format, its
// errors, and each kind's match and non-match.
#include "sender/allow.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace mw::sender {
namespace {

std::shared_ptr<const SuffixList> Psl() {
  static const std::shared_ptr<const SuffixList> list = [] {
    auto l = SuffixList::Open();
    EXPECT_TRUE(l.has_value());
    return l ? *l : nullptr;
  }();
  return list;
}

AllowList List(std::string_view text) {
  auto l = AllowList::Parse(text, "allow.txt");
  EXPECT_TRUE(l.has_value()) << (l ? "" : l.error().message());
  return l ? std::move(*l) : AllowList();
}

std::string ErrorOf(std::string_view text) {
  auto l = AllowList::Parse(text, "allow.txt");
  EXPECT_FALSE(l.has_value()) << text;
  return l ? "" : l.error().message();
}

// An identity as Identify would fill it.
Identity Authenticated(std::string domain) {
  Identity id;
  id.domain = std::move(domain);
  id.source = Source::kDkim;
  id.authenticated = true;
  return id;
}

TEST(AllowList, ParsesEveryKind) {
  const AllowList l = List(
      "# the site's wanted senders\n"
      "\n"
      "dkim   News.Example.COM.   # trailing dot and case\n"
      "spf\tbounces.esp.example\r\n"
      "sender Newsletter@Example.org\n"
      "list-id <Users.Lists.Example.ORG>\n"
      "ip 192.0.2.0/24\n"
      "ip 2001:db8::/32\n"
      "   cluster DEADBEEF\n"
      "DKIM upper.example\n");
  ASSERT_EQ(l.entries().size(), 8u);
  EXPECT_FALSE(l.empty());
  const auto& e = l.entries();
  EXPECT_EQ(e[0].kind, AllowKind::kDkim);
  EXPECT_EQ(e[0].value, "news.example.com");
  EXPECT_EQ(e[0].line, 3);
  EXPECT_EQ(e[1].kind, AllowKind::kSpf);
  EXPECT_EQ(e[1].value, "bounces.esp.example");
  EXPECT_EQ(e[2].value, "newsletter@example.org");
  EXPECT_EQ(e[3].kind, AllowKind::kListId);
  EXPECT_EQ(e[3].value, "users.lists.example.org");
  EXPECT_EQ(e[4].value, "192.0.2.0/24");
  EXPECT_EQ(e[6].kind, AllowKind::kCluster);
  EXPECT_EQ(e[6].value, "deadbeef");
  EXPECT_EQ(e[6].line, 9);
  EXPECT_EQ(e[7].kind, AllowKind::kDkim);
  EXPECT_TRUE(List("").empty());
  EXPECT_TRUE(List("# only a comment\n\n   \n").empty());
  EXPECT_TRUE(AllowList().empty());
}

TEST(AllowList, KindNames) {
  EXPECT_EQ(AllowKindName(AllowKind::kDkim), "dkim");
  EXPECT_EQ(AllowKindName(AllowKind::kSpf), "spf");
  EXPECT_EQ(AllowKindName(AllowKind::kSender), "sender");
  EXPECT_EQ(AllowKindName(AllowKind::kListId), "list-id");
  EXPECT_EQ(AllowKindName(AllowKind::kIp), "ip");
  EXPECT_EQ(AllowKindName(AllowKind::kCluster), "cluster");
}

TEST(AllowList, ErrorsNameFileAndLine) {
  EXPECT_EQ(ErrorOf("dkim a.example\n# c\ndkm b.example\n"),
            "allow.txt:3: unknown kind \"dkm\" (dkim, spf, sender, list-id, "
            "ip, cluster)");
  EXPECT_EQ(ErrorOf("\n\n\n\nip 10.0.0.0/33\n"),
            "allow.txt:5: ip: bad CIDR \"10.0.0.0/33\"");
  EXPECT_EQ(ErrorOf("\n\n\n\n\n\ncluster 1234567\n"),
            "allow.txt:7: cluster: expected 8 hex digits");
  EXPECT_EQ(ErrorOf("cluster 1234567g"),
            "allow.txt:1: cluster: expected 8 hex digits");
  EXPECT_EQ(ErrorOf("cluster 123456789"),
            "allow.txt:1: cluster: expected 8 hex digits");
  EXPECT_EQ(ErrorOf("dkim\n"), "allow.txt:1: dkim: missing value");
  EXPECT_EQ(
      ErrorOf("spf a.example b.example\n"),
      "allow.txt:1: spf: expected one value, got \"a.example b.example\"");
  EXPECT_EQ(ErrorOf("dkim *.example.com\n"),
            "allow.txt:1: dkim: bad domain \"*.example.com\" (subdomains "
            "match already; no wildcards)");
  EXPECT_EQ(ErrorOf("spf a..example\n"),
            "allow.txt:1: spf: bad domain \"a..example\" (subdomains match "
            "already; no wildcards)");
  EXPECT_EQ(ErrorOf("sender example.org\n"),
            "allow.txt:1: sender: expected an address pattern with '@', got "
            "\"example.org\"");
  EXPECT_EQ(ErrorOf("list-id <>\n"), "allow.txt:1: list-id: missing value");
  EXPECT_EQ(ErrorOf("ip banana\n"), "allow.txt:1: ip: bad CIDR \"banana\"");
  // CRLF files count lines the same.
  EXPECT_EQ(ErrorOf("dkim a.example\r\nbogus x\r\n"),
            "allow.txt:2: unknown kind \"bogus\" (dkim, spf, sender, list-id, "
            "ip, cluster)");
}

TEST(AllowList, LoadNamesThePath) {
  const std::string missing = "/nonexistent/mailwave/allow.txt";
  const auto l = AllowList::Load(missing);
  ASSERT_FALSE(l.has_value());
  EXPECT_EQ(l.error().message(), missing + ": No such file or directory");
  EXPECT_EQ(l.error().code(), Error::Code::kNotFound);

  const std::string path = (std::filesystem::temp_directory_path() /
                            ("mw_allow_" + std::to_string(getpid()) + ".txt"))
                               .string();
  {
    std::ofstream out(path);
    out << "dkim ok.example\nip 300.0.0.0/8\n";
  }
  const auto bad = AllowList::Load(path);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message(), path + ":2: ip: bad CIDR \"300.0.0.0/8\"");
  {
    std::ofstream out(path);
    out << "dkim ok.example\n";
  }
  const auto good = AllowList::Load(path);
  ASSERT_TRUE(good.has_value());
  EXPECT_EQ(good->entries().size(), 1u);
  std::remove(path.c_str());
}

TEST(AllowList, Dkim) {
  const AllowList l = List("dkim example.com\n");
  Identity id = Authenticated("example.com");
  id.dkim_domains = {"esp.example", "news.example.com"};
  ASSERT_NE(l.Match(id, Psl().get()), nullptr);
  EXPECT_EQ(l.Match(id, Psl().get())->line, 1);
  id.dkim_domains = {"example.com"};
  EXPECT_NE(l.Match(id, nullptr), nullptr);
  // Not a subdomain; a look-alike suffix; no trusted pass at all.
  id.dkim_domains = {"notexample.com", "example.com.evil.example"};
  EXPECT_EQ(l.Match(id, Psl().get()), nullptr);
  Identity unauth;
  unauth.domain = "example.com";
  unauth.source = Source::kEnvelope;
  unauth.sender = "news@example.com";
  unauth.from_domain = "example.com";
  EXPECT_EQ(l.Match(unauth, Psl().get()), nullptr);
}

TEST(AllowList, Spf) {
  const AllowList l = List("spf esp.example\n");
  Identity id = Authenticated("esp.example");
  id.source = Source::kSpf;
  id.spf_domain = "bounces.esp.example";
  EXPECT_NE(l.Match(id, Psl().get()), nullptr);
  id.spf_domain = "esp.example.net";
  EXPECT_EQ(l.Match(id, Psl().get()), nullptr);
  // A DKIM pass is not an SPF pass.
  id.spf_domain = "";
  id.dkim_domains = {"esp.example"};
  EXPECT_EQ(l.Match(id, Psl().get()), nullptr);
}

TEST(AllowList, SenderNeedsAuthenticationOfItsDomain) {
  const AllowList l = List("sender news-*@brand.example\n");
  Identity id;
  id.sender = "news-#@brand.example";
  id.domain = "brand.example";
  id.source = Source::kEnvelope;
  // Unauthenticated: the address alone buys nothing.
  EXPECT_EQ(l.Match(id, Psl().get()), nullptr);
  // A pass for another organisation does not help either.
  id.dkim_domains = {"esp.example"};
  id.spf_domain = "esp.example";
  EXPECT_EQ(l.Match(id, Psl().get()), nullptr);
  // A DKIM pass of a subdomain of the sender's organisation does.
  id.dkim_domains = {"esp.example", "mail.brand.example"};
  EXPECT_NE(l.Match(id, Psl().get()), nullptr);
  // So does SPF for its domain.
  id.dkim_domains.clear();
  id.spf_domain = "brand.example";
  EXPECT_NE(l.Match(id, Psl().get()), nullptr);
  // The pattern must match, without case.
  id.sender = "billing@brand.example";
  EXPECT_EQ(l.Match(id, Psl().get()), nullptr);
  EXPECT_NE(List("sender *@BRAND.example").Match(id, Psl().get()), nullptr);
  id.sender = "";
  EXPECT_EQ(List("sender *@*").Match(id, Psl().get()), nullptr);
}

TEST(AllowList, SenderRegistrableDomainsNeedTheList) {
  const AllowList l = List("sender *@shop.example.co.uk\n");
  Identity id;
  id.sender = "orders@shop.example.co.uk";
  id.dkim_domains = {"mail.example.co.uk"};
  EXPECT_NE(l.Match(id, Psl().get()), nullptr);
  // Without the list only a sub/superdomain counts: siblings do not.
  EXPECT_EQ(l.Match(id, nullptr), nullptr);
  id.dkim_domains = {"example.co.uk"};
  EXPECT_NE(l.Match(id, nullptr), nullptr);
  // Two registrants under one public suffix are not one organisation.
  id.dkim_domains = {"other.co.uk"};
  EXPECT_EQ(l.Match(id, Psl().get()), nullptr);
}

TEST(AllowList, ListIdNeedsTheListHostsAuthenticatedDomain) {
  const AllowList l = List("list-id *.lists.example.org\n");
  Identity id = Authenticated("example.org");
  id.list_id = "users.lists.example.org";
  EXPECT_NE(l.Match(id, Psl().get()), nullptr);
  // Authenticated, but as another domain: anyone can write a List-Id.
  Identity other = Authenticated("spammer.example");
  other.list_id = "users.lists.example.org";
  EXPECT_EQ(l.Match(other, Psl().get()), nullptr);
  // The right domain, unauthenticated.
  Identity unauth = id;
  unauth.source = Source::kEnvelope;
  unauth.authenticated = false;
  EXPECT_EQ(l.Match(unauth, Psl().get()), nullptr);
  // The pattern must match.
  id.list_id = "users.example.org";
  EXPECT_EQ(l.Match(id, Psl().get()), nullptr);
  id.list_id = "";
  EXPECT_EQ(l.Match(id, Psl().get()), nullptr);
  // Exact ids; without the suffix list the subdomain relation stands in.
  Identity exact = Authenticated("python.org");
  exact.list_id = "spambayes.python.org";
  EXPECT_NE(List("list-id <spambayes.python.org>").Match(exact, nullptr),
            nullptr);
  EXPECT_EQ(List("list-id spambayes.python.org.uk").Match(exact, nullptr),
            nullptr);
}

TEST(AllowList, Ip) {
  const AllowList l = List(
      "dkim unrelated.example\nip 192.0.2.0/24\nip 2001:db8::/32\n"
      "dkim also-unrelated.example\nip 198.51.100.7\n");
  Identity id;
  id.client_ip = "192.0.2.99";
  ASSERT_NE(l.Match(id, nullptr), nullptr);
  EXPECT_EQ(l.Match(id, nullptr)->line, 2);
  id.client_ip = "[IPv6:2001:db8:1::1]";
  ASSERT_NE(l.Match(id, nullptr), nullptr);
  EXPECT_EQ(l.Match(id, nullptr)->line, 3);
  id.client_ip = "198.51.100.7";
  ASSERT_NE(l.Match(id, nullptr), nullptr);
  EXPECT_EQ(l.Match(id, nullptr)->line, 5);
  id.client_ip = "198.51.100.8";
  EXPECT_EQ(l.Match(id, nullptr), nullptr);
  id.client_ip = "";
  EXPECT_EQ(l.Match(id, nullptr), nullptr);
}

TEST(AllowList, Cluster) {
  const AllowList l = List("cluster 0000beef\ncluster DEADBEEF\n");
  ASSERT_NE(l.MatchCluster(0xdeadbeef), nullptr);
  EXPECT_EQ(l.MatchCluster(0xdeadbeef)->line, 2);
  EXPECT_EQ(l.MatchCluster(0xbeef)->line, 1);
  EXPECT_EQ(l.MatchCluster(0xdeadbee0), nullptr);
  // Cluster entries never match an identity.
  Identity id = Authenticated("example.org");
  EXPECT_EQ(l.Match(id, nullptr), nullptr);
  EXPECT_EQ(AllowList().MatchCluster(0), nullptr);
}

TEST(AllowList, FirstMatchInFileOrder) {
  const AllowList l = List("ip 192.0.2.0/24\ndkim example.org\n");
  Identity id = Authenticated("example.org");
  id.dkim_domains = {"example.org"};
  id.client_ip = "192.0.2.1";
  EXPECT_EQ(l.Match(id, nullptr)->kind, AllowKind::kIp);
  id.client_ip = "203.0.113.1";
  EXPECT_EQ(l.Match(id, nullptr)->kind, AllowKind::kDkim);
}

}  // namespace
}  // namespace mw::sender
