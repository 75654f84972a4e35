// The store's view of an analysed message, shared by Check and Learn.
#ifndef MW_PIPELINE_SRC_STORE_MESSAGE_H_
#define MW_PIPELINE_SRC_STORE_MESSAGE_H_

#include <limits>
#include <string>

#include "pipeline/analysis.h"
#include "store/store.h"

namespace mw::pipeline {

// Addresses differ in case between mailers ("Bob@Example.org"); one sender
// must count once.
inline std::string LowerAscii(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// Whether the analysis may be looked up and recorded at all: not degraded,
// and a body of at least [wave] min_body bytes (empty and near-empty bodies,
// a read receipt or a bare attachment, would all be "duplicates" of each
// other, Pyzor's empty-digest lesson).
inline bool Storable(const Analysis& a, const config::Settings& settings) {
  return !a.degraded && a.body_bytes > 0 &&
         a.body_bytes >= settings.wave.min_body;
}

inline store::Message StoreMessage(const Analysis& a, const Envelope& envelope,
                                   store::UnixMillis now) {
  const std::size_t rcpts = envelope.recipients.size();
  return store::Message{
      .fingerprint = a.fingerprint,
      .arrival = now,
      .queue_id = envelope.queue_id,
      .message_id = a.message_id,
      .sender = LowerAscii(a.sender),
      .language = a.language.code,
      .size = a.size,
      .identity = a.identity.Key(),
      .authenticated = a.identity.authenticated,
      .network = a.identity.network,
      .recipients = static_cast<std::uint32_t>(std::min<std::size_t>(
          rcpts, std::numeric_limits<std::uint32_t>::max()))};
}

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_SRC_STORE_MESSAGE_H_
