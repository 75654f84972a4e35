// libFuzzer target for one connection's protocol state (milter/src/
// conversation.h): a hostile or broken MTA's byte stream, framed by the
// codec's Decoder and parsed as the engine does (a framing or parse error
// ends the connection there), fed command by command; every end of body is
// taken and answered as the engine would. Beyond "no crash, no sanitizer
// report, bounded time", it checks what keeps a real MTA's session in step
// and the daemon's drain honest:
//   - a step is answered with exactly one reply, unless the MTA negotiated
//     no reply for it (then none: a stray reply would be read as the answer
//     to a later step); OPTNEG with one OPTNEG, EOB with none until the end
//     of message; every reply frames and parses (ParseReply);
//   - the message kept never passes `max_bytes`, and its size counts at
//     least what was kept;
//   - the messages in flight (in_flight.h, what shutdown waits for) are the
//     open message plus the taken one, and none once the connection is gone;
//   - the deletions of incoming X-Mailwave-* headers go from each name's
//     highest index down to 1;
//   - an end of message ends with exactly one verdict, quarantines only when
//     the MTA granted it, and names every request it could not send.
// Input: four control bytes, as milter_codec_fuzz reads them (so that its
// seeds, tests/fixtures/milter, serve here too): byte 0 picks the message
// limit and the answer, 1-3 are unused; then the stream.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "milter/codec.h"
#include "milter/src/conversation.h"
#include "milter/src/in_flight.h"
#include "milter/src/log.h"

namespace {

namespace m = mw::milter;

void Check(bool ok) {
  if (!ok) __builtin_trap();
}

// The replies in `bytes`, which must be whole frames that ParseReply reads.
std::vector<char> ReplyCommands(const std::string& bytes) {
  std::vector<char> commands;
  m::Decoder d;
  d.Feed(bytes);
  while (true) {
    auto next = d.Next();
    Check(next.has_value());
    if (!*next) break;
    Check(m::ParseReply(**next).has_value());
    commands.push_back((*next)->command);
  }
  Check(d.buffered() == 0);
  return commands;
}

// The no-reply bit of a step the conversation may leave unanswered; 0 for
// the steps it always answers (HELO, DATA, UNKNOWN: it never asks to skip
// their replies).
std::uint32_t NoReplyBit(const m::Command& c) {
  if (std::holds_alternative<m::Connect>(c)) return m::smfip::kNrConn;
  if (std::holds_alternative<m::Mail>(c)) return m::smfip::kNrMail;
  if (std::holds_alternative<m::Rcpt>(c)) return m::smfip::kNrRcpt;
  if (std::holds_alternative<m::Header>(c)) return m::smfip::kNrHdr;
  if (std::holds_alternative<m::EndOfHeaders>(c)) return m::smfip::kNrEoh;
  if (std::holds_alternative<m::Body>(c)) return m::smfip::kNrBody;
  return 0;
}

bool Unanswered(const m::Command& c) {
  return std::holds_alternative<m::EndOfBody>(c) ||
         std::holds_alternative<m::Macros>(c) ||
         std::holds_alternative<m::Abort>(c) ||
         std::holds_alternative<m::Quit>(c) ||
         std::holds_alternative<m::QuitNewConnection>(c);
}

bool IsVerdict(char reply) {
  return reply == m::smfir::kContinue || reply == m::smfir::kReject ||
         reply == m::smfir::kTempFail || reply == m::smfir::kReplyCode;
}

void CheckDeletions(const std::vector<m::Session::Deletion>& deletions) {
  std::map<std::string, int> last;  // the index each name deleted last
  for (const auto& d : deletions) {
    Check(d.index >= 1);
    auto [it, first] = last.try_emplace(d.name, d.index + 1);
    Check(d.index == it->second - 1);
    it->second = d.index;
  }
  for (const auto& [name, index] : last) Check(index == 1);
}

void AnswerEndOfMessage(const m::Conversation& c, m::TakenMessage& taken,
                        std::uint8_t pick, std::uint64_t max_bytes) {
  const m::Session& s = *taken.get();
  Check(s.bytes().size() <= max_bytes);
  Check(s.size() >= s.bytes().size());
  m::EndOfMessage end;
  end.deletions = s.Deletions();
  CheckDeletions(end.deletions);
  end.headers = {{"X-Mailwave-Language", "en"}};
  if (pick & 0x04) end.quarantine = "mailwave: spread wave";
  switch (pick & 0x03) {
    case 1:
      end.verdict = m::EndOfMessage::Verdict::kReject;
      break;
    case 2:
      end.verdict = m::EndOfMessage::Verdict::kTempfail;
      break;
    default:
      break;
  }
  if (pick & 0x08) {
    // The reply text carries what the MTA sent (the queue id), NUL, CR or
    // LF included: those cannot be sent, and the MTA's own text stands.
    end.rcode =
        end.verdict == m::EndOfMessage::Verdict::kTempfail ? "451" : "550";
    end.text = "wave " + s.queue_id();
  }
  std::string out;
  const std::vector<std::string> refused =
      c.AppendEndOfMessage(end, taken.tag(), out);
  const std::vector<char> replies = ReplyCommands(out);
  Check(!replies.empty() && IsVerdict(replies.back()));
  int verdicts = 0;
  bool quarantined = false;
  for (char r : replies) {
    verdicts += IsVerdict(r) ? 1 : 0;
    quarantined |= r == m::smfir::kQuarantine;
  }
  Check(verdicts == 1);
  const bool granted = (c.actions() & m::smfif::kQuarantine) != 0;
  Check(quarantined == (!end.quarantine.empty() && granted));
  const bool reply_refused =
      end.verdict != m::EndOfMessage::Verdict::kContinue &&
      !end.rcode.empty() && replies.back() != m::smfir::kReplyCode;
  Check(refused.size() == (end.quarantine.empty() || granted ? 0u : 1u) +
                              (reply_refused ? 1u : 0u));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A refused negotiation or an out-of-order command logs a line; a fuzzer
  // makes millions.
  m::DiscardLog();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  if (size < 4) return 0;
  const std::uint8_t pick = data[0];
  const std::string_view stream(reinterpret_cast<const char*>(data) + 4,
                                size - 4);
  // 64 bytes to 8 KiB: small enough that a fuzzed message passes it.
  const std::uint64_t max_bytes = 64ull << ((pick >> 4) & 7);
  Check(m::MessagesInFlight() == 0);
  {
    m::Conversation c(max_bytes);
    m::Decoder d;
    d.Feed(stream);
    while (true) {
      auto next = d.Next();
      if (!next || !*next) break;  // a broken frame closes the connection
      auto command = m::Parse(**next);
      if (!command) break;  // as the engine: logged, closed
      const std::uint32_t no_reply_before = c.no_reply();
      std::string out;
      const m::Conversation::Next step = c.Feed(*command, out);
      const std::vector<char> replies = ReplyCommands(out);
      if (std::holds_alternative<m::OptNeg>(*command)) {
        Check(replies.size() ==
              (step == m::Conversation::Next::kClose ? 0u : 1u));
        if (!replies.empty()) Check(replies[0] == m::smfir::kOptNeg);
      } else if (Unanswered(*command)) {
        Check(replies.empty());
      } else {
        const std::uint32_t bit = NoReplyBit(*command);
        const bool quiet = bit != 0 && (no_reply_before & bit) != 0;
        Check(replies.size() == (quiet ? 0u : 1u));
        if (!quiet) Check(replies[0] == m::smfir::kContinue);
      }
      Check(c.held_bytes() <= max_bytes);
      Check(m::MessagesInFlight() == (c.in_message() ? 1u : 0u));
      if (step == m::Conversation::Next::kClose) break;
      if (step == m::Conversation::Next::kMessage) {
        m::TakenMessage taken = c.TakeMessage();
        Check(static_cast<bool>(taken));
        Check(!c.in_message());
        Check(m::MessagesInFlight() == 1);
        AnswerEndOfMessage(c, taken, pick, max_bytes);
      }
      Check(m::MessagesInFlight() == (c.in_message() ? 1u : 0u));
    }
  }
  Check(m::MessagesInFlight() == 0);
  return 0;
}
