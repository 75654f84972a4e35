// store_bench: latency of one message's store round trips (Find, the decision,
// Record) and bytes on disk per message, with a store of N messages built from
// real fingerprints.
//
//   build/bin/store_bench [--messages N] [--queries Q] [--dir DIR]
//                         [--rate R] [--no-fill] [--max-per-key N]
//                         [--max-candidates N] [--redis ADDRESS]
//                         [--commit-delay MS]
//
// The corpus (../shared/data/mail, or MW_MAIL_DIR) is fingerprinted once; the
// store is then filled with N synthetic variants of those fingerprints (each
// a base with some block keys replaced, a few SimHash bits and CTPH symbols
// changed and its own body SHA-1), in waves: a base recurs every
// corpus-size messages, so clusters grow as on a real MX. Each message of
// the fill goes through the same path as the milter's (Find, Decide,
// Record). Then Q more messages are timed one by one (wall clock, this
// process alone on the store), half of them variants of stored mail, half
// fingerprints of unrelated text (random keys): p50, p99 and max of
// Find + Decide + Record, and of each part. --rate R paces the timed messages
// at R a second (a busy MX takes tens a second; without it they come back to
// back, a firehose that no MX sees); --no-fill times against the store
// already in --dir. --redis ADDRESS ("unix:/path" or "tcp://host:port") runs
// the same against the Redis backend (prefix "bench", secret in --dir) and
// reports its bytes per message from INFO memory's used_memory before and
// after the fill. --commit-delay MS is SQLite's group commit ([store]
// commit_delay; the daemon's default is 20 ms, the library's and this
// program's 0: one commit per message): Records share a transaction, so a
// timed Record no longer pays its commit, the flusher thread does.
//
// --clients LIST switches to the several-client mode of load_main.cc (SQLite
// and Redis in one run, Redis across a restart); bench/store/redis_bench.sh
// drives it against a private redis-server.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/percentile.h"
#include "bench/store/load.h"
#include "bench/store/synth.h"
#include "fingerprint/fingerprint.h"
#include "pipeline/analysis.h"
#include "pipeline/verdict.h"
#include "store/redis.h"
#include "store/sqlite.h"

namespace {

namespace fs = std::filesystem;
namespace fp = mw::fingerprint;
using mw::bench::CorpusFingerprints;
using mw::bench::Percentile;
using mw::bench::Unrelated;
using mw::bench::Variant;
using Clock = std::chrono::steady_clock;

struct Timing {
  double find_us = 0, decide_us = 0, record_us = 0;
  double total() const { return find_us + decide_us + record_us; }
};

double Us(Clock::duration d) {
  return std::chrono::duration<double, std::micro>(d).count();
}

bool OneMessage(mw::store::Store& db, const fp::Fingerprint& f,
                const fp::Options& options, std::int64_t now,
                std::uint64_t serial, Timing* t) {
  const mw::store::Message m = mw::bench::BenchMessage(f, now, serial);
  const auto t0 = Clock::now();
  auto lookup = db.Find(m);
  const auto t1 = Clock::now();
  if (!lookup) {
    std::fprintf(stderr, "find: %s\n", lookup.error().message().c_str());
    return false;
  }
  const auto match = mw::pipeline::Decide(f, *lookup, options);
  const auto t2 = Clock::now();
  mw::store::Join join;
  if (match) join.cluster = match->cluster;
  auto rec = db.Record(m, join, mw::store::WaveRule{});
  const auto t3 = Clock::now();
  if (!rec) {
    std::fprintf(stderr, "record: %s\n", rec.error().message().c_str());
    return false;
  }
  if (t) *t = {Us(t1 - t0), Us(t2 - t1), Us(t3 - t2)};
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--clients")
      return mw::bench::LoadMain(argc, argv);
  }
  std::uint64_t messages = 1'000'000;
  std::uint64_t queries = 10'000;
  std::string dir;
  double rate = 0;
  bool fill = true;
  std::size_t max_per_key = mw::store::SqliteOptions{}.max_per_key;
  std::size_t max_candidates = mw::store::SqliteOptions{}.max_candidates;
  std::string redis;
  long commit_delay_ms = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--messages" && i + 1 < argc) {
      messages = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--queries" && i + 1 < argc) {
      queries = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--rate" && i + 1 < argc) {
      rate = std::strtod(argv[++i], nullptr);
    } else if (a == "--no-fill") {
      fill = false;
    } else if (a == "--max-candidates" && i + 1 < argc) {
      max_candidates = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--redis" && i + 1 < argc) {
      redis = argv[++i];
    } else if (a == "--max-per-key" && i + 1 < argc) {
      max_per_key = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--commit-delay" && i + 1 < argc) {
      commit_delay_ms = std::strtol(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr,
                   "usage: store_bench [--messages N] [--queries Q] [--dir "
                   "DIR] [--rate R] [--no-fill] [--max-per-key N] "
                   "[--max-candidates N] [--redis ADDRESS] "
                   "[--commit-delay MS]\n");
      return 2;
    }
  }
  const fp::Options options;
  const std::vector<fp::Fingerprint> corpus = CorpusFingerprints(options);
  if (corpus.empty()) {
    std::fprintf(stderr,
                 "store_bench: dev corpus not found: set MW_MAIL_DIR or "
                 "provide ../shared/data/mail\n");
    return 1;
  }
  bool made_dir = false;
  if (dir.empty()) {
    char tmpl[] = "/tmp/mw-store-bench-XXXXXX";
    dir = mkdtemp(tmpl);
    made_dir = true;
  }
  mw::store::SqliteOptions so;
  so.path = dir + "/bench.db";
  so.fingerprint = options;
  so.max_per_key = max_per_key;
  so.max_candidates = max_candidates;
  so.commit_delay = std::chrono::milliseconds(commit_delay_ms);
  so.log = [](std::string_view line) {
    std::fprintf(stderr, "store: %.*s\n", static_cast<int>(line.size()),
                 line.data());
  };
  auto db = redis.empty() ? mw::store::OpenSqlite(so) : [&] {
    mw::store::RedisOptions ro;
    ro.address = redis;
    ro.prefix = "bench";
    ro.secret_path = dir + "/secret";
    ro.fingerprint = options;
    ro.max_per_key = max_per_key;
    ro.max_candidates = max_candidates;
    ro.command_timeout = std::chrono::seconds(5);
    ro.log = so.log;
    return mw::store::OpenRedis(ro);
  }();
  if (!db) {
    std::fprintf(stderr, "store_bench: %s\n", db.error().message().c_str());
    return 1;
  }
  std::mt19937_64 rng(20261124);
  std::int64_t now = 1'790'000'000'000;
  std::uint64_t bytes_before = 0;
  if (!redis.empty()) {
    auto s = (*db)->GetStats();
    if (!s) return 1;
    bytes_before = s->file_bytes;  // the server's used_memory
  }
  const auto fill0 = Clock::now();
  if (!fill) {
    auto s = (*db)->GetStats();
    if (!s) return 1;
    messages = s->messages;
    now = std::max(now, s->newest);
  }
  for (std::uint64_t i = 0; fill && i < messages; ++i) {
    const fp::Fingerprint f = Variant(corpus[i % corpus.size()], rng);
    // About 0.6 s apart: a million messages span a week, the retention.
    now += 600;
    if (!OneMessage(**db, f, options, now, i, nullptr)) return 1;
    if ((i + 1) % 100'000 == 0) {
      std::fprintf(stderr, "filled %llu (%.0f s)\n",
                   static_cast<unsigned long long>(i + 1),
                   std::chrono::duration<double>(Clock::now() - fill0).count());
    }
  }
  const double fill_s =
      std::chrono::duration<double>(Clock::now() - fill0).count();
  // Let the maintenance thread fold the WAL back before the timed part.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  auto stats = (*db)->GetStats();
  if (!stats) return 1;

  std::vector<double> total, find, decide, record;
  auto next = Clock::now();
  for (std::uint64_t q = 0; q < queries; ++q) {
    if (rate > 0) {
      next += std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(1.0 / rate));
      std::this_thread::sleep_until(next);
    }
    const fp::Fingerprint& base = corpus[rng() % corpus.size()];
    const fp::Fingerprint f =
        q % 2 == 0 ? Variant(base, rng) : Unrelated(base, rng);
    Timing t;
    now += 600;
    if (!OneMessage(**db, f, options, now, messages + q, &t)) return 1;
    total.push_back(t.total());
    find.push_back(t.find_us);
    decide.push_back(t.decide_us);
    record.push_back(t.record_us);
  }
  std::printf(
      "store: %llu messages filled in %.0f s (%.0f messages/s, one "
      "thread, Find + Decide + Record each)\n",
      static_cast<unsigned long long>(messages), fill_s,
      static_cast<double>(messages) / fill_s);
  if (!redis.empty()) {
    std::printf(
        "redis used_memory: +%llu bytes = %.0f bytes per message (%llu index "
        "entries, %.1f per message; %llu clusters of 2+)\n",
        static_cast<unsigned long long>(stats->file_bytes - bytes_before),
        static_cast<double>(stats->file_bytes - bytes_before) /
            static_cast<double>(stats->messages),
        static_cast<unsigned long long>(stats->index_rows),
        static_cast<double>(stats->index_rows) /
            static_cast<double>(stats->messages),
        static_cast<unsigned long long>(stats->clusters));
  } else {
    std::printf(
        "on disk: %llu bytes = %.0f bytes per message (%llu index "
        "rows, %.1f per message; %llu clusters of 2+; WAL %llu bytes "
        "not counted)\n",
        static_cast<unsigned long long>(stats->file_bytes),
        static_cast<double>(stats->file_bytes) /
            static_cast<double>(stats->messages),
        static_cast<unsigned long long>(stats->index_rows),
        static_cast<double>(stats->index_rows) /
            static_cast<double>(stats->messages),
        static_cast<unsigned long long>(stats->clusters),
        static_cast<unsigned long long>(stats->wal_bytes));
  }
  std::printf(
      "\n%llu timed messages (half variants of stored mail, half "
      "unrelated), microseconds:\n",
      static_cast<unsigned long long>(queries));
  std::printf("%-24s %9s %9s %9s\n", "", "p50", "p99", "max");
  auto row = [](const char* name, const std::vector<double>& v) {
    std::printf("%-24s %9.0f %9.0f %9.0f\n", name, Percentile(v, 0.5),
                Percentile(v, 0.99), Percentile(v, 1.0));
  };
  row("find", find);
  row("decide (Compare)", decide);
  row("record", record);
  row("lookup + record (total)", total);
  if (made_dir) fs::remove_all(dir);
  return 0;
}
