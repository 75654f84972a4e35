// What every message of the milter reads: one immutable Snapshot (analyzer,
// store, window, policy, limits, the failure answer), swapped whole on a
// reload. It does not know the transport (libmilter's callbacks or our
// engine). The count of messages in flight is in_flight.h.
//
// Thread-safety: SetSnapshot/CurrentSnapshot are atomic; a Snapshot is
// const; the store is thread-safe.
#ifndef MW_MILTER_SNAPSHOT_H_
#define MW_MILTER_SNAPSHOT_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "pipeline/analysis.h"
#include "pipeline/policy.h"
#include "pipeline/window.h"
#include "relays.h"
#include "store/store.h"

namespace mw::milter {

// [milter] on_error: the answer to a message the milter failed on.
enum class OnError { kAccept, kTempfail };

struct Snapshot {
  std::shared_ptr<const pipeline::Analyzer> analyzer;
  std::shared_ptr<store::Store> store;  // null: messages pass untagged
  // The comparison window ([gpu]); null: the index alone decides.
  std::shared_ptr<pipeline::Window> window;
  // [wave] allow, read at start and on each reload.
  std::shared_ptr<const pipeline::Policy> policy;
  std::uint64_t max_bytes = 32ull << 20;
  std::string wave_events;  // [wave] events; empty: none
  OnError on_error = OnError::kAccept;
  // [milter] trusted_relays: their X-Mailwave-* headers are kept.
  Relays trusted;
};

void SetSnapshot(std::shared_ptr<const Snapshot> snapshot);
std::shared_ptr<const Snapshot> CurrentSnapshot();

}  // namespace mw::milter

#endif  // MW_MILTER_SNAPSHOT_H_
