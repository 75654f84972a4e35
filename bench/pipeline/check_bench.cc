// check_bench: CPU time of `mailwave check` per message, split by stage, over
// the development corpus, with GMime's bare parse (construct the message,
// decode every leaf) measured in the same run as the baseline.
//
//   build/bin/check_bench [--rounds N] [--store DIR] [--window]
//                         [--commit-delay MS]
//
// --window: Check with the comparison window (pipeline/window.h, [gpu]
// defaults: the CPU engine here); its row is wall-clock time (the engine
// works on its own threads, which this thread's CPU clock does not see).
//
// Each round runs the baseline over the whole corpus, then the analysis
// (pipeline::Analyzer::Analyze), then pipeline::Check against a fresh SQLite
// store in a temporary directory (every message looked up and recorded, so
// the lookup and record figures include a store that fills up to the corpus'
// size); the table gives the median round. CPU time is this thread's
// (CLOCK_THREAD_CPUTIME_ID), so other processes on a shared host do not count;
// the ratio against the baseline is what compares across days.
//
// --commit-delay MS: the store groups Records into one transaction as the
// daemon does ([store] commit_delay, 20 ms by default there; 0 here, one
// commit per message as `mailwave check` does). The commits then run on the
// store's flusher thread, so the whole-check row is this process's CPU time
// (CLOCK_PROCESS_CPUTIME_ID), closing the store and its last commit included,
// and "store record" leaves the commits out.
#include <gmime/gmime.h>
#include <stdlib.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench/corpus_files.h"
#include "bench/gmime_baseline.h"
#include "mw/budget.h"
#include "pipeline/analysis.h"
#include "pipeline/check.h"
#include "pipeline/options.h"
#include "pipeline/window.h"
#include "store/sqlite.h"

namespace {

namespace fs = std::filesystem;
using Ns = std::chrono::nanoseconds;

Ns Baseline(const std::vector<std::string>& corpus) {
  const Ns t0 = mw::Budget::ThreadCpuNow();
  size_t decoded = 0;
  for (const auto& m : corpus) decoded += mw::bench::GMimeBareParse(m);
  if (decoded == 1) std::puts("");  // keeps the loop from being optimised out
  return mw::Budget::ThreadCpuNow() - t0;
}

struct Round {
  Ns baseline{0};
  mw::pipeline::Timings analysis;  // summed over the corpus (Analyze)
  Ns analysis_total{0};
  mw::pipeline::Timings check;  // summed over the corpus (Check)
  Ns check_total{0};
  std::size_t window_queries = 0;
};

void Add(mw::pipeline::Timings& sum, const mw::pipeline::Timings& t) {
  sum.parse += t.parse;
  sum.normalise += t.normalise;
  sum.langid += t.langid;
  sum.fingerprint += t.fingerprint;
  sum.lookup += t.lookup;
  sum.decide += t.decide;
  sum.record += t.record;
  sum.window += t.window;
}

Ns ProcessCpuNow() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return Ns(static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec);
}

double Ms(Ns ns, size_t n) {
  return static_cast<double>(ns.count()) / 1e6 / static_cast<double>(n);
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 3;
  std::string store_dir;
  bool use_window = false;
  int commit_delay_ms = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--store" && i + 1 < argc) {
      store_dir = argv[++i];
    } else if (a == "--window") {
      use_window = true;
    } else if (a == "--commit-delay" && i + 1 < argc) {
      commit_delay_ms = std::max(0, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr,
                   "usage: check_bench [--rounds N] [--store DIR] [--window] "
                   "[--commit-delay MS]\n");
      return 2;
    }
  }
  const std::vector<std::string> corpus = mw::bench::CorpusFiles();
  if (corpus.empty()) {
    std::fprintf(stderr,
                 "check_bench: dev corpus not found: set MW_MAIL_DIR or "
                 "provide ../shared/data/mail\n");
    return 1;
  }
  g_mime_init();
  mw::config::Settings settings;
  settings.langid.dictionary =
      std::string(MW_BINARY_DIR) + "/share/mailwave/langid.dict";
  auto analyzer = mw::pipeline::Analyzer::Create(settings);
  if (!analyzer) {
    std::fprintf(stderr, "check_bench: %s\n",
                 analyzer.error().message().c_str());
    return 1;
  }
  std::uint64_t bytes = 0;
  for (const auto& m : corpus) bytes += m.size();
  std::printf("corpus: %zu messages, %.1f MB, mean %.0f bytes\n", corpus.size(),
              static_cast<double>(bytes) / 1e6,
              static_cast<double>(bytes) / static_cast<double>(corpus.size()));

  std::vector<Round> results;
  for (int r = 0; r < rounds; ++r) {
    Round round;
    round.baseline = Baseline(corpus);
    {
      const Ns t0 = mw::Budget::ThreadCpuNow();
      for (const auto& m : corpus) {
        auto a = (*analyzer)->Analyze(m, {});
        if (a) Add(round.analysis, a->timings);
      }
      round.analysis_total = mw::Budget::ThreadCpuNow() - t0;
    }
    char tmpl[] = "/tmp/mw-check-bench-XXXXXX";
    const std::string dir =
        store_dir.empty() ? std::string(mkdtemp(tmpl)) : store_dir;
    {
      mw::store::SqliteOptions so = mw::pipeline::SqliteOptions(settings);
      so.path = dir + "/bench-" + std::to_string(r) + ".db";
      so.retention = std::chrono::milliseconds(0);  // the messages are dated
                                                    // in the past
      // 0: each Record commits on this thread. Otherwise the commits run on
      // the store's flusher thread, which only the process clock sees.
      so.commit_delay = std::chrono::milliseconds(commit_delay_ms);
      auto db = mw::store::OpenSqlite(so);
      if (!db) {
        std::fprintf(stderr, "check_bench: %s\n", db.error().message().c_str());
        return 1;
      }
      std::int64_t now = 1'790'000'000'000;
      std::unique_ptr<mw::pipeline::Window> window;
      if (use_window) {
        auto w = mw::pipeline::Window::Open(**db, settings, now, {});
        if (!w) {
          std::fprintf(stderr, "check_bench: %s\n",
                       w.error().message().c_str());
          return 1;
        }
        window = std::move(*w);
        if (results.empty())
          std::printf("comparison window on the %s engine\n",
                      window->backend().c_str());
      }
      const Ns t0 =
          commit_delay_ms > 0 ? ProcessCpuNow() : mw::Budget::ThreadCpuNow();
      for (const auto& m : corpus) {
        auto o = mw::pipeline::Check(
            **analyzer, db->get(), m, {},
            {.dry_run = false, .now = now += 1000, .window = window.get()});
        if (o && o->window_asked) ++round.window_queries;
        if (o) Add(round.check, o->analysis.timings);
      }
      if (commit_delay_ms > 0) {
        window.reset();
        db->reset();  // commits the last batch
        round.check_total = ProcessCpuNow() - t0;
      } else {
        round.check_total = mw::Budget::ThreadCpuNow() - t0;
      }
    }
    if (store_dir.empty()) fs::remove_all(dir);
    results.push_back(round);
  }
  std::sort(results.begin(), results.end(), [](const Round& a, const Round& b) {
    return a.check_total < b.check_total;
  });
  const Round& m = results[results.size() / 2];
  const size_t n = corpus.size();
  const double base = Ms(m.baseline, n);
  std::printf(
      "\nCPU ms per message (median of %d rounds; ratio = against "
      "GMime's bare parse in the same round)\n\n",
      rounds);
  std::printf("%-34s %9s %8s\n", "stage", "ms/msg", "ratio");
  auto row = [&](const char* name, Ns ns) {
    std::printf("%-34s %9.4f %8.2f\n", name, Ms(ns, n), Ms(ns, n) / base);
  };
  row("GMime bare parse (baseline)", m.baseline);
  row("parse + text extraction", m.check.parse);
  row("normalisation", m.check.normalise);
  row("language", m.check.langid);
  row("fingerprints", m.check.fingerprint);
  row("store lookup", m.check.lookup);
  row("decision (Compare)", m.check.decide);
  row("store record", m.check.record);
  if (use_window) {
    std::printf("%-34s %9.4f %8s  (%zu queries, %.3f ms each)\n",
                "comparison window (wall clock)", Ms(m.check.window, n), "-",
                m.window_queries,
                m.window_queries
                    ? static_cast<double>(m.check.window.count()) / 1e6 /
                          static_cast<double>(m.window_queries)
                    : 0.0);
  }
  row("analysis alone (Analyze)", m.analysis_total);
  if (commit_delay_ms > 0) {
    std::printf(
        "(commit_delay %d ms: \"store record\" leaves out the commits, "
        "which the flusher thread runs; the whole check counts them)\n",
        commit_delay_ms);
  }
  row("whole check (Check, store incl.)", m.check_total);
  return 0;
}
