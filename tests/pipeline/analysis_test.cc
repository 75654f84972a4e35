// One message's analysis on real fixture mail: what it reads from the headers,
// typed warnings, and the work budget.
#include "pipeline/analysis.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "testutil.h"

namespace mw::pipeline {
namespace {

using testing::Env;
using testing::Fixture;
using testing::TestAnalyzer;
using testing::TestSettings;

TEST(Analyze, RealMessage) {
  auto analyzer = TestAnalyzer();
  ASSERT_NE(analyzer, nullptr);
  const std::string bytes = Fixture("fp-faq-a.eml");
  auto a = analyzer->Analyze(bytes, {});
  ASSERT_TRUE(a.has_value()) << a.error().message();
  EXPECT_EQ(a->size, bytes.size());
  EXPECT_EQ(a->language.code, "en");
  EXPECT_GT(a->fingerprint.body_bytes, 1000u);
  EXPECT_EQ(a->body_bytes, a->fingerprint.body_bytes);
  EXPECT_EQ(a->sender,
            "sender@example.org");  // From: no envelope, no Return-Path
  EXPECT_FALSE(a->degraded);
  EXPECT_FALSE(mime::NormalisationDegraded());  // ICU's data is installed
  EXPECT_GT(a->timings.parse.count() + a->timings.fingerprint.count(), 0);
}

TEST(Analyze, HeadersAndEnvelope) {
  auto analyzer = TestAnalyzer();
  ASSERT_NE(analyzer, nullptr);
  const std::string bytes =
      "Return-Path: <bounce@lists.example.org>\r\n"
      "From: Alice <alice@example.org>\r\n"
      "Message-ID: <abc.123@example.org>\r\n"
      "Subject: hello\r\n\r\nJust a short note to say hello to everyone "
      "here today.\r\n";
  auto a = analyzer->Analyze(bytes, {});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->message_id, "abc.123@example.org");
  EXPECT_EQ(a->sender, "bounce@lists.example.org");
  a = analyzer->Analyze(bytes, Env("env@example.net"));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->sender, "env@example.net");
}

TEST(Analyze, EmptyInputIsAnError) {
  auto analyzer = TestAnalyzer();
  ASSERT_NE(analyzer, nullptr);
  EXPECT_FALSE(analyzer->Analyze("", {}).has_value());
}

TEST(Analyze, LimitWarningIsTyped) {
  config::Settings s = TestSettings();
  s.mime.max_bytes = 1024;
  auto analyzer = TestAnalyzer(s);
  ASSERT_NE(analyzer, nullptr);
  auto a = analyzer->Analyze(Fixture("fp-faq-a.eml"), {});
  ASSERT_TRUE(a.has_value());
  bool limit = false;
  for (const Warning& w : a->warnings) limit |= w.kind == WarningKind::kLimit;
  EXPECT_TRUE(limit);
  EXPECT_FALSE(a->degraded);  // a cut message is still a fingerprint of what
                              // was read
}

TEST(Analyze, SpentBudgetDegrades) {
  config::Settings s = TestSettings();
  s.pipeline.max_cpu = std::chrono::milliseconds(0);
  auto analyzer = TestAnalyzer(s);
  ASSERT_NE(analyzer, nullptr);
  auto a = analyzer->Analyze(Fixture("fp-faq-a.eml"), {});
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(a->degraded);
  bool budget = false;
  for (const Warning& w : a->warnings) budget |= w.kind == WarningKind::kBudget;
  EXPECT_TRUE(budget);
}

// A costly HTML part (deeply nested, many elements) under a small budget: the
// analysis returns, degraded, well before the HTML layer's own per-attempt
// limits (1 s each, up to 6 attempts) would add up.
TEST(Analyze, BudgetBoundsHtmlLayout) {
  config::Settings s = TestSettings();
  s.pipeline.max_cpu = std::chrono::milliseconds(50);
  auto analyzer = TestAnalyzer(s);
  ASSERT_NE(analyzer, nullptr);
  std::string html;
  for (int i = 0; i < 200000; ++i) html += "<table><tr><td><b><i>x";
  const std::string bytes =
      "From: a@example.org\r\nContent-Type: text/html\r\n\r\n" + html;
  const auto t0 = std::chrono::steady_clock::now();
  auto a = analyzer->Analyze(bytes, {});
  const auto spent = std::chrono::steady_clock::now() - t0;
  ASSERT_TRUE(a.has_value());
  // Generous against a loaded host; without the budget this takes seconds.
  EXPECT_LT(spent, std::chrono::milliseconds(1500));
  bool cut = a->degraded;
  for (const Warning& w : a->warnings)
    cut |= w.kind == WarningKind::kBudget || w.kind == WarningKind::kLimit;
  EXPECT_TRUE(cut);
}

TEST(Warnings, ClassifiesMimeLines) {
  EXPECT_EQ(ClassifyMimeWarning("limit: parts after the first 3 skipped").kind,
            WarningKind::kLimit);
  EXPECT_EQ(ClassifyMimeWarning("budget: parts after the first 3").kind,
            WarningKind::kBudget);
  EXPECT_EQ(ClassifyMimeWarning("parser: truncated message").kind,
            WarningKind::kParser);
  EXPECT_EQ(ClassifyMimeWarning("part 2: charset: unknown x-foo").kind,
            WarningKind::kCharset);
  EXPECT_EQ(ClassifyMimeWarning("part 1: 3 invalid byte sequences in utf-8 "
                                "replaced with U+FFFD")
                .kind,
            WarningKind::kEncoding);
  EXPECT_EQ(ClassifyMimeWarning("part 1: something else").kind,
            WarningKind::kPart);
  EXPECT_EQ(ClassifyMimeWarning("no category").kind, WarningKind::kPart);
  EXPECT_EQ(WarningName(WarningKind::kStore), "store");
}

TEST(ToText, PlainAndMessage) {
  auto t = ToText("Hello  World", true, mime::Limits{});
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->body, "hello world");
  auto m = ToText(Fixture("fp-faq-a.eml"), false, mime::Limits{});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->subject, "the mime information you requested");
}

}  // namespace
}  // namespace mw::pipeline
