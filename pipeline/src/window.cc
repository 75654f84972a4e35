#include "pipeline/window.h"

#include <future>
#include <iterator>
#include <utility>

namespace mw::pipeline {

namespace {

// The engine's sketch thresholds for Near: the words path's own, so that the
// engine names every stored message that path could call a duplicate.
gpu::Thresholds SketchThresholds(const fingerprint::Options& options) {
  gpu::Thresholds t;
  t.sketch_jaccard = options.words_jaccard;
  t.sketch_length_ratio = options.words_length_ratio;
  t.sketch_min_words = options.words_min_words;
  return t;
}

}  // namespace

Result<std::unique_ptr<Window>> Window::Open(
    store::Store& store, const config::Settings& settings,
    store::UnixMillis now, std::function<void(std::string_view)> log) {
  auto backend = gpu::ParseBackend(settings.gpu.backend);
  if (!backend) return Fail(backend.error());
  gpu::WorkerOptions wo;
  wo.batch_size = settings.gpu.batch_size;
  wo.deadline = std::chrono::duration_cast<std::chrono::microseconds>(
      settings.gpu.batch_deadline);
  wo.log = log;
  auto worker = gpu::Worker::Start(*backend, settings.gpu.threads, wo);
  if (!worker) return Fail(worker.error());
  std::unique_ptr<Window> window(new Window(std::move(*worker), settings));

  // The newest window_max messages within the retention: walked oldest
  // first, so a bounded queue keeps the last ones.
  struct Loaded {
    std::int64_t id;
    store::UnixMillis arrival;
    gpu::Signature sig;
  };
  std::deque<Loaded> loaded;
  const store::UnixMillis since =
      now - static_cast<store::UnixMillis>(settings.store.retention.count());
  auto walked =
      store.ForEach(since, [&](std::int64_t id, store::UnixMillis arrival,
                               const fingerprint::Fingerprint& fp) {
        if (fp.degraded || fp.body_bytes == 0) return true;
        loaded.push_back({id, arrival, gpu::ToSignature(fp)});
        if (loaded.size() > window->max_) loaded.pop_front();
        return true;
      });
  if (!walked) return Fail(walked.error());
  std::vector<std::future<Result<void>>> adds;
  adds.reserve(loaded.size());
  for (const Loaded& l : loaded) {
    adds.push_back(
        window->worker_->Add(static_cast<std::uint64_t>(l.id), l.sig));
    window->order_.emplace_back(l.arrival, l.id);
  }
  for (auto& f : adds) {
    Result<void> r = f.get();
    if (!r) return Fail(r.error());
  }
  if (log) {
    log("window: " + std::to_string(window->order_.size()) +
        " messages on the " + window->worker_->backend() + " engine");
  }
  return window;
}

Window::Window(std::unique_ptr<gpu::Worker> worker,
               const config::Settings& settings)
    : worker_(std::move(worker)),
      budget_(settings.gpu.budget),
      retention_(settings.store.retention),
      max_(settings.gpu.window_max) {}

Window::~Window() = default;

Window::Answer Window::Near(const fingerprint::Fingerprint& fp,
                            const fingerprint::Options& options) {
  Answer answer;
  if (fp.degraded || fp.body_bytes == 0) return answer;
  const auto deadline = std::chrono::steady_clock::now() + budget_;
  // The sketch alone: what no index key finds is the words path's (the index
  // already holds CTPH grams and SimHash bands), and a second kind would
  // double the engine's work per message.
  auto sketch = worker_->Submit(gpu::ToSignature(fp), gpu::Kind::kSketch,
                                SketchThresholds(options));
  if (sketch.wait_until(deadline) != std::future_status::ready) {
    // The abandoned future is completed by the worker later; nothing waits
    // on it.
    answer.missed = true;
    answer.reason =
        "no answer within " + std::to_string(budget_.count()) + " ms";
    return answer;
  }
  auto matches = sketch.get();
  if (!matches) {
    answer.missed = true;
    answer.reason = matches.error().message();
    return answer;
  }
  // One query's matches come in id order, each id once (Worker::Submit).
  answer.ids.reserve(matches->size());
  for (const auto& m : *matches) {
    answer.ids.push_back(static_cast<std::int64_t>(m.id));
  }
  return answer;
}

void Window::Add(std::int64_t id, store::UnixMillis arrival,
                 const fingerprint::Fingerprint& fp) {
  if (fp.degraded || fp.body_bytes == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  // The worker applies changes in submission order; the futures are not
  // waited on (an engine failure is the worker's to handle and log).
  (void)worker_->Add(static_cast<std::uint64_t>(id), gpu::ToSignature(fp));
  // Arrivals from many threads come nearly in order; keep the queue sorted
  // so the oldest leave first.
  auto at = order_.end();
  while (at != order_.begin() && std::prev(at)->first > arrival) --at;
  order_.insert(at, {arrival, id});
  EvictLocked(arrival);
}

void Window::EvictLocked(store::UnixMillis newest) {
  const store::UnixMillis oldest_kept =
      newest - static_cast<store::UnixMillis>(retention_.count());
  while (!order_.empty() &&
         (order_.size() > max_ || order_.front().first < oldest_kept)) {
    (void)worker_->Remove(static_cast<std::uint64_t>(order_.front().second));
    order_.pop_front();
  }
}

std::size_t Window::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.size();
}

std::string Window::backend() const { return worker_->backend(); }

}  // namespace mw::pipeline
