#include "cli/command.h"

#include <algorithm>

namespace mw::cli {
namespace {

// Function-local so registrations from other translation units can run in any
// order.
std::vector<Command>& Registry() {
  static std::vector<Command> commands;
  return commands;
}

}  // namespace

Registration::Registration(const Command& command) {
  auto& r = Registry();
  r.push_back(command);
  std::sort(r.begin(), r.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
}

std::span<const Command> Commands() { return Registry(); }

}  // namespace mw::cli
