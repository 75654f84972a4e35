// Tests for FoldAddress (sender/src/fold.cc).
#include <gtest/gtest.h>

#include <string>

#include "sender/address.h"

namespace mw::sender {
namespace {

TEST(FoldAddress, HeaderExamples) {
  EXPECT_EQ(FoldAddress("prvs=1234abcd=user@d.example"), "user@d.example");
  EXPECT_EQ(FoldAddress("btv1==1234abcd5678==user@d.example"),
            "user@d.example");
  EXPECT_EQ(FoldAddress("SRS0=HHH=TT=orig.example=user@fwd.example"),
            "user@orig.example");
  EXPECT_EQ(FoldAddress(
                "SRS1=HHH=fwd1.example==HHH=TT=orig.example=user@fwd.example"),
            "user@orig.example");
  EXPECT_EQ(FoldAddress("list-bounces+user=rcpt.example@list.example"),
            "list-bounces@list.example");
  EXPECT_EQ(FoldAddress("user+tag@d.example"), "user@d.example");
  EXPECT_EQ(FoldAddress("bounce-4f3a9c21d0-20240517@esp.example"),
            "bounce-#-#@esp.example");
  EXPECT_EQ(FoldAddress(""), "");
}

TEST(FoldAddress, LowerCases) {
  EXPECT_EQ(FoldAddress("John.Smith@Example.ORG"), "john.smith@example.org");
  EXPECT_EQ(FoldAddress("<User@Example.org>"), "user@example.org");
}

TEST(FoldAddress, OrdinaryNamesStay) {
  EXPECT_EQ(FoldAddress("john.smith@example.org"), "john.smith@example.org");
  EXPECT_EQ(FoldAddress("deadbeef@example.org"), "deadbeef@example.org");
  EXPECT_EQ(FoldAddress("news2024@example.org"), "news2024@example.org");
  EXPECT_EQ(FoldAddress("bounce-17@example.org"), "bounce-17@example.org");
  EXPECT_EQ(FoldAddress("a.12345@example.org"), "a.12345@example.org");
  EXPECT_EQ(FoldAddress("accede@example.org"), "accede@example.org");
  EXPECT_EQ(FoldAddress("+start@example.org"), "+start@example.org");
  EXPECT_EQ(FoldAddress("postmaster"), "postmaster");
}

TEST(FoldAddress, Tokens) {
  EXPECT_EQ(FoldAddress("a.123456@example.org"), "a.#@example.org");
  EXPECT_EQ(FoldAddress("msg_ABCDEF0_x@example.org"), "msg_#_x@example.org");
  EXPECT_EQ(FoldAddress("bounces=0a1b2c3d4e5f@esp.example"),
            "bounces=#@esp.example");
  // The domain is never folded.
  EXPECT_EQ(FoldAddress("news@123456.example"), "news@123456.example");
  // A real Yahoo Groups return path (tests/fixtures/sender): numbers folded,
  // the 5-digit message number and the recipient stay (no '+').
  EXPECT_EQ(FoldAddress("sentto-2242572-55982-1034029763-zzzz=spamassassin."
                        "taint.org@returns.groups.yahoo.com"),
            "sentto-#-55982-#-zzzz=spamassassin.taint.org@returns.groups."
            "yahoo.com");
}

TEST(FoldAddress, NestedAndSeparatorVariants) {
  // SRS around BATV, SRS with '+' and '-' separators.
  EXPECT_EQ(
      FoldAddress("SRS0=x1=AB=orig.example=prvs=0123abcd=news@fwd.example"),
      "news@orig.example");
  EXPECT_EQ(FoldAddress("SRS0+x1=AB=orig.example=user@fwd.example"),
            "user@orig.example");
  EXPECT_EQ(FoldAddress("SRS1-x=hop.example=-y=AB=orig.example=u@f.example"),
            "u@orig.example");
  // BATV on a VERP address with a token.
  EXPECT_EQ(
      FoldAddress("prvs=9a8b7c6d5e=bounce-00012345+r=x.example@esp.example"),
      "bounce-#@esp.example");
}

TEST(FoldAddress, MalformedWrappersStay) {
  EXPECT_EQ(FoldAddress("prvs=@d.example"), "prvs=@d.example");
  EXPECT_EQ(FoldAddress("prvs=tagonly@d.example"), "prvs=tagonly@d.example");
  EXPECT_EQ(FoldAddress("srs0=a=b@d.example"), "srs0=a=b@d.example");
  EXPECT_EQ(FoldAddress("srs1=a@d.example"), "srs1=a@d.example");
  EXPECT_EQ(FoldAddress("btv1==abc@d.example"), "btv1==abc@d.example");
}

TEST(FoldAddress, IsIdempotent) {
  for (const char* a :
       {"prvs=1234abcd=user@d.example", "list-bounces+u=r.example@l.example",
        "SRS0=HHH=TT=orig.example=user@fwd.example",
        "bounce-4f3a9c21d0-20240517@esp.example", "john.smith@example.org"}) {
    const std::string once = FoldAddress(a);
    EXPECT_EQ(FoldAddress(once), once) << a;
  }
}

TEST(FoldAddress, HostileUnwrapIsBounded) {
  std::string a;
  for (int i = 0; i < 10000; ++i) a += "prvs=x=";
  a += "user@d.example";
  EXPECT_FALSE(FoldAddress(a).empty());
}

}  // namespace
}  // namespace mw::sender
