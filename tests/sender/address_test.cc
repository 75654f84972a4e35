// Tests for AddressOf and DomainOf (sender/src/address.cc).
#include "sender/address.h"

#include <gtest/gtest.h>

namespace mw::sender {
namespace {

TEST(AddressOf, AngleAddress) {
  EXPECT_EQ(AddressOf("Name <Local@Example.ORG>"), "Local@Example.ORG");
  EXPECT_EQ(AddressOf("<bounce@example.org>"), "bounce@example.org");
  EXPECT_EQ(AddressOf("  < spaced@example.org >  "), "spaced@example.org");
  EXPECT_EQ(AddressOf("<>"), "");
  EXPECT_EQ(AddressOf("Name <unclosed@example.org"), "unclosed@example.org");
}

TEST(AddressOf, DisplayNameMayHoldSpecials) {
  EXPECT_EQ(AddressOf("\"Doe, John <boss@evil.example>\" <john@example.org>"),
            "john@example.org");
  EXPECT_EQ(AddressOf("(comment <x@evil.example>) Name <a@example.org>"),
            "a@example.org");
  EXPECT_EQ(AddressOf("\"quoted \\\" still\" <a@example.org>"),
            "a@example.org");
}

TEST(AddressOf, BareAddress) {
  EXPECT_EQ(AddressOf("  user@example.org  "), "user@example.org");
  EXPECT_EQ(AddressOf("user@example.org (User Name)"), "user@example.org");
  EXPECT_EQ(AddressOf("first@example.org, second@example.net"),
            "first@example.org");
  EXPECT_EQ(AddressOf(""), "");
  EXPECT_EQ(AddressOf("   "), "");
}

TEST(AddressOf, SourceRoute) {
  EXPECT_EQ(AddressOf("<@relay.example,@hop.example:user@example.org>"),
            "user@example.org");
}

TEST(DomainOf, LowerCaseAfterTheLastAt) {
  EXPECT_EQ(DomainOf("User@Mail.Example.ORG"), "mail.example.org");
  EXPECT_EQ(DomainOf("\"a@b\"@example.org"), "example.org");
  EXPECT_EQ(DomainOf("@example.com"), "example.com");
  EXPECT_EQ(DomainOf("user@example.org."), "example.org");
  EXPECT_EQ(DomainOf("no-at-sign"), "");
  EXPECT_EQ(DomainOf(""), "");
}

}  // namespace
}  // namespace mw::sender
