#include "snapshot.h"

#include <atomic>

namespace mw::milter {
namespace {

std::shared_ptr<const Snapshot> g_snapshot;

}  // namespace

void SetSnapshot(std::shared_ptr<const Snapshot> snapshot) {
  std::atomic_store(&g_snapshot, std::move(snapshot));
}

std::shared_ptr<const Snapshot> CurrentSnapshot() {
  return std::atomic_load(&g_snapshot);
}

}  // namespace mw::milter
