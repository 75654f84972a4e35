// One MTA connection's milter protocol state, without I/O: the engine
// (engine.h) feeds it the Commands its Decoder parsed and writes what it
// appended to the out buffer. It owns the connection's Session (session.h).
//
// Negotiation, as callbacks.cc's did with libmilter: actions ADDHDRS and
// CHGHDRS required (the connection closes without them), QUARANTINE when
// offered; HELO, UNKNOWN and DATA skipped when the MTA allows it; CONNECT,
// MAIL, RCPT, HEADER, EOH and BODY unanswered when the MTA offers each
// no-reply flag, else answered with CONTINUE. SMFIP_HDR_LEADSPC is not
// requested: Postfix then strips the space after the colon of the values it
// sends and adds one before ours, which is what libmilter's milter saw.
//
// A message starts at MAIL (or at any message step that comes without one:
// an out-of-order command resynchronises, it never closes the connection)
// and ends at EOB: Feed returns kMessage, the caller TakeMessage()s it,
// runs Finish on it anywhere, and gives the answer to AppendEndOfMessage.
// The connection meanwhile stays usable (a new MAIL may even arrive while
// the answer is pending; the MTA does not do that). QUIT_NC ends the SMTP
// session but keeps the negotiated options: CONNECT follows, as libmilter
// expects.
//
// Thread-safety: none; one connection's, on the engine's loop.
#ifndef MW_MILTER_CONVERSATION_H_
#define MW_MILTER_CONVERSATION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "end_of_message.h"
#include "milter/codec.h"
#include "session.h"

namespace mw::milter {

// A complete message taken out of its connection. It counts as in flight
// (in_flight.h, the drain at shutdown) until it is destroyed.
class TakenMessage {
 public:
  TakenMessage() = default;
  explicit TakenMessage(std::unique_ptr<Session> session)
      : session_(std::move(session)) {}
  TakenMessage(TakenMessage&&) noexcept = default;
  TakenMessage& operator=(TakenMessage&& other) noexcept {
    if (this != &other) {
      Release();
      session_ = std::move(other.session_);
    }
    return *this;
  }
  ~TakenMessage() { Release(); }

  Session* get() const { return session_.get(); }
  explicit operator bool() const { return session_ != nullptr; }
  // The log tag: the queue id, or NOQUEUE.
  std::string tag() const;

 private:
  void Release() noexcept;
  std::unique_ptr<Session> session_;
};

class Conversation {
 public:
  enum class Next {
    kGoOn,     // read on
    kMessage,  // EOB: TakeMessage(), then AppendEndOfMessage later
    kClose,    // QUIT, a refused negotiation: write what was appended, close
  };

  // `max_bytes`: the Session's limit ([mime] max_bytes).
  explicit Conversation(std::uint64_t max_bytes);
  ~Conversation();
  Conversation(const Conversation&) = delete;
  Conversation& operator=(const Conversation&) = delete;

  // Handles one command; appends its reply (if any) to `out`.
  Next Feed(const Command& command, std::string& out);

  // After kMessage: the complete message, its queue id set (MAIL's or EOB's
  // macro). The connection gets a fresh Session with the same client and
  // no-reply bits.
  TakenMessage TakeMessage();

  // Appends the end-of-message replies of `end` for the message tagged
  // `tag`: CHGHEADER with an empty value per deletion, ADDHEADER per
  // addition, QUARANTINE when granted, then the verdict (REPLYCODE with
  // rcode, else REJECT/TEMPFAIL; CONTINUE). Returns what the MTA would not
  // take (a quarantine it did not offer, a reply text the protocol cannot
  // carry), each a reason for the caller to log and count (finish.h's
  // Refused); the message goes on without it.
  [[nodiscard]] std::vector<std::string> AppendEndOfMessage(
      const EndOfMessage& end, std::string_view tag, std::string& out) const;

  // Whether a message is open (between MAIL and EOB/ABORT): the engine
  // closes idle connections between messages only.
  bool in_message() const { return session_->in_flight(); }
  // The negotiated no-reply bits (smfip::kNr*).
  std::uint32_t no_reply() const { return no_reply_; }
  std::uint32_t actions() const { return actions_; }
  bool negotiated() const { return negotiated_; }

  // Bytes the open message holds (the engine's [milter] max_buffered).
  std::size_t held_bytes() const { return session_->bytes().size(); }
  // Keeps no more of the open message: it is analysed as far as it was
  // read, as past [mime] max_bytes.
  void StopKeeping() { session_->StopKeeping(); }

  // The value of macro `name` ("i" also finds "{i}"), newest stage first;
  // "" when not sent.
  std::string Macro(std::string_view name) const;

 private:
  void Reply(std::uint32_t bit, std::string& out) const;
  void BeginMessage();
  void EndMessage() noexcept;
  void ClearMessageMacros();

  std::uint64_t max_bytes_;
  std::unique_ptr<Session> session_;
  std::uint32_t no_reply_ = 0;
  std::uint32_t actions_ = 0;
  bool negotiated_ = false;
  // Macros by stage command byte, in the order they came.
  std::vector<std::pair<char, std::vector<std::pair<std::string, std::string>>>>
      macros_;
};

}  // namespace mw::milter

#endif  // MW_MILTER_CONVERSATION_H_
