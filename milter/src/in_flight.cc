#include "in_flight.h"

#include <condition_variable>
#include <mutex>

namespace mw::milter {
namespace {

std::mutex g_flight_mutex;
std::condition_variable g_flight_done;
std::size_t g_in_flight = 0;

}  // namespace

std::size_t MessagesInFlight() {
  std::lock_guard lock(g_flight_mutex);
  return g_in_flight;
}

void AddMessageInFlight() {
  std::lock_guard lock(g_flight_mutex);
  ++g_in_flight;
}

void RemoveMessageInFlight() {
  std::lock_guard lock(g_flight_mutex);
  if (g_in_flight > 0 && --g_in_flight == 0) g_flight_done.notify_all();
}

bool WaitForMessages(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(g_flight_mutex);
  return g_flight_done.wait_until(lock, deadline,
                                  [] { return g_in_flight == 0; });
}

}  // namespace mw::milter
