// store_bench --clients: the store under several clients at once, SQLite and
// Redis in the same run, and Redis across a restart (issue 13,
// "Measurements").
//
//   store_bench --clients LIST [--messages N] [--queries Q] [--dir DIR]
//               [--redis ADDRESS | --redis-cluster SEED,SEED...
//                [--redis-user U] [--redis-password-file F]
//                [--redis-tls-ca F] [--redis-tls-cert F --redis-tls-key F]
//                [--redis-prefix P] [--redis-timeout MS]]
//               [--backends sqlite,redis] [--fill-clients N]
//               [--fill record|full|distinct|botnet] [--bases N] [--no-fill]
//               [--shared-handle]
//               [--max-per-key N] [--max-candidates N] [--index-split N]
//               [--restart-at S --restart-cmd CMD [--seconds D] [--after A]
//                [--rate R]]
//
// 1. Fill: each backend gets N messages (variants of the corpus in waves,
//    arrivals 500 ms apart ending now, inside the default 7-day retention)
//    from --fill-clients threads; "record" (default) writes each with Record
//    alone and the join the milter would choose, "full" takes the milter's
//    whole path, "distinct" records each corpus fingerprint as it is, each
//    a cluster of one as most mail is (N is cut to the corpus' size), twice:
//    the bytes reported are the second pass's, once the window's keys exist
//    (issue 24's measure); "botnet" is "record" with a sender, identity and
//    network of its own for every message, as a botnet's wave comes.
//    --bases N: the first N corpus fingerprints alone, so that each wave has
//    messages / N copies (the whole corpus: 3,777, ~265 at a million). Reports
//    the fill time and bytes per message (Redis: INFO memory's used_memory
//    before and after; SQLite: the file).
//    --redis-cluster: the store on a Redis Cluster (its seeds, as [store]
//    redis_cluster); server CPU is summed over the masters.
//    --index-split N: the Redis store splits a bucket past N entries
//    (RedisOptions::index_split_entries, not a setting); a huge N never
//    splits, as the store did before layout 3, for A/B runs.
// 2. For each client count of LIST, each backend in turn: Q messages (half a
//    wave's next copy, half unrelated mail) back to back from that many
//    threads, each with its own handle opened as the milter opens its store
//    (--shared-handle: one handle, as one milter's threads share it).
//    Reports messages/s and Find + Decide + Record p50/p99/max, and Redis
//    against SQLite as ratios of figures measured in this run.
// 3. --restart-at S: the largest client count runs against Redis for D
//    seconds (default S + 20), and at least A seconds (default 15) after the
//    server answers again, at R messages/s in all (default 200); S seconds
//    in, CMD is run by /bin/sh (it is expected to kill the server, start it
//    again on the same data and return once it answers). Reports each
//    second's messages and latency, the calls made while it was down and
//    whether each returned kUnavailable within connect + command timeout,
//    how long after the server answered the first message succeeded, and
//    the messages lost (those recorded before and not stored after).
//
// Security: for benchmarking only. The password is read from a file by the
// store, never passed on the command line; CMD runs with this process's
// rights.
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench/percentile.h"
#include "bench/store/load.h"
#include "bench/store/seed_list.h"
#include "bench/store/synth.h"
#include "pipeline/options.h"
// Private to mw::store: the bench reads the server's CPU clock over a
// connection made as the store makes its own.
#include "store/src/redis_cluster.h"
#include "store/src/redis_conn.h"
#include "store/src/redis_link.h"

namespace mw::bench {

namespace {

namespace fs = std::filesystem;

std::vector<int> ParseList(const std::string& text) {
  std::vector<int> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(std::atoi(text.substr(at, comma - at).c_str()));
    at = comma + 1;
  }
  return out;
}

std::vector<std::string> ParseNames(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

struct Flags {
  std::vector<int> clients;
  std::uint64_t messages = 100'000;
  std::uint64_t queries = 10'000;
  std::string dir;
  std::string redis;
  std::string redis_user;
  std::string redis_password_file;
  std::string redis_tls_ca, redis_tls_cert, redis_tls_key;  // tls:// addresses
  std::string redis_prefix = "bench";
  std::vector<std::string> redis_cluster;  // seed nodes: the store on a Cluster
  int redis_timeout_ms = -1;               // -1: the configuration's default
  std::vector<std::string> backends;
  int fill_clients = 2;
  bool fill_full = false;
  bool fill_distinct = false;
  bool fill_botnet = false;
  std::size_t bases = 0;  // 0: every corpus fingerprint
  bool fill = true;
  bool shared_handle = false;
  std::uint32_t max_per_key = 0;     // 0: the configuration's default
  std::size_t index_split = 0;       // 0: the Redis store's default
  std::uint32_t max_candidates = 0;  // 0: the configuration's default
  double restart_at = -1;
  std::string restart_cmd;
  double seconds = 0;
  double after = 15;
  double rate = 200;
};

bool ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--clients" && has_value) {
      f->clients = ParseList(argv[++i]);
    } else if (a == "--messages" && has_value) {
      f->messages = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--queries" && has_value) {
      f->queries = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--dir" && has_value) {
      f->dir = argv[++i];
    } else if (a == "--redis" && has_value) {
      f->redis = argv[++i];
    } else if (a == "--redis-cluster" && has_value) {
      f->redis_cluster = SeedList(argv[++i]);
    } else if (a == "--redis-user" && has_value) {
      f->redis_user = argv[++i];
    } else if (a == "--redis-password-file" && has_value) {
      f->redis_password_file = argv[++i];
    } else if (a == "--redis-tls-ca" && has_value) {
      f->redis_tls_ca = argv[++i];
    } else if (a == "--redis-tls-cert" && has_value) {
      f->redis_tls_cert = argv[++i];
    } else if (a == "--redis-tls-key" && has_value) {
      f->redis_tls_key = argv[++i];
    } else if (a == "--redis-prefix" && has_value) {
      f->redis_prefix = argv[++i];
    } else if (a == "--redis-timeout" && has_value) {
      f->redis_timeout_ms = std::atoi(argv[++i]);
    } else if (a == "--backends" && has_value) {
      f->backends = ParseNames(argv[++i]);
    } else if (a == "--fill-clients" && has_value) {
      f->fill_clients = std::atoi(argv[++i]);
    } else if (a == "--fill" && has_value) {
      const std::string mode = argv[++i];
      if (mode != "record" && mode != "full" && mode != "distinct" &&
          mode != "botnet")
        return false;
      f->fill_botnet = mode == "botnet";
      f->fill_full = mode == "full";
      f->fill_distinct = mode == "distinct";
    } else if (a == "--bases" && has_value) {
      f->bases = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--no-fill") {
      f->fill = false;
    } else if (a == "--shared-handle") {
      f->shared_handle = true;
    } else if (a == "--index-split" && has_value) {
      f->index_split = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--max-per-key" && has_value) {
      f->max_per_key =
          static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--max-candidates" && has_value) {
      f->max_candidates =
          static_cast<std::uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (a == "--restart-at" && has_value) {
      f->restart_at = std::strtod(argv[++i], nullptr);
    } else if (a == "--restart-cmd" && has_value) {
      f->restart_cmd = argv[++i];
    } else if (a == "--seconds" && has_value) {
      f->seconds = std::strtod(argv[++i], nullptr);
    } else if (a == "--after" && has_value) {
      f->after = std::strtod(argv[++i], nullptr);
    } else if (a == "--rate" && has_value) {
      f->rate = std::strtod(argv[++i], nullptr);
    } else {
      return false;
    }
  }
  if (f->backends.empty()) {
    f->backends = {"sqlite"};
    if (!f->redis.empty() || !f->redis_cluster.empty())
      f->backends.push_back("redis");
  }
  for (const std::string& b : f->backends) {
    if (b != "sqlite" && b != "redis") return false;
    if (b == "redis" && f->redis.empty() && f->redis_cluster.empty())
      return false;
  }
  if (f->clients.empty() || f->fill_clients < 1) return false;
  for (int c : f->clients) {
    if (c < 1) return false;
  }
  if (f->restart_at >= 0 && (f->restart_cmd.empty() || f->redis.empty()))
    return false;
  if (f->seconds <= 0) f->seconds = f->restart_at + 20;
  return true;
}

Backend MakeBackend(const std::string& name, const Flags& f) {
  Backend b;
  b.name = name;
  config::StoreSettings& s = b.settings.store;
  s.backend = name;
  // Both backends read the site secret beside this path.
  s.path = f.dir + "/bench.db";
  s.redis = f.redis;
  s.redis_user = f.redis_user;
  s.redis_password_file = f.redis_password_file;
  s.redis_tls_ca = f.redis_tls_ca;
  s.redis_tls_cert = f.redis_tls_cert;
  s.redis_tls_key = f.redis_tls_key;
  s.redis_prefix = f.redis_prefix;
  s.redis_cluster = f.redis_cluster;
  if (f.redis_timeout_ms >= 0)
    s.redis_timeout = std::chrono::milliseconds(f.redis_timeout_ms);
  if (f.max_per_key > 0) s.max_per_key = f.max_per_key;
  if (f.max_candidates > 0) s.max_candidates = f.max_candidates;
  b.index_split_entries = f.index_split;
  return b;
}

// Stats of a fresh handle, retried for up to 30 s (a restarted Redis
// answers LOADING until its append-only file is read).
Result<store::Stats> StatsOf(const Backend& backend) {
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  for (;;) {
    auto db = Open(backend);
    Result<store::Stats> s =
        db ? (*db)->GetStats() : Result<store::Stats>(Fail(db.error()));
    if (s || Clock::now() >= deadline) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

// The text of INFO `section` of the server, or of every master of the
// Cluster the settings name.
Result<std::vector<std::string>> InfoOfEachServer(const Backend& backend,
                                                  const char* section) {
  const store::RedisOptions options = pipeline::RedisOptions(backend.settings);
  auto connect = store::ConnectOptionsFor(options);
  if (!connect) return Fail(connect.error());
  std::vector<std::string> out;
  if (options.cluster.empty()) {
    auto conn = store::Connection::Open(*connect);
    if (!conn) return Fail(conn.error());
    auto info = (*conn)->Command({"INFO", section});
    if (!info) return Fail(info.error());
    out.emplace_back(info->str());
    return out;
  }
  auto seeds = store::ParseClusterSeeds(options.cluster);
  if (!seeds) return Fail(seeds.error());
  auto client = store::ClusterClient::Open(*seeds, *connect);
  if (!client) return Fail(client.error());
  for (std::size_t i = 0; i < (*client)->map().masters.size(); ++i) {
    auto info = (*client)->CommandOnMaster(i, {"INFO", section});
    if (!info) return Fail(info.error());
    out.emplace_back(info->str());
  }
  return out;
}

// The Redis server's CPU time so far (INFO cpu: used_cpu_user +
// used_cpu_sys, every thread of the server), summed over a Cluster's
// masters, in seconds. What the store's scripts cost the server is the
// difference over a run; other clients of the same server count too, so the
// bench wants a server of its own.
Result<double> ServerCpuSeconds(const Backend& backend) {
  auto infos = InfoOfEachServer(backend, "cpu");
  if (!infos) return Fail(infos.error());
  double seconds = 0;
  for (const std::string& text : *infos) {
    int found = 0;
    for (const std::string_view field : {"used_cpu_user:", "used_cpu_sys:"}) {
      const std::size_t pos = text.find(field);
      if (pos == std::string::npos) continue;
      seconds += std::strtod(text.c_str() + pos + field.size(), nullptr);
      ++found;
    }
    if (found != 2) {
      return Fail(
          Error::Unavailable("redis: INFO cpu without used_cpu_user/sys"));
    }
  }
  return seconds;
}

// "<name>: server CPU X ms per message (what)" when both readings exist.
void PrintServerCpu(const Backend& backend, const Result<double>& before,
                    const Result<double>& after, std::uint64_t messages,
                    const char* what) {
  if (!before || !after || messages == 0) {
    std::printf("%s: server CPU not read (%s)\n", backend.name.c_str(),
                (!before ? before.error() : after.error()).ToString().c_str());
    return;
  }
  std::printf(
      "%s: server CPU %.3f s for %llu messages = %.3f ms per message (%s)\n",
      backend.name.c_str(), *after - *before,
      static_cast<unsigned long long>(messages),
      (*after - *before) * 1e3 / static_cast<double>(messages), what);
}

struct Summary {
  std::uint64_t messages = 0;
  std::uint64_t failed = 0;
  std::uint64_t conflicts = 0;  // Join::seen conflicts, each one more attempt
  double per_second = 0;        // messages that succeeded, per wall second
  double p50 = 0, p99 = 0, max = 0;
  double find_p50 = 0, find_p99 = 0, record_p50 = 0, record_p99 = 0;
};

// Latencies are those of the messages that succeeded.
Summary Summarise(const RunResult& run) {
  Summary s;
  std::vector<double> total, find, record;
  for (const Op& op : run.ops) {
    ++s.messages;
    s.conflicts += op.conflicts;
    if (op.status != OpStatus::kOk) {
      ++s.failed;
      continue;
    }
    total.push_back(op.total_us);
    find.push_back(op.find_us);
    record.push_back(op.record_us);
  }
  s.per_second =
      run.wall_s > 0 ? static_cast<double>(total.size()) / run.wall_s : 0;
  s.p50 = Percentile(total, 0.5);
  s.p99 = Percentile(total, 0.99);
  s.max = Percentile(total, 1.0);
  s.find_p50 = Percentile(find, 0.5);
  s.find_p99 = Percentile(find, 0.99);
  s.record_p50 = Percentile(record, 0.5);
  s.record_p99 = Percentile(record, 0.99);
  return s;
}

void PrintFill(const Backend& backend, const FillResult& fill,
               std::uint64_t messages, const store::Stats& before,
               const store::Stats& after) {
  const double seconds = fill.seconds;
  const double added = static_cast<double>(after.messages) -
                       static_cast<double>(before.messages);
  std::printf(
      "%s: %llu messages filled in %.1f s (%.0f messages/s; %llu Record "
      "calls failed kUnavailable and were retried)\n",
      backend.name.c_str(), static_cast<unsigned long long>(messages), seconds,
      static_cast<double>(messages) / seconds,
      static_cast<unsigned long long>(fill.retries));
  if (backend.settings.store.backend == "redis") {
    std::printf(
        "%s: used_memory %+.0f bytes for %.0f messages = %.0f bytes per "
        "message (%.1f index entries per message)\n",
        backend.name.c_str(),
        static_cast<double>(after.file_bytes) -
            static_cast<double>(before.file_bytes),
        added,
        (static_cast<double>(after.file_bytes) -
         static_cast<double>(before.file_bytes)) /
            std::max(1.0, added),
        static_cast<double>(after.index_rows) /
            std::max<double>(1.0, static_cast<double>(after.messages)));
  } else {
    std::printf(
        "%s: file %llu bytes for %llu messages = %.0f bytes per message "
        "(WAL %llu bytes not counted)\n",
        backend.name.c_str(), static_cast<unsigned long long>(after.file_bytes),
        static_cast<unsigned long long>(after.messages),
        static_cast<double>(after.file_bytes) /
            std::max<double>(1.0, static_cast<double>(after.messages)),
        static_cast<unsigned long long>(after.wal_bytes));
  }
}

int Throughput(const Flags& f, const std::vector<Backend>& backends,
               const std::vector<fingerprint::Fingerprint>& corpus,
               std::atomic<std::uint64_t>& serial) {
  std::printf(
      "\n%llu messages per run, back to back (half a wave's next copy, half "
      "unrelated), %s; Find + Decide + Record of the messages that "
      "succeeded (find and rec summed over a message's attempts; confl: "
      "Join::seen conflicts, each one more attempt), microseconds:\n",
      static_cast<unsigned long long>(f.queries),
      f.shared_handle ? "one handle shared by the clients"
                      : "one handle per client");
  std::printf("%-8s %7s %9s %7s %7s %8s %7s %7s %7s %7s %7s %7s\n", "backend",
              "clients", "msgs/s", "p50", "p99", "max", "find50", "find99",
              "rec50", "rec99", "failed", "confl");
  for (int clients : f.clients) {
    std::map<std::string, Summary> by_backend;
    for (const Backend& backend : backends) {
      RunOptions ro;
      ro.clients = clients;
      ro.shared_handle = f.shared_handle;
      ro.messages = f.queries;
      ro.seed = static_cast<std::uint64_t>(clients);
      const bool redis = backend.settings.store.backend == "redis";
      Result<double> cpu_before = redis ? ServerCpuSeconds(backend) : 0.0;
      auto run = Run(backend, corpus, ro, serial);
      Result<double> cpu_after = redis ? ServerCpuSeconds(backend) : 0.0;
      if (!run) {
        std::fprintf(stderr, "%s: %s\n", backend.name.c_str(),
                     run.error().ToString().c_str());
        return 1;
      }
      const Summary s = Summarise(*run);
      by_backend[backend.name] = s;
      std::printf(
          "%-8s %7d %9.0f %7.0f %7.0f %8.0f %7.0f %7.0f %7.0f %7.0f %7llu "
          "%7llu\n",
          backend.name.c_str(), clients, s.per_second, s.p50, s.p99, s.max,
          s.find_p50, s.find_p99, s.record_p50, s.record_p99,
          static_cast<unsigned long long>(s.failed),
          static_cast<unsigned long long>(s.conflicts));
      if (redis) {
        std::printf("  ");
        PrintServerCpu(backend, cpu_before, cpu_after, s.messages,
                       "Find + Record, conflicts' retries included");
      }
      std::fflush(stdout);
    }
    if (by_backend.count("sqlite") && by_backend.count("redis")) {
      const Summary& q = by_backend["sqlite"];
      const Summary& r = by_backend["redis"];
      std::printf(
          "  redis / sqlite, %d client%s: msgs/s x%.2f, p50 x%.2f, p99 "
          "x%.2f\n",
          clients, clients == 1 ? "" : "s", r.per_second / q.per_second,
          r.p50 / q.p50, r.p99 / q.p99);
    }
  }
  return 0;
}

// The calls made while the server was down and after, against the bound the
// store promises: connect_timeout + command_timeout per call.
int Restart(const Flags& f, const Backend& redis,
            const std::vector<fingerprint::Fingerprint>& corpus,
            std::atomic<std::uint64_t>& serial) {
  const int clients = *std::max_element(f.clients.begin(), f.clients.end());
  auto before = StatsOf(redis);
  if (!before) {
    std::fprintf(stderr, "redis: %s\n", before.error().ToString().c_str());
    return 1;
  }
  double kill_s = -1, ready_s = -1;
  int cmd_status = 0;
  std::atomic<bool> stop{false};
  RunOptions ro;
  ro.clients = clients;
  ro.shared_handle = f.shared_handle;
  ro.stop = &stop;
  ro.rate = f.rate;
  ro.seed = 7;
  auto at = [](Clock::time_point t, double s) {
    return t + std::chrono::duration_cast<Clock::duration>(
                   std::chrono::duration<double>(s));
  };
  // The run lasts --seconds, and at least --after seconds past the moment
  // the server answers again (a big append-only file takes long to load).
  ro.beside = [&](Clock::time_point start) {
    std::this_thread::sleep_until(at(start, f.restart_at));
    kill_s = Seconds(Clock::now() - start);
    cmd_status = std::system(f.restart_cmd.c_str());
    ready_s = Seconds(Clock::now() - start);
    std::this_thread::sleep_until(
        std::max(at(start, f.seconds), at(start, ready_s + f.after)));
    stop = true;
  };
  auto run = Run(redis, corpus, ro, serial);
  if (!run) {
    std::fprintf(stderr, "redis: %s\n", run.error().ToString().c_str());
    return 1;
  }
  if (cmd_status != 0) {
    std::fprintf(stderr, "restart command failed (status %d)\n", cmd_status);
    return 1;
  }
  auto after = StatsOf(redis);
  if (!after) {
    std::fprintf(stderr, "redis: %s\n", after.error().ToString().c_str());
    return 1;
  }
  const store::RedisOptions ro_store = pipeline::RedisOptions(redis.settings);
  const double bound_us =
      std::chrono::duration<double, std::micro>(ro_store.connect_timeout +
                                                ro_store.command_timeout)
          .count();

  std::printf(
      "\nrestart: %d clients (one handle each%s), %.0f messages/s in all, "
      "%.1f s; server killed at %.3f s, answering again at %.3f s (down "
      "%.3f s, its append-only file of %llu messages reloaded)\n",
      clients, f.shared_handle ? ", shared" : "", f.rate, run->wall_s, kill_s,
      ready_s, ready_s - kill_s,
      static_cast<unsigned long long>(before->messages));
  std::printf(
      "per second (all messages, failed ones included; microseconds):\n");
  std::printf("%6s %6s %6s %6s %9s %9s %9s\n", "second", "state", "ok",
              "failed", "p50", "p99", "max");
  const int seconds = static_cast<int>(std::ceil(run->wall_s));
  for (int s = 0; s < seconds; ++s) {
    std::vector<double> total;
    std::uint64_t ok = 0, failed = 0;
    for (const Op& op : run->ops) {
      if (op.start_s < s || op.start_s >= s + 1) continue;
      total.push_back(op.total_us);
      (op.status == OpStatus::kOk ? ok : failed)++;
    }
    const char* state = s + 1 <= kill_s ? "up" : s < ready_s ? "DOWN" : "back";
    std::printf("%6d %6s %6llu %6llu %9.0f %9.0f %9.0f\n", s, state,
                static_cast<unsigned long long>(ok),
                static_cast<unsigned long long>(failed), Percentile(total, 0.5),
                Percentile(total, 0.99), Percentile(total, 1.0));
  }

  // Calls over the bound, failures by code, and the messages of each phase.
  std::uint64_t over = 0, unavailable = 0, other = 0, down_ok = 0, down = 0,
                failed_after = 0;
  double longest_call = 0;
  std::vector<double> up_ok, down_all, back_first5, back_rest;
  double first_ok_after = -1;
  std::map<int, double> client_back;  // client -> its first success after
  for (const Op& op : run->ops) {
    const double end_s = op.start_s + op.total_us / 1e6;
    longest_call = std::max<double>(longest_call, op.longest_call_us);
    if (op.longest_call_us > bound_us) ++over;
    if (op.status != OpStatus::kOk) {
      (op.code == Error::Code::kUnavailable ? unavailable : other)++;
    }
    if (op.start_s < kill_s) {
      if (op.status == OpStatus::kOk) up_ok.push_back(op.total_us);
    } else if (op.start_s < ready_s) {
      ++down;
      if (op.status == OpStatus::kOk) ++down_ok;
      down_all.push_back(op.total_us);
    } else if (op.status == OpStatus::kOk) {
      (op.start_s < ready_s + 5 ? back_first5 : back_rest)
          .push_back(op.total_us);
    } else {
      ++failed_after;
    }
    if (op.status == OpStatus::kOk && end_s >= ready_s) {
      if (first_ok_after < 0 || end_s < first_ok_after) first_ok_after = end_s;
      auto [it, fresh] = client_back.emplace(op.client, end_s);
      if (!fresh) it->second = std::min(it->second, end_s);
    }
  }
  double last_client_back = -1;
  for (const auto& [client, back_at] : client_back)
    last_client_back = std::max(last_client_back, back_at);
  auto line = [](const char* name, const std::vector<double>& v) {
    std::printf("  %-36s %6zu msgs  p50 %7.0f  p99 %7.0f  max %7.0f us\n", name,
                v.size(), Percentile(v, 0.5), Percentile(v, 0.99),
                Percentile(v, 1.0));
  };
  std::printf("latency (Find + Decide + Record):\n");
  line("before the kill, succeeded", up_ok);
  line("while down, all", down_all);
  line("first 5 s after it answered, succeeded", back_first5);
  line("later, succeeded", back_rest);
  std::printf(
      "while down: %llu messages, %llu succeeded (sent before the kill "
      "landed); after it answered: %llu failed (reconnect backoff); "
      "failures of the run: %llu kUnavailable, %llu other\n",
      static_cast<unsigned long long>(down),
      static_cast<unsigned long long>(down_ok),
      static_cast<unsigned long long>(failed_after),
      static_cast<unsigned long long>(unavailable),
      static_cast<unsigned long long>(other));
  std::printf(
      "longest single call %.0f us; messages with a call over connect + "
      "command timeout (%.0f us): %llu\n",
      longest_call, bound_us, static_cast<unsigned long long>(over));
  std::printf(
      "first success %.3f s after the server answered; all %zu of %d "
      "clients back %.3f s after\n",
      first_ok_after - ready_s, client_back.size(), clients,
      last_client_back - ready_s);
  std::uint64_t recorded = 0;
  for (const Op& op : run->ops) recorded += op.status == OpStatus::kOk;
  const std::uint64_t expected = before->messages + recorded;
  std::printf(
      "stored: %llu before + %llu recorded = %llu expected, %llu after the "
      "restart (lost: %lld; a Record that timed out may still have been "
      "stored)\n",
      static_cast<unsigned long long>(before->messages),
      static_cast<unsigned long long>(recorded),
      static_cast<unsigned long long>(expected),
      static_cast<unsigned long long>(after->messages),
      std::max(0LL, static_cast<long long>(expected) -
                        static_cast<long long>(after->messages)));
  return 0;
}

}  // namespace

int LoadMain(int argc, char** argv) {
  Flags f;
  if (!ParseFlags(argc, argv, &f)) {
    std::fprintf(stderr,
                 "usage: store_bench --clients LIST [--messages N] [--queries "
                 "Q] [--dir DIR] [--redis ADDRESS | --redis-cluster SEEDS] "
                 "[--redis-user U] "
                 "[--redis-password-file F] [--redis-tls-ca F] "
                 "[--redis-tls-cert F --redis-tls-key F] [--redis-prefix P] "
                 "[--redis-timeout MS] [--backends sqlite,redis] "
                 "[--fill-clients N] [--fill record|full|distinct|botnet] "
                 "[--bases N] [--no-fill] "
                 "[--shared-handle] [--max-per-key N] [--max-candidates N] "
                 "[--index-split N] "
                 "[--restart-at S --restart-cmd CMD [--seconds D] [--after A] "
                 "[--rate R]]\n");
    return 2;
  }
  const fingerprint::Options options =
      pipeline::FingerprintOptions(config::Settings{}.fingerprint);
  auto corpus = CorpusFingerprints(options);
  if (f.bases > 0 && f.bases < corpus.size()) corpus.resize(f.bases);
  if (corpus.empty()) {
    std::fprintf(stderr,
                 "store_bench: dev corpus not found: set MW_MAIL_DIR or "
                 "provide ../shared/data/mail\n");
    return 1;
  }
  bool made_dir = false;
  if (f.dir.empty()) {
    char tmpl[] = "/tmp/mw-store-bench-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return 1;
    f.dir = tmpl;
    made_dir = true;
  }
  std::vector<Backend> backends;
  for (const std::string& name : f.backends)
    backends.push_back(MakeBackend(name, f));
  std::printf("corpus: %zu fingerprints; store in %s\n", corpus.size(),
              f.dir.c_str());

  // Both stores get the same timeline: arrivals 500 ms apart ending now.
  FillOptions fo;
  fo.messages = f.messages;
  fo.clients = f.fill_clients;
  fo.full_path = f.fill_full;
  fo.distinct = f.fill_distinct;
  fo.own_senders = f.fill_botnet;
  if (fo.distinct) {
    fo.messages = std::min<std::uint64_t>(fo.messages, corpus.size());
  }
  fo.first_arrival =
      store::NowMillis() -
      static_cast<store::UnixMillis>(fo.messages) * fo.spacing.count();
  std::atomic<std::uint64_t> serial{f.messages};
  int status = 0;
  for (const Backend& backend : backends) {
    if (!f.fill) break;
    if (fo.distinct) {
      // A first pass creates the keys a window holds whatever its messages
      // (Redis: the index buckets, ~100 bytes each, 16,384 of them); the
      // second pass, each corpus message recorded again as a message of
      // its own, is what the store's size grows by per message.
      auto warm = Fill(backend, corpus, fo, 0);
      if (!warm) {
        std::fprintf(stderr, "%s: fill: %s\n", backend.name.c_str(),
                     warm.error().ToString().c_str());
        return 1;
      }
      std::printf("fill (distinct): %s: a first pass of %llu messages\n",
                  backend.name.c_str(),
                  static_cast<unsigned long long>(fo.messages));
    }
    auto before = StatsOf(backend);
    if (!before) {
      std::fprintf(stderr, "%s: %s\n", backend.name.c_str(),
                   before.error().ToString().c_str());
      return 1;
    }
    const bool redis = backend.settings.store.backend == "redis";
    Result<double> cpu_before = redis ? ServerCpuSeconds(backend) : 0.0;
    auto took = Fill(backend, corpus, fo, fo.distinct ? fo.messages : 0);
    Result<double> cpu_after = redis ? ServerCpuSeconds(backend) : 0.0;
    if (!took) {
      std::fprintf(stderr, "%s: fill: %s\n", backend.name.c_str(),
                   took.error().ToString().c_str());
      return 1;
    }
    // Let SQLite's maintenance thread fold the WAL back first.
    std::this_thread::sleep_for(std::chrono::seconds(3));
    auto after = StatsOf(backend);
    if (!after) return 1;
    std::printf("fill (%s, %d clients): ",
                f.fill_distinct ? "distinct"
                : f.fill_full   ? "full path"
                : f.fill_botnet ? "botnet"
                                : "record",
                f.fill_clients);
    PrintFill(backend, *took, fo.messages, *before, *after);
    if (redis) {
      PrintServerCpu(backend, cpu_before, cpu_after, fo.messages,
                     f.fill_full ? "Find + Record" : "Record");
    }
    std::fflush(stdout);
  }
  if (f.queries > 0) status = Throughput(f, backends, corpus, serial);
  if (status == 0 && f.restart_at >= 0) {
    status = Restart(f, MakeBackend("redis", f), corpus, serial);
  }
  if (made_dir) fs::remove_all(f.dir);
  return status;
}

}  // namespace mw::bench
