#include "gpu/worker.h"

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

namespace mw::gpu {

namespace asio = boost::asio;
using QueryResult = Result<std::vector<Engine::WindowMatch>>;

namespace {

bool SameThresholds(const Thresholds& a, const Thresholds& b) {
  return a.ctph_edit_rate == b.ctph_edit_rate &&
         a.simhash_distance == b.simhash_distance &&
         a.sketch_jaccard == b.sketch_jaccard &&
         a.sketch_length_ratio == b.sketch_length_ratio &&
         a.sketch_min_words == b.sketch_min_words;
}

}  // namespace

struct Worker::Impl {
  struct Pending {
    Signature query;
    Kind kind;
    Thresholds thresholds;
    std::promise<QueryResult> promise;
  };

  Impl(std::unique_ptr<Engine> e, unsigned t, WorkerOptions o)
      : engine(std::move(e)),
        threads(t),
        options(std::move(o)),
        keep_host_copy(engine->Name() != "cpu"),
        name(engine->Name()) {
    if (options.batch_size == 0) options.batch_size = 1;
    thread = std::thread([this] { io.run(); });
  }

  ~Impl() {
    asio::post(io, [this] {
      timer.cancel();
      for (Pending& p : pending)
        p.promise.set_value(Fail(
            Error::Unavailable("gpu worker stopped before the query ran")));
      pending.clear();
    });
    work.reset();
    thread.join();
  }

  // All below on the worker thread.

  void Enqueue(Pending p) {
    pending.push_back(std::move(p));
    if (pending.size() >= options.batch_size) {
      Flush();
    } else if (pending.size() == 1 && options.deadline.count() == 0) {
      // No deadline: the batch runs once the handlers already queued have
      // run, i.e. it holds every query that arrived while the engine was busy
      // with the last one; an idle worker answers at once.
      const std::uint64_t epoch = flushes;
      asio::post(io, [this, epoch] {
        if (flushes == epoch && !pending.empty()) Flush();
      });
    } else if (pending.size() == 1) {
      timer.expires_after(options.deadline);
      timer.async_wait([this](const boost::system::error_code& ec) {
        if (!ec) Flush();
      });
    }
  }

  void Flush() {
    timer.cancel();
    ++flushes;
    std::vector<Pending> batch = std::move(pending);
    pending.clear();
    // One Engine::Query per (kind, thresholds) group, in arrival order.
    std::vector<bool> done(batch.size(), false);
    for (std::size_t first = 0; first < batch.size(); ++first) {
      if (done[first]) continue;
      std::vector<std::size_t> members;
      std::vector<Signature> queries;
      for (std::size_t k = first; k < batch.size(); ++k) {
        if (!done[k] && batch[k].kind == batch[first].kind &&
            SameThresholds(batch[k].thresholds, batch[first].thresholds)) {
          done[k] = true;
          members.push_back(k);
          queries.push_back(batch[k].query);
        }
      }
      QueryResult r =
          RunQuery(queries, batch[first].kind, batch[first].thresholds);
      if (!r) {
        for (std::size_t k : members)
          batch[k].promise.set_value(Fail(r.error()));
        continue;
      }
      std::vector<std::vector<Engine::WindowMatch>> per(members.size());
      for (const Engine::WindowMatch& m : *r)
        per[m.query].push_back({0, m.id, m.score});
      for (std::size_t g = 0; g < members.size(); ++g)
        batch[members[g]].promise.set_value(std::move(per[g]));
    }
  }

  QueryResult RunQuery(const std::vector<Signature>& queries, Kind kind,
                       const Thresholds& t) {
    batches.fetch_add(1, std::memory_order_relaxed);
    QueryResult r = engine->Query(queries, kind, t);
    if (r || !FallBack(r.error())) return r;
    return engine->Query(queries, kind, t);
  }

  // Replaces a failed device engine by a CPU engine holding the host copy.
  // False when the engine was already the CPU one (its error stands).
  bool FallBack(const Error& error) {
    if (!keep_host_copy) return false;
    auto cpu = MakeEngine(Backend::kCpu, threads);
    if (!cpu) return false;
    for (const auto& [id, sig] : host_window) {
      if (!(*cpu)->Add(id, sig)) return false;
    }
    if (options.log) {
      options.log("gpu: " + std::string(engine->Name()) + " engine failed (" +
                  error.message() + "); the window now runs on the cpu");
    }
    engine = std::move(*cpu);
    keep_host_copy = false;
    host_window.clear();
    {
      const std::lock_guard<std::mutex> lock(name_mu);
      name = "cpu";
    }
    return true;
  }

  Result<void> ApplyAdd(std::uint64_t id, const Signature& sig) {
    if (keep_host_copy) host_window[id] = sig;
    Result<void> r = engine->Add(id, sig);
    if (r || !FallBack(r.error())) return r;
    return {};  // the rebuilt CPU engine has it from the host copy
  }

  Result<void> ApplyRemove(std::uint64_t id) {
    if (keep_host_copy) host_window.erase(id);
    Result<void> r = engine->Remove(id);
    if (r || !FallBack(r.error())) return r;
    return {};
  }

  std::unique_ptr<Engine> engine;
  const unsigned threads;
  WorkerOptions options;
  bool keep_host_copy;
  std::unordered_map<std::uint64_t, Signature> host_window;
  std::vector<Pending> pending;
  std::uint64_t flushes = 0;  // batches flushed: a stale posted flush skips
  std::atomic<std::uint64_t> batches{0};

  mutable std::mutex name_mu;
  std::string name;  // GUARDED_BY(name_mu)

  asio::io_context io{1};
  asio::executor_work_guard<asio::io_context::executor_type> work{
      io.get_executor()};
  asio::steady_timer timer{io};
  std::thread thread;  // last: starts after every member above exists
};

Result<std::unique_ptr<Worker>> Worker::Start(Backend backend, unsigned threads,
                                              WorkerOptions options) {
  std::string reason;
  auto engine = MakeEngine(backend, threads, &reason);
  if (!engine) return Fail(engine.error());
  if (!reason.empty() && options.log)
    options.log("gpu: backend auto runs on the cpu: " + reason);
  return std::make_unique<Worker>(std::move(*engine), threads,
                                  std::move(options));
}

Worker::Worker(std::unique_ptr<Engine> engine, unsigned threads,
               WorkerOptions options)
    : impl_(std::make_unique<Impl>(std::move(engine), threads,
                                   std::move(options))) {}

Worker::~Worker() = default;

std::future<QueryResult> Worker::Submit(const Signature& query, Kind kind,
                                        const Thresholds& thresholds) {
  Impl::Pending p{query, kind, thresholds, {}};
  std::future<QueryResult> f = p.promise.get_future();
  asio::post(impl_->io, [impl = impl_.get(), p = std::move(p)]() mutable {
    impl->Enqueue(std::move(p));
  });
  return f;
}

std::future<Result<void>> Worker::Add(std::uint64_t id, const Signature& sig) {
  auto promise = std::make_shared<std::promise<Result<void>>>();
  std::future<Result<void>> f = promise->get_future();
  asio::post(impl_->io, [impl = impl_.get(), id, sig, promise] {
    promise->set_value(impl->ApplyAdd(id, sig));
  });
  return f;
}

std::future<Result<void>> Worker::Remove(std::uint64_t id) {
  auto promise = std::make_shared<std::promise<Result<void>>>();
  std::future<Result<void>> f = promise->get_future();
  asio::post(impl_->io, [impl = impl_.get(), id, promise] {
    promise->set_value(impl->ApplyRemove(id));
  });
  return f;
}

std::string Worker::backend() const {
  const std::lock_guard<std::mutex> lock(impl_->name_mu);
  return impl_->name;
}

std::uint64_t Worker::batches() const {
  return impl_->batches.load(std::memory_order_relaxed);
}

}  // namespace mw::gpu
