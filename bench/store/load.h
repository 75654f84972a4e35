// Several clients on one store at once, as several milter hosts (or the
// threads of one milter) use it: a fast fill, and timed runs of the milter's
// store path (Find, Decide, Record) per message.
//
// Every handle is opened as the milter opens its store: pipeline::OpenStore
// with the [store] and [fingerprint] settings given, pruning on.
//
// Thread-safety: Fill and Run start their own threads and join them before
// they return; call them from one thread at a time.
#ifndef MW_BENCH_STORE_LOAD_H_
#define MW_BENCH_STORE_LOAD_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "fingerprint/fingerprint.h"
#include "mw/result.h"
#include "store/store.h"

namespace mw::bench {

using Clock = std::chrono::steady_clock;

inline double Seconds(Clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

struct Backend {
  std::string name;           // as printed: "sqlite", "redis"
  config::Settings settings;  // settings.store.backend picks the backend
  // Redis: RedisOptions::index_split_entries, which is not a setting (0:
  // the store's default); a number past any bucket's size never splits, as
  // the store did before layout 3.
  std::size_t index_split_entries = 0;
};

// One handle on the backend's store, opened by pipeline::OpenStore; its log
// lines go to stderr with the backend's name and the time since the program
// started, so "redis: down" and "redis: back" can be placed on the timeline.
Result<std::unique_ptr<store::Store>> Open(const Backend& backend);

struct FillOptions {
  std::uint64_t messages = 0;
  int clients = 1;  // threads, each on a handle of its own
  // true: each message takes the milter's path (Find, Decide, Record).
  // false: Record alone, each variant joining the cluster that the first copy
  // of its base started (the join Decide makes for these variants), so the
  // store gets the same waves without paying Find and Compare per message.
  bool full_path = false;
  // true: message i is corpus[i] itself, never joined: distinct real
  // messages, each a cluster of one, as most mail is (issue 24's measure of
  // bytes a message). REQUIRES then: messages <= corpus.size().
  bool distinct = false;
  // true: every message has a sender, identity and network of its own (a
  // botnet's wave), where the default mix has 997 and 251.
  bool own_senders = false;
  // Message i arrives at first_arrival + i * spacing.
  store::UnixMillis first_arrival = 0;
  std::chrono::milliseconds spacing{500};
};

struct FillResult {
  double seconds = 0;
  std::uint64_t retries = 0;  // Record calls that failed kUnavailable
};

// Stores `messages` variants of `corpus`: message i is a variant of base
// i % corpus.size(), numbered serial0 + i. Client t writes the messages whose
// base is t modulo `clients`, so each wave is written by one client in
// arrival order and no two clients race to start one. A Record that fails
// kUnavailable is retried (up to 50 times, 20 ms apart). Fails with the first
// other error a client met (the others stop).
// REQUIRES: corpus is not empty; clients >= 1.
Result<FillResult> Fill(const Backend& backend,
                        const std::vector<fingerprint::Fingerprint>& corpus,
                        const FillOptions& options, std::uint64_t serial0);

enum class OpStatus : std::uint8_t { kOk, kFindFailed, kRecordFailed };

// One message of a timed run.
struct Op {
  double start_s = 0;  // since the run started
  // Microseconds, summed over the attempts (see `conflicts`); record_us is 0
  // when Find failed (the milter then records nothing and gives the message
  // the configured action).
  float find_us = 0, decide_us = 0, record_us = 0;
  float total_us = 0;  // what the message waited on the store, Decide included
  float longest_call_us = 0;  // its slowest single Find or Record
  // Record calls that failed kConflict (Join::seen), each followed by another
  // Find, Decide and Record as the milter does.
  std::uint8_t conflicts = 0;
  OpStatus status = OpStatus::kOk;
  Error::Code code = Error::Code::kInternal;  // the failure's; kOk has none
  int client = 0;
};

struct RunOptions {
  int clients = 1;
  // One handle shared by all clients (one milter's threads) instead of one
  // handle each (several milter processes or hosts).
  bool shared_handle = false;
  // The clients stop at the first of: `messages` taken (over all clients),
  // `seconds` passed, `stop` set; 0 / null: that limit is off.
  std::uint64_t messages = 0;
  double seconds = 0;
  const std::atomic<bool>* stop = nullptr;
  // Messages per second over all clients, each client on a schedule of
  // rate / clients that catches up after a slow call (mail keeps arriving
  // while the store is slow); 0: back to back.
  double rate = 0;
  std::uint64_t seed = 1;
  // Called on a thread of its own with the run's start once every handle is
  // open (the restart); the run returns when it and the clients are done.
  std::function<void(Clock::time_point start)> beside;
};

struct RunResult {
  std::vector<Op> ops;  // every message, grouped by client
  double wall_s = 0;    // from the start to the last client's end
};

// Runs the clients on a stream of messages, alternately a variant of a
// random corpus mail (a wave's next copy) and an unrelated one, arriving now
// (store::NowMillis), each through the milter's store path
// (pipeline::CheckAnalysis's: Find, Decide, Record with Join::seen, again on
// kConflict). A failed call is an Op with its status, never an error
// of Run; Run fails only when a handle cannot be opened.
// REQUIRES: corpus is not empty; clients >= 1; one limit is on.
Result<RunResult> Run(const Backend& backend,
                      const std::vector<fingerprint::Fingerprint>& corpus,
                      const RunOptions& options,
                      std::atomic<std::uint64_t>& serial);

// store_bench's --clients mode (bench/store/load_main.cc): reads its flags
// from argv, fills, runs and prints the report; returns the exit status.
int LoadMain(int argc, char** argv);

}  // namespace mw::bench

#endif  // MW_BENCH_STORE_LOAD_H_
