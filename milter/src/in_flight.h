// The count of messages in flight over all connections, for the drain at
// shutdown: a message is in flight from its MAIL FROM to its end (end of
// message answered, abort, or its connection closing).
//
// Thread-safety: all of it; the count is locked.
#ifndef MW_MILTER_IN_FLIGHT_H_
#define MW_MILTER_IN_FLIGHT_H_

#include <chrono>
#include <cstddef>

namespace mw::milter {

std::size_t MessagesInFlight();
void AddMessageInFlight();
// REQUIRES: a message added and not yet removed (never below zero).
void RemoveMessageInFlight();
// Waits until no message is in flight or `deadline` passes; true when none
// is.
bool WaitForMessages(std::chrono::steady_clock::time_point deadline);

}  // namespace mw::milter

#endif  // MW_MILTER_IN_FLIGHT_H_
