// The libmilter callbacks: the Session per connection, Finish at the end of
// message (finish.h), the Snapshot (snapshot.h) for everything shared.
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

#include "snapshot.h"

namespace mw::milter {

// The filter description for smfi_register, named `name`.
smfiDesc Description(char* name);

}  // namespace mw::milter

#endif  // MW_MILTER_CALLBACKS_H_
