// Tests for Identify (sender/src/identity.cc): which Authentication-Results
// are trusted, which identity is chosen, the unauthenticated fallbacks.
#include "sender/identity.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/sender/testutil.h"

namespace mw::sender {
namespace {

using testing::Fixture;

std::shared_ptr<const SuffixList> Psl() {
  static const std::shared_ptr<const SuffixList> list = [] {
    auto l = SuffixList::Open();
    EXPECT_TRUE(l.has_value());
    return l ? *l : nullptr;
  }();
  return list;
}

Options Trusting(std::vector<std::string> ids, bool psl = true) {
  Options o;
  o.trusted_authserv_ids = std::move(ids);
  o.suffixes = psl ? Psl().get() : nullptr;
  return o;
}

Identity Id(const std::string& raw, const Envelope& env,
            const Options& options) {
  const std::vector<Field> header = ReadHeader(raw);
  return Identify(header, env, options);
}

const Envelope kEnv{"bounce@esp.example", "192.0.2.10"};

TEST(Identify, DkimPassFromTrustedResults) {
  const Identity id =
      Id("Authentication-Results: mx.example.net; dkim=pass "
         "header.d=News.Shop.Example.co.uk\n"
         "Received: from x by mx.example.net\n"
         "From: Shop <news@shop.example.co.uk>\n\nbody",
         kEnv, Trusting({"mx.example.net"}));
  EXPECT_EQ(id.source, Source::kDkim);
  EXPECT_TRUE(id.authenticated);
  EXPECT_EQ(id.domain, "example.co.uk");
  EXPECT_EQ(id.dkim_domains,
            std::vector<std::string>{"news.shop.example.co.uk"});
  EXPECT_EQ(id.Key(), "a:example.co.uk");
  EXPECT_EQ(id.from_domain, "shop.example.co.uk");
  EXPECT_EQ(id.sender, "bounce@esp.example");
  EXPECT_EQ(id.client_ip, "192.0.2.10");
  EXPECT_EQ(id.network, "192.0.2.0/24");
}

TEST(Identify, HeaderIWhenNoHeaderD) {
  const Identity id =
      Id("Authentication-Results: mx.example.net; dkim=pass "
         "header.i=@Lists.Example.org\n",
         kEnv, Trusting({"mx.example.net"}));
  EXPECT_EQ(id.source, Source::kDkim);
  EXPECT_EQ(id.dkim_domains, std::vector<std::string>{"lists.example.org"});
  EXPECT_EQ(id.domain, "example.org");
}

TEST(Identify, AlignedDkimAmongSeveral) {
  const std::string raw =
      "Authentication-Results: mx.example.net;\n"
      " dkim=pass header.d=esp.example header.s=s1;\n"
      " dkim=fail header.d=forged.example;\n"
      " dkim=pass header.d=mail.brand.example header.s=s2\n"
      "From: Brand <hello@news.brand.example>\n";
  const Identity id = Id(raw, kEnv, Trusting({"mx.example.net"}));
  EXPECT_EQ(id.source, Source::kDkim);
  EXPECT_EQ(id.domain, "brand.example");
  EXPECT_EQ(id.dkim_domains,
            (std::vector<std::string>{"esp.example", "mail.brand.example"}));
  // Without the suffix list, alignment is "one is the other's subdomain",
  // and the domain stays as written: mail. and news. are siblings that
  // nothing says are one organisation, so the first signature wins...
  EXPECT_EQ(Id(raw, kEnv, Trusting({"mx.example.net"}, false)).domain,
            "esp.example");
  // ...while From at the parent domain aligns.
  std::string parent = raw;
  parent.replace(parent.find("news.brand"), 10, "brand");
  EXPECT_EQ(Id(parent, kEnv, Trusting({"mx.example.net"}, false)).domain,
            "mail.brand.example");
  // No aligned one: the first.
  const Identity first = Id(
      "Authentication-Results: mx.example.net; dkim=pass header.d=esp.example;"
      " dkim=pass header.d=other.example\nFrom: a@brand.example\n",
      kEnv, Trusting({"mx.example.net"}));
  EXPECT_EQ(first.domain, "esp.example");
}

TEST(Identify, SpfWhenNoDkim) {
  const Identity id = Id(
      "Authentication-Results: mx.example.net; dkim=fail header.d=esp.example;"
      " spf=pass smtp.mailfrom=Bounce+x=y@Mail.ESP.example; dmarc=pass\n",
      kEnv, Trusting({"mx.example.net"}));
  EXPECT_EQ(id.source, Source::kSpf);
  EXPECT_TRUE(id.authenticated);
  EXPECT_EQ(id.spf_domain, "mail.esp.example");
  EXPECT_EQ(id.domain, "esp.example");
  EXPECT_TRUE(id.dkim_domains.empty());
  EXPECT_TRUE(id.dmarc_pass);
  EXPECT_EQ(id.Key(), "a:esp.example");
  // A bare domain is allowed; smtp.helo is not used.
  EXPECT_EQ(Id("Authentication-Results: mx.example.net; spf=pass "
               "smtp.mailfrom=esp.example\n",
               kEnv, Trusting({"mx.example.net"}))
                .spf_domain,
            "esp.example");
  const Identity helo =
      Id("Authentication-Results: mx.example.net; spf=pass "
         "smtp.helo=mta.esp.example\n",
         Envelope{"", "192.0.2.10"}, Trusting({"mx.example.net"}));
  EXPECT_EQ(helo.spf_domain, "");
  EXPECT_EQ(helo.source, Source::kNone);
  EXPECT_EQ(helo.Key(), "");
}

TEST(Identify, EnvelopeFallback) {
  const Identity id = Id("From: x@brand.example\n",
                         Envelope{"<Bounce-123456@Mail.ESP.Example>", ""},
                         Trusting({"mx.example.net"}));
  EXPECT_EQ(id.source, Source::kEnvelope);
  EXPECT_FALSE(id.authenticated);
  EXPECT_EQ(id.domain, "esp.example");
  EXPECT_EQ(id.sender, "bounce-#@mail.esp.example");
  EXPECT_EQ(id.Key(), "u:esp.example");
  EXPECT_EQ(id.network, "");
  // SRS: the folded address names the original domain.
  EXPECT_EQ(
      Id("", Envelope{"SRS0=h=tt=orig.example=u@fwd.example", ""}, Trusting({}))
          .domain,
      "orig.example");
}

TEST(Identify, NullSenderUsesFrom) {
  const Identity id =
      Id("From: \"Mailer\" <MAILER-DAEMON@Mx.Example.co.uk>\n",
         Envelope{"<>", "2001:db8:5::1"}, Trusting({"mx.example.net"}));
  EXPECT_EQ(id.source, Source::kEnvelope);
  EXPECT_EQ(id.sender, "");
  EXPECT_EQ(id.domain, "example.co.uk");
  EXPECT_EQ(id.Key(), "u:example.co.uk");
  EXPECT_EQ(id.network, "2001:db8:5::/48");
}

TEST(Identify, NothingToNameTheSenderBy) {
  const Identity id = Id("Subject: hi\n", Envelope{"", ""}, Trusting({}));
  EXPECT_EQ(id.source, Source::kNone);
  EXPECT_EQ(id.domain, "");
  EXPECT_FALSE(id.authenticated);
  EXPECT_EQ(id.Key(), "");
  EXPECT_EQ(Identify({}, Envelope{}, Options{}).Key(), "");
}

TEST(Identify, UntrustedAuthservIdIgnored) {
  const Identity id =
      Id("Authentication-Results: mx.other.example; dkim=pass "
         "header.d=paypal.com\n"
         "Received: from x by mx.example.net\n",
         kEnv, Trusting({"mx.example.net"}));
  EXPECT_EQ(id.source, Source::kEnvelope);
  EXPECT_TRUE(id.dkim_domains.empty());
  EXPECT_EQ(id.Key(), "u:esp.example");
  // No trusted ids: nothing is trusted.
  EXPECT_EQ(Id("Authentication-Results: mx.example.net; dkim=pass "
               "header.d=a.example\n",
               kEnv, Trusting({}))
                .source,
            Source::kEnvelope);
}

TEST(Identify, AuthservIdComparedWithoutCase) {
  const Identity id =
      Id("Authentication-Results: MX.Example.NET; dkim=pass "
         "header.d=brand.example\n",
         kEnv, Trusting({"other.example", "mx.example.net"}));
  EXPECT_EQ(id.source, Source::kDkim);
  EXPECT_EQ(id.domain, "brand.example");
}

TEST(Identify, ResultsBelowTheFirstReceivedIgnored) {
  // A trusted id, but below the first Received: the sender wrote it.
  const Identity id = Id(
      "Authentication-Results: mx.example.net; spf=softfail "
      "smtp.mailfrom=esp.example\n"
      "Received: from evil by mx.example.net\n"
      "Authentication-Results: mx.example.net; dkim=pass header.d=paypal.com;"
      " spf=pass smtp.mailfrom=paypal.com; dmarc=pass\n"
      "Received: from a by b\n",
      kEnv, Trusting({"mx.example.net"}));
  EXPECT_EQ(id.source, Source::kEnvelope);
  EXPECT_TRUE(id.dkim_domains.empty());
  EXPECT_EQ(id.spf_domain, "");
  EXPECT_FALSE(id.dmarc_pass);
  // The Received name without case too.
  EXPECT_EQ(Id("RECEIVED: x\nAuthentication-Results: mx.example.net; dkim=pass "
               "header.d=paypal.com\n",
               kEnv, Trusting({"mx.example.net"}))
                .source,
            Source::kEnvelope);
}

TEST(Identify, ListId) {
  const Identity id =
      Id("List-Id: \"Users <list>\" <Users.Lists.Example.ORG>\n"
         "List-Id: <second.example>\n",
         kEnv, Trusting({}));
  EXPECT_EQ(id.list_id, "users.lists.example.org");
  EXPECT_EQ(Id("List-Id: bare.example\n", kEnv, Trusting({})).list_id,
            "bare.example");
}

TEST(Identify, RealListMessage) {
  const Envelope env{"spambayes-bounces+yyyy=spamassassin.taint.org@python.org",
                     "12.155.117.29"};
  const Identity id =
      Id(Fixture("list-mailman.hdr"), env, Trusting({"mx.example.net"}));
  EXPECT_EQ(id.source, Source::kDkim);
  EXPECT_EQ(id.domain, "python.org");
  EXPECT_EQ(id.Key(), "a:python.org");
  EXPECT_EQ(id.dkim_domains, std::vector<std::string>{"python.org"});
  EXPECT_EQ(id.spf_domain, "python.org");
  EXPECT_FALSE(id.dmarc_pass);  // dmarc=none
  EXPECT_EQ(id.from_domain, "example.com");
  EXPECT_EQ(id.list_id, "spambayes.python.org");
  EXPECT_EQ(id.sender, "spambayes-bounces@python.org");
  EXPECT_EQ(id.network, "12.155.117.0/24");
  // Another MX's view: its results are not ours.
  EXPECT_EQ(
      Id(Fixture("list-mailman.hdr"), env, Trusting({"mx.example.org"})).Key(),
      "u:python.org");
}

TEST(Identify, RealMessageWithForgedResults) {
  const Envelope env{
      "sentto-2242572-55982-1034029763-zzzz=spamassassin.taint.org@returns."
      "groups.yahoo.com",
      "66.218.66.69"};
  const Identity id =
      Id(Fixture("groups-forged.hdr"), env, Trusting({"mx.example.net"}));
  // The forged pass for paypal.com sits below the first Received.
  EXPECT_EQ(id.source, Source::kEnvelope);
  EXPECT_TRUE(id.dkim_domains.empty());
  EXPECT_EQ(id.spf_domain, "");
  EXPECT_EQ(id.domain, "yahoo.com");
  EXPECT_EQ(id.Key(), "u:yahoo.com");
  EXPECT_EQ(id.from_domain, "example.com");
  EXPECT_EQ(id.list_id, "");
  EXPECT_EQ(id.network, "66.218.66.0/24");
}

TEST(SourceName, Names) {
  EXPECT_EQ(SourceName(Source::kNone), "none");
  EXPECT_EQ(SourceName(Source::kDkim), "dkim");
  EXPECT_EQ(SourceName(Source::kSpf), "spf");
  EXPECT_EQ(SourceName(Source::kEnvelope), "envelope");
}

}  // namespace
}  // namespace mw::sender
