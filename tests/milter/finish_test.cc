// Finish (finish.h): the end of message as values, the answer both
// transports apply. Real fixture mail through a real analyzer and a SQLite
// store in a temporary directory.
#include "milter/src/finish.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <memory>
#include <string>

#include "tests/pipeline/testutil.h"

namespace mw::milter {
namespace {

using pipeline::testing::Fixture;
using pipeline::testing::OpenStore;
using pipeline::testing::TempDir;
using pipeline::testing::TestAnalyzer;
using pipeline::testing::TestSettings;
using Verdict = EndOfMessage::Verdict;

// Feeds `raw` (LF or CRLF lines) to a Session as the MTA would: each header,
// the end of headers, the body.
void Feed(Session& s, const std::string& raw) {
  std::size_t pos = 0;
  std::string name, value;
  const auto flush = [&] {
    if (!name.empty()) s.AddHeader(name, value);
    name.clear();
    value.clear();
  };
  while (pos < raw.size()) {
    std::size_t eol = raw.find('\n', pos);
    if (eol == std::string::npos) eol = raw.size();
    std::string line = raw.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos = eol + 1;
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') {
      value += "\n" + line;
    } else {
      flush();
      const auto colon = line.find(':');
      name = line.substr(0, colon);
      value = colon + 1 < line.size() ? line.substr(colon + 2) : "";
    }
  }
  flush();
  s.EndHeaders();
  if (pos < raw.size()) s.AddBody(raw.substr(pos));
}

sockaddr_in Ipv4(const char* ip) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

class FinishTest : public ::testing::Test {
 protected:
  void SetUp() override {
    settings_ = TestSettings();
    snap_ = std::make_shared<Snapshot>();
    snap_->analyzer = TestAnalyzer(settings_);
    snap_->store = std::shared_ptr<store::Store>(OpenStore(dir_.path()));
    ASSERT_TRUE(snap_->analyzer);
    ASSERT_TRUE(snap_->store);
  }

  std::unique_ptr<Session> Message(const std::string& raw,
                                   const char* ip = "192.0.2.7") {
    auto s = std::make_unique<Session>(32u << 20);
    s->set_queue_id("4ABC123");
    s->set_sender("news@example.org");
    s->AddRecipient("a@example.net");
    const sockaddr_in a = Ipv4(ip);
    s->set_client(reinterpret_cast<const sockaddr*>(&a), sizeof a);
    Feed(*s, raw);
    return s;
  }

  config::Settings settings_;
  TempDir dir_;
  std::shared_ptr<Snapshot> snap_;
};

TEST_F(FinishTest, AMessageGetsOurHeadersAndContinues) {
  auto s = Message(Fixture("alternative-plain-wins.eml"));
  const EndOfMessage e = Finish(snap_.get(), *s);
  EXPECT_EQ(e.verdict, Verdict::kContinue);
  EXPECT_TRUE(e.deletions.empty());
  EXPECT_TRUE(e.quarantine.empty());
  ASSERT_FALSE(e.headers.empty());
  for (const auto& [name, value] : e.headers) {
    EXPECT_TRUE(IsOurs(name)) << name;
    EXPECT_EQ(value.find_first_of("\r\n"), std::string::npos) << value;
  }
}

TEST_F(FinishTest, ForgedVerdictsAreDeletedHighestIndexFirst) {
  const std::string raw =
      "X-Mailwave-Wave: forged; wave=no\n"
      "X-MAILWAVE-WAVE: forged again\n" +
      Fixture("alternative-plain-wins.eml");
  auto s = Message(raw);
  const EndOfMessage e = Finish(snap_.get(), *s);
  ASSERT_EQ(e.deletions.size(), 2u);
  EXPECT_EQ(e.deletions[0].index, 2);
  EXPECT_EQ(e.deletions[1].index, 1);
  EXPECT_FALSE(e.headers.empty());
}

TEST_F(FinishTest, ATrustedRelaysVerdictsStandUnanalysed) {
  auto relays = Relays::Parse("192.0.2.0/24");
  ASSERT_TRUE(relays.has_value());
  snap_->trusted = *relays;
  auto s = Message("X-Mailwave-Wave: from the relay\n" +
                   Fixture("alternative-plain-wins.eml"));
  EXPECT_EQ(Finish(snap_.get(), *s), EndOfMessage{});
  // Another client's are forgeries.
  auto other = Message(
      "X-Mailwave-Wave: forged\n" + Fixture("alternative-plain-wins.eml"),
      "198.51.100.9");
  EXPECT_EQ(Finish(snap_.get(), *other).deletions.size(), 1u);
}

TEST_F(FinishTest, AFailureBeforeTheEndAnswersOnErrorAndStillDeletes) {
  auto s = Message("X-Mailwave-Wave: forged\n" +
                   Fixture("alternative-plain-wins.eml"));
  s->set_failure("header: failed");
  EndOfMessage e = Finish(snap_.get(), *s);
  // The current snapshot (none in this test) decides on_error: accept.
  EXPECT_EQ(e.verdict, Verdict::kContinue);
  EXPECT_TRUE(e.headers.empty());
  EXPECT_EQ(e.deletions.size(), 1u);

  auto tempfail = std::make_shared<Snapshot>(*snap_);
  tempfail->on_error = OnError::kTempfail;
  SetSnapshot(tempfail);
  e = Finish(snap_.get(), *s);
  EXPECT_EQ(e.verdict, Verdict::kTempfail);
  EXPECT_TRUE(e.rcode.empty());  // the MTA's own reply
  SetSnapshot(nullptr);
}

TEST_F(FinishTest, NotConfiguredIsAFailureNotACrash) {
  auto s = Message(Fixture("alternative-plain-wins.eml"));
  const EndOfMessage e = Finish(nullptr, *s);
  EXPECT_EQ(e.verdict, Verdict::kContinue);
  EXPECT_TRUE(e.headers.empty());
}

TEST_F(FinishTest, AnEmptyMessagePassesUntagged) {
  auto s = std::make_unique<Session>(1024);
  s->set_queue_id("4EMPTY");
  const EndOfMessage e = Finish(snap_.get(), *s);
  EXPECT_EQ(e, EndOfMessage{});
}

// [wave] action = reject: a copy of a spread wave (unauthenticated senders
// from many networks) is refused with 550 5.7.1 and gets no headers.
TEST_F(FinishTest, ASpreadWaveCopyIsRejectedWithOurText) {
  settings_.wave.action = "reject";
  snap_->analyzer = TestAnalyzer(settings_);
  const std::string base = Fixture("alternative-plain-wins.eml");
  EndOfMessage last;
  for (int i = 0; i < 12; ++i) {
    const std::string ip = "198.51." + std::to_string(i) + ".9";
    auto s = Message(pipeline::testing::Variant(base, i), ip.c_str());
    s->set_sender("x" + std::to_string(i) + "@sender" + std::to_string(i) +
                  ".example");
    last = Finish(snap_.get(), *s);
  }
  EXPECT_EQ(last.verdict, Verdict::kReject);
  EXPECT_EQ(last.rcode, "550");
  EXPECT_EQ(last.xcode, "5.7.1");
  EXPECT_FALSE(last.text.empty());
  EXPECT_EQ(last.text.find_first_of("\r\n"), std::string::npos);
  EXPECT_TRUE(last.headers.empty());
}

}  // namespace
}  // namespace mw::milter
