// The store's view of an analysed message, shared by Check and Learn.
#ifndef MW_PIPELINE_SRC_STORE_MESSAGE_H_
#define MW_PIPELINE_SRC_STORE_MESSAGE_H_

#include <algorithm>
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
  store::Message m;
  m.fingerprint = a.fingerprint;
  m.arrival = now;
  m.queue_id = envelope.queue_id;
  m.message_id = a.message_id;
  m.sender = LowerAscii(a.sender);
  m.identity = a.identity.Key();
  m.authenticated = a.identity.authenticated;
  m.network = a.identity.network;
  m.recipients = static_cast<std::uint32_t>(
      std::min<std::size_t>(envelope.recipients.size(),
                            std::numeric_limits<std::uint32_t>::max()));
  m.language = a.language.code;
  m.size = a.size;
  return m;
}

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_SRC_STORE_MESSAGE_H_
