#include "params.h"

namespace mw::config {

std::span<const Table> Tables() {
  // Function-local so that the tables in the other files are built first.
  static const Table kTables[] = {
      MimeTable(),     FingerprintTable(), LangidTable(),
      PipelineTable(), StoreTable(),       WaveTable(),
      MilterTable(),   MetricsTable(),     GpuTable(),
  };
  return kTables;
}

bool Consistent(const Param& p) {
  if (p.field.index() != static_cast<size_t>(p.kind)) return false;
  if (p.kind == Kind::kBool || p.kind == Kind::kString ||
      p.kind == Kind::kList)
    return true;
  return p.min <= p.max;
}

}  // namespace mw::config
