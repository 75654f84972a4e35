// The archive scan: every message of an archive analysed, near-duplicate
// pairs found and verified, and the messages put into clusters around their
// earliest copy (`mailwave scan`; docs/scan.md).
//
//   read + analyse  every message (archive::Read, Analyzer::Analyze) on
//                   `threads` threads; one message's bytes per thread;
//   candidates      pairs from the comparison engine's AllPairs (CTPH edit
//                   rate, SimHash, word sketch), from equal body SHA-1s and
//                   from shared block keys (an inverted index);
//   verify          each pair: fingerprint::Compare says duplicate, or the
//                   edit rate of the two normalised bodies is below
//                   text_threshold (fingerprint/verify.h);
//   cluster         ClusterCanonical (cluster.h): the canonical is the
//                   earliest message (Date header, else the file's mtime;
//                   ties in listing order), members verified against it.
//
// Thread-safety: Scan may run on any thread; it starts and joins its own.
#ifndef MW_PIPELINE_SCAN_H_
#define MW_PIPELINE_SCAN_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "archive/archive.h"
#include "gpu/engine.h"
#include "mw/result.h"
#include "pipeline/analysis.h"

namespace mw::pipeline {

struct ScanOptions {
  gpu::Backend backend = gpu::Backend::kAuto;
  // The engine's candidate thresholds (ctph, simhash, sketch): the engine's
  // defaults, but word sketches from the least the words path of
  // fingerprint::Compare accepts (Options::words_jaccard), so that it sees
  // every pair it could call duplicates (spun text, letters-only hash
  // busters); `mailwave scan` takes it from [fingerprint] words_jaccard.
  // bench/pipeline/scan_eval found lower values add candidates that only the
  // text check could verify, and it let no more copies in (docs/scan.md).
  gpu::Thresholds thresholds = [] {
    gpu::Thresholds t;
    t.sketch_jaccard = fingerprint::Options{}.words_jaccard;
    return t;
  }();
  // A candidate pair that Compare does not call duplicates is one when the
  // edit rate of the two normalised bodies (TextEditDistance / (|a| + |b|))
  // is below this. 0.1 keeps distinct ham pairs clustered under 1e-5 in
  // scan_eval; 0.12 already put 26 of 831,354 in one cluster (successive
  // issues of one newsletter, whose fixed header and footer dominate).
  double text_threshold = 0.1;
  // Bodies longer than this are verified by their fingerprints only (the
  // text edit distance costs |a|·|b|/64 word operations).
  std::size_t text_max_bytes = 64u << 10;
  // The normalised bodies kept for text verification, in all; beyond it,
  // pairs are verified by their fingerprints only (meta.text_skipped).
  std::size_t text_memory = 512u << 20;
  // A block key found in more messages than this is skipped by the block
  // index (a shared footer or greeting, not a sign of a copy); the engine's
  // signatures still pair such messages.
  std::size_t block_key_max_messages = 64;
  // Two messages are block candidates when they share at least this share of
  // the distinct block keys of the one with fewer (and at least one).
  double block_min_share = 0.3;
  unsigned threads = 0;  // 0: every core
  // Called on the calling thread about ten times a second while messages are
  // read and analysed, with the messages done and the total.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct ScannedMessage {
  std::string path;  // the archive entry's name (archive.h)
  std::string message_id;
  std::optional<std::int64_t> date;      // Date header, s since 1970
  std::int64_t time = 0;                 // what orders it: date, else mtime
  std::optional<std::uint32_t> cluster;  // nullopt: alone
  bool is_canonical = false;
  // Against the canonical (1.0 for the canonical, nullopt when alone).
  std::optional<double> similarity;
  std::string method;     // how it was verified; "" for a canonical or alone
  bool degraded = false;  // the analysis was degraded: never a duplicate
  std::uint64_t body_bytes = 0;
};

struct ScanCluster {
  std::uint32_t id = 0;
  std::uint32_t canonical = 0;         // index into ScanReport::messages
  std::vector<std::uint32_t> members;  // canonical first, then in time order
};

struct StageTimes {
  std::chrono::nanoseconds read_analyse{0};  // wall clock, all threads
  std::chrono::nanoseconds read{0};          // summed over the threads
  std::chrono::nanoseconds analyse{0};       // summed over the threads
  std::chrono::nanoseconds candidates{0};
  std::chrono::nanoseconds verify{0};
  std::chrono::nanoseconds text_load{0};  // of verify: bodies read again
  std::chrono::nanoseconds cluster{0};
  std::chrono::nanoseconds total{0};
};

struct ScanMeta {
  std::size_t entries = 0;     // messages listed
  std::size_t messages = 0;    // read and analysed (ScanReport::messages)
  std::size_t unreadable = 0;  // could not be read or analysed (problems)
  std::size_t degraded = 0;
  // Candidate pairs by source (a pair found by several counts in each), and
  // distinct.
  std::size_t pairs_ctph = 0, pairs_simhash = 0, pairs_sketch = 0,
              pairs_exact = 0, pairs_blocks = 0, pairs = 0;
  std::size_t verified = 0;      // candidate pairs verified duplicates
  std::size_t text_checks = 0;   // text edit rates computed
  std::size_t text_skipped = 0;  // pairs not checked on text (size, memory)
  std::size_t cluster_verifications = 0;  // against canonicals
  std::size_t clusters = 0, clustered = 0;
  std::string backend;          // "cpu" or "cuda"
  std::string fallback_reason;  // why auto did not take CUDA, if it did not
  unsigned threads = 0;
  StageTimes times;
};

struct ScanReport {
  std::vector<ScannedMessage> messages;    // in listing order, unreadable ones
                                           // left out
  std::vector<ScanCluster> clusters;       // in the canonicals' time order
  std::vector<archive::Problem> problems;  // messages that could not be read
                                           // or analysed
  ScanMeta meta;
};

// Scans `entries` (archive::List). Fails only when the engine cannot be made
// (kUnavailable for --backend cuda without a device); every message that
// cannot be read or analysed is a problem in the report.
Result<ScanReport> Scan(const Analyzer& analyzer,
                        std::span<const archive::Entry> entries,
                        const ScanOptions& options);

}  // namespace mw::pipeline

#endif  // MW_PIPELINE_SCAN_H_
