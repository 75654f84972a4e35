// The end of a message as values: what the milter answers once the MTA has
// sent the whole message (the header deletions, the headers to add, a
// quarantine, the verdict with its SMTP reply), computed from the Session
// and the Snapshot by running pipeline::Check. The transport applies it:
// libmilter's callbacks (callbacks.cc) call smfi_*; our engine encodes the
// packets (codec.h). Everything issue 22 added (recipients, client network,
// kinds, actions) lives here, once, for both.
//
// Side effects: the pipeline's (store lookup and record), one log line with
// the queue id, the metrics, the [wave] events file.
//
// Thread-safety: Finish may run on any thread; it reads only `snapshot` and
// `session`.
#ifndef MW_MILTER_FINISH_H_
#define MW_MILTER_FINISH_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "end_of_message.h"
#include "session.h"
#include "snapshot.h"

namespace mw::milter {

// The end of message of `session` under `snapshot` (null: not configured,
// answered as a failure). `queue_id` is the session's (set at MAIL FROM) or
// the end of message's macro. May throw (allocation); the caller answers a
// throw with OnFailure.
EndOfMessage Finish(const Snapshot* snapshot, Session& session);

// A failure the message cannot recover from: logs one line with the queue
// id and what failed, counts it, and answers with [milter] on_error
// (continue untagged, or tempfail with the MTA's own text). Never throws.
EndOfMessage OnFailure(std::string_view queue_id,
                       std::string_view what) noexcept;

// A modification the MTA refused (quarantine not offered, a reply text it
// does not take): logged with the tag, counted; the message goes on.
void Refused(std::string_view tag, std::string_view what) noexcept;

}  // namespace mw::milter

#endif  // MW_MILTER_FINISH_H_
