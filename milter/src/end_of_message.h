// What the milter answers once the MTA has sent a whole message, as a
// value: the header deletions, the headers to add, a quarantine, the verdict
// with its SMTP reply. finish.h computes it; the transport applies it
// (Conversation::AppendEndOfMessage encodes the packets).
#ifndef MW_MILTER_END_OF_MESSAGE_H_
#define MW_MILTER_END_OF_MESSAGE_H_

#include <string>
#include <utility>
#include <vector>

#include "session.h"

namespace mw::milter {

struct EndOfMessage {
  enum class Verdict {
    kContinue,  // deliver (with the edits below)
    kReject,    // 5xx: rcode/xcode/text
    kTempfail,  // 4xx: rcode/xcode/text
  };
  // Incoming X-Mailwave-* headers to delete, in order (chgheader with no
  // value).
  std::vector<Session::Deletion> deletions;
  // Headers to add, in order; each value is one line (no CR or LF).
  std::vector<std::pair<std::string, std::string>> headers;
  // Non-empty: quarantine with this reason (one line).
  std::string quarantine;
  Verdict verdict = Verdict::kContinue;
  // For kReject/kTempfail from [wave] action: the reply ("550", "5.7.1",
  // one-line text); empty rcode: the MTA's own reply (on_error's tempfail).
  std::string rcode;
  std::string xcode;
  std::string text;

  friend bool operator==(const EndOfMessage&, const EndOfMessage&) = default;
};

}  // namespace mw::milter

#endif  // MW_MILTER_END_OF_MESSAGE_H_
