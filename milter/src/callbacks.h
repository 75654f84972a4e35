// The libmilter callbacks and the state they share.
//
// Every connection reads one immutable Snapshot (analyzer, store, limits,
// failure action) through std::atomic_load; a message keeps the snapshot it
// started its end-of-message with. main() builds the first one; a reload
// (later work) builds a new one and swaps it with std::atomic_store.
//
// Thread-safety: the callbacks run on libmilter's threads; everything they
// share is the snapshot, which is const, and the store, which is thread-safe.
#ifndef MW_MILTER_CALLBACKS_H_
#define MW_MILTER_CALLBACKS_H_

#include <libmilter/mfapi.h>

#include <chrono>
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

struct Snapshot {
  std::shared_ptr<const pipeline::Analyzer> analyzer;
  std::shared_ptr<store::Store> store;  // null: messages pass untagged
  // The comparison window ([gpu]); null: the index alone decides.
  std::shared_ptr<pipeline::Window> window;
  // [wave] allow, read at start and on each reload.
  std::shared_ptr<const pipeline::Policy> policy;
  std::uint64_t max_bytes = 32ull << 20;
  std::string wave_events;  // [wave] events; empty: none
  sfsistat on_error = SMFIS_CONTINUE;
  // [milter] trusted_relays: their X-Mailwave-* headers are kept.
  Relays trusted;
};

void SetSnapshot(std::shared_ptr<const Snapshot> snapshot);
std::shared_ptr<const Snapshot> CurrentSnapshot();

// Messages between their MAIL FROM and their end (end of message, abort, or
// the connection closing), over all connections.
std::size_t MessagesInFlight();
// Waits until no message is in flight or `deadline` passes; true when none
// is. The stop after SIGTERM calls it once libmilter accepts no more
// connections.
bool WaitForMessages(std::chrono::steady_clock::time_point deadline);

// The filter description for smfi_register, named `name`.
smfiDesc Description(char* name);

}  // namespace mw::milter

#endif  // MW_MILTER_CALLBACKS_H_
