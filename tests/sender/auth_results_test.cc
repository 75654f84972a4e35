// Tests for Authentication-Results parsing (sender/src/auth_results.cc):
// RFC 8601 appendix B, the forms real verifiers write, and garbage.
#include "sender/auth_results.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

namespace mw::sender {
namespace {

using Props = std::vector<std::pair<std::string, std::string>>;

AuthResults Parsed(std::string_view value) {
  const auto r = ParseAuthResults(value);
  EXPECT_TRUE(r.has_value()) << value;
  return r.value_or(AuthResults{});
}

// RFC 8601 B.2: nothing done, with a version.
TEST(ParseAuthResults, NoneWithVersion) {
  const AuthResults r = Parsed("example.org 1; none");
  EXPECT_EQ(r.authserv_id, "example.org");
  EXPECT_TRUE(r.results.empty());
  EXPECT_TRUE(Parsed("example.org;none").results.empty());
  EXPECT_TRUE(Parsed("example.org; none (nothing checked)").results.empty());
  EXPECT_TRUE(Parsed("example.org").results.empty());
}

// RFC 8601 B.3.
TEST(ParseAuthResults, SpfPass) {
  const AuthResults r =
      Parsed("example.com; spf=pass smtp.mailfrom=example.net");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].method, "spf");
  EXPECT_EQ(r.results[0].result, "pass");
  EXPECT_EQ(r.results[0].properties, (Props{{"smtp.mailfrom", "example.net"}}));
}

// RFC 8601 B.4, unfolded as ReadHeader gives it.
TEST(ParseAuthResults, SeveralResultsWithComments) {
  const AuthResults r = Parsed(
      "example.com;\n          auth=pass (cram-md5) "
      "smtp.auth=sender@example.net;"
      "\n          spf=pass smtp.mailfrom=example.net");
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0].method, "auth");
  EXPECT_EQ(r.results[0].Property("smtp.auth"), "sender@example.net");
  EXPECT_EQ(r.results[1].method, "spf");
  EXPECT_EQ(r.results[1].Property("smtp.mailfrom"), "example.net");
  const AuthResults iprev =
      Parsed("example.com; iprev=pass\n          policy.iprev=192.0.2.200");
  ASSERT_EQ(iprev.results.size(), 1u);
  EXPECT_EQ(iprev.results[0].Property("policy.iprev"), "192.0.2.200");
}

// RFC 8601 B.5 and B.6: DKIM, two signatures, one failing.
TEST(ParseAuthResults, DkimSignatures) {
  const AuthResults r = Parsed(
      "mail-router.example.net;\n"
      "          dkim=pass (good signature) header.d=newyork.example.com\n"
      "                header.b=oINEO8hg;\n"
      "          dkim=fail (bad signature) header.d=newyork.example.com\n"
      "                header.b=EToRSuvU");
  EXPECT_EQ(r.authserv_id, "mail-router.example.net");
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0].result, "pass");
  EXPECT_EQ(r.results[0].properties, (Props{{"header.d", "newyork.example.com"},
                                            {"header.b", "oINEO8hg"}}));
  EXPECT_EQ(r.results[1].result, "fail");
  EXPECT_EQ(r.results[1].Property("header.b"), "EToRSuvU");
}

// RFC 8601 B.7: an unknown method is kept, its comment skipped.
TEST(ParseAuthResults, UnknownMethodKept) {
  const AuthResults r =
      Parsed("example.com;\n      foo=pass bar.baz=blob (2 of 3 tests OK)");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].method, "foo");
  EXPECT_EQ(r.results[0].Property("bar.baz"), "blob");
}

// What Gmail, OpenDKIM/OpenDMARC and Microsoft write.
TEST(ParseAuthResults, RealVerifiers) {
  const AuthResults gmail = Parsed(
      "mx.google.com;       dkim=pass header.i=@github.com "
      "header.s=pf2023 header.b=\"Jq7/k+Lz\";       spf=pass (google.com: "
      "domain of noreply@github.com designates 192.30.252.201 as permitted "
      "sender) smtp.mailfrom=noreply@github.com;       dmarc=pass (p=REJECT "
      "sp=REJECT dis=NONE) header.from=github.com");
  ASSERT_EQ(gmail.results.size(), 3u);
  EXPECT_EQ(gmail.results[0].Property("header.i"), "@github.com");
  EXPECT_EQ(gmail.results[0].Property("header.b"), "Jq7/k+Lz");
  EXPECT_EQ(gmail.results[1].Property("smtp.mailfrom"), "noreply@github.com");
  EXPECT_EQ(gmail.results[2].method, "dmarc");
  EXPECT_EQ(gmail.results[2].Property("header.from"), "github.com");

  const AuthResults opendkim = Parsed(
      "mx.example.org; dkim=pass (2048-bit key; unprotected) "
      "header.d=esp.example header.i=@esp.example header.a=rsa-sha256 "
      "header.s=s1 header.b=Ab+/c=");
  ASSERT_EQ(opendkim.results.size(), 1u);
  EXPECT_EQ(opendkim.results[0].Property("header.d"), "esp.example");
  EXPECT_EQ(opendkim.results[0].Property("header.b"), "Ab+/c=");

  const AuthResults microsoft = Parsed(
      "spf=pass (sender IP is 40.107.1.1) smtp.mailfrom=Example.COM; "
      "dkim=pass (signature was verified) header.d=Example.com;dmarc=pass "
      "action=none header.from=example.com;compauth=pass reason=100");
  // "spf=pass" is no authserv-id followed by ';': the first "resinfo" is
  // malformed, nothing is read.
  EXPECT_EQ(microsoft.authserv_id, "spf=pass");
  EXPECT_TRUE(microsoft.results.empty());
}

TEST(ParseAuthResults, CaseOfNamesIsLoweredValuesKept) {
  const AuthResults r =
      Parsed("MX.Example.ORG; DKIM=Pass Header.D=Example.COM");
  EXPECT_EQ(r.authserv_id, "MX.Example.ORG");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].method, "dkim");
  EXPECT_EQ(r.results[0].result, "pass");
  EXPECT_EQ(r.results[0].properties, (Props{{"header.d", "Example.COM"}}));
  EXPECT_EQ(r.results[0].Property("HEADER.D"), "Example.COM");
  EXPECT_EQ(r.results[0].Property("header.i"), std::nullopt);
}

TEST(ParseAuthResults, ReasonAndMethodVersion) {
  const AuthResults r = Parsed(
      "example.com; dkim/1=fail reason=\"signature; expired\" "
      "header.d=example.net; spf = pass reason = ok smtp . mailfrom = "
      "a@example.org");
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0].method, "dkim");
  EXPECT_EQ(r.results[0].properties, (Props{{"header.d", "example.net"}}));
  EXPECT_EQ(r.results[1].properties,
            (Props{{"smtp.mailfrom", "a@example.org"}}));
}

TEST(ParseAuthResults, CommentsNestAndHideSemicolons) {
  const AuthResults r = Parsed(
      "(lead) example.com (a (nested; one) \\) x) 1 (v); dkim=pass "
      "(c;d (e;f)) header.d=example.net(tail); spf=none");
  EXPECT_EQ(r.authserv_id, "example.com");
  ASSERT_EQ(r.results.size(), 2u);
  EXPECT_EQ(r.results[0].Property("header.d"), "example.net");
  EXPECT_EQ(r.results[1].result, "none");
}

TEST(ParseAuthResults, QuotedStrings) {
  const AuthResults r = Parsed(
      "\"quoted id\"; spf=pass smtp.mailfrom=\"odd user\"@example.org "
      "policy.x=\"a \\\"b\\\" ; c\"");
  EXPECT_EQ(r.authserv_id, "quoted id");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].Property("smtp.mailfrom"), "odd user@example.org");
  EXPECT_EQ(r.results[0].Property("policy.x"), "a \"b\" ; c");
}

TEST(ParseAuthResults, VersionOnlyWhenDigitsStandAlone) {
  EXPECT_EQ(Parsed("mx.example.org 1; spf=pass smtp.mailfrom=a.example")
                .results.size(),
            1u);
  EXPECT_EQ(Parsed("mx.example.org 1(c); spf=pass").results.size(), 1u);
  // "12abc" is not a version: the ';' expected after the id is missing.
  EXPECT_TRUE(Parsed("mx.example.org 12abc; spf=pass").results.empty());
}

TEST(ParseAuthResults, MalformedResinfoEndsTheList) {
  const AuthResults r = Parsed(
      "example.com; dkim=pass header.d=a.example; spf=pass smtp; "
      "dmarc=pass header.from=a.example");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].Property("header.d"), "a.example");
  EXPECT_TRUE(Parsed("example.com; =pass").results.empty());
  EXPECT_TRUE(Parsed("example.com; dkim=").results.empty());
  EXPECT_TRUE(Parsed("example.com; dkim pass").results.empty());
  EXPECT_TRUE(Parsed("example.com; dkim=pass header.d=\"open").results.empty());
  EXPECT_EQ(Parsed("example.com; spf=pass; ; dkim=pass").results.size(), 1u);
}

TEST(ParseAuthResults, NoAuthservId) {
  EXPECT_FALSE(ParseAuthResults("").has_value());
  EXPECT_FALSE(ParseAuthResults("   (just a comment)  ").has_value());
  EXPECT_FALSE(ParseAuthResults("; spf=pass").has_value());
  EXPECT_FALSE(ParseAuthResults("\"\"; spf=pass").has_value());
  EXPECT_FALSE(ParseAuthResults("\"unterminated; spf=pass").has_value());
}

TEST(ParseAuthResults, UnterminatedCommentEndsTheField) {
  const AuthResults r = Parsed("example.com; spf=pass (oops smtp.mailfrom=x");
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_TRUE(r.results[0].properties.empty());
}

TEST(ParseAuthResults, HostileInputIsBounded) {
  // Deep nesting and long runs: linear work, no recursion.
  std::string deep = "example.com; spf=pass " + std::string(200000, '(');
  EXPECT_EQ(Parsed(deep).results.size(), 1u);
  std::string many = "example.com";
  for (int i = 0; i < 20000; ++i) many += "; dkim=pass header.d=d.example";
  EXPECT_EQ(Parsed(many).results.size(), 20000u);
  std::mt19937 rng(22);
  const std::string alphabet = "ab.=;()\"\\@ \t\r\n/1x";
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 64, ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    const auto r = ParseAuthResults(s);
    if (r) {
      for (const AuthResult& a : r->results) {
        EXPECT_FALSE(a.method.empty());
        EXPECT_FALSE(a.result.empty());
      }
    }
  }
}

}  // namespace
}  // namespace mw::sender
