#include "pipeline/window.h"

#include <algorithm>
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
  t.sketch_length_ratio = fingerprint::WordsLengthRatioBound(options);
  t.sketch_min_words = options.words_min_words;
  return t;
}

// How often Follow reads the shared store at most: a query of a few rows
// four times a second costs the store nothing, and a copy sent through
// another host is in this host's window a quarter of a second later.
constexpr auto kFollowEvery = std::chrono::milliseconds(250);

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
  std::int64_t newest = 0;
  auto walked =
      store.ForEach(since, [&](std::int64_t id, store::UnixMillis arrival,
                               const fingerprint::Fingerprint& fp) {
        newest = std::max(newest, id);
        if (fp.degraded || fp.body_bytes == 0) return true;
        loaded.push_back({id, arrival, gpu::ToSignature(fp)});
        if (loaded.size() > window->max_) loaded.pop_front();
        return true;
      });
  if (!walked) {
    // A shared store that is down now (Redis not up yet) is followed from
    // its first message once it answers; a local one that cannot be read is
    // a failure.
    if (!window->follow_ ||
        walked.error().code() != Error::Code::kUnavailable) {
      return Fail(walked.error());
    }
    if (log) {
      log("window: the store cannot be read now (" + walked.error().message() +
          "); filled as it comes back");
    }
  }
  window->followed_ = newest;
  std::vector<std::future<Result<void>>> adds;
  adds.reserve(loaded.size());
  for (const Loaded& l : loaded) {
    adds.push_back(
        window->worker_->Add(static_cast<std::uint64_t>(l.id), l.sig));
    window->order_.emplace_back(l.arrival, l.id);
    window->ids_.insert(l.id);
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
      max_(settings.gpu.window_max),
      follow_(settings.store.backend == "redis") {}

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

void Window::Follow(store::Store& store) {
  if (!follow_) return;
  std::unique_lock<std::mutex> lock(follow_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now < next_follow_) return;
  // A bounded read per call keeps the caller's message within its budget;
  // a full one lets the next caller go on reading (a window catching up
  // after an outage, a busy site).
  constexpr std::size_t kPerCall = 2000;
  std::size_t read = 0;
  auto next = store.ForEachNewer(followed_, kPerCall,
                                 [&](std::int64_t id, store::UnixMillis arrival,
                                     const fingerprint::Fingerprint& fp) {
                                   ++read;
                                   Add(id, arrival, fp);
                                   return true;
                                 });
  if (next) followed_ = *next;
  next_follow_ = next && read == kPerCall ? now : now + kFollowEvery;
}

void Window::Add(std::int64_t id, store::UnixMillis arrival,
                 const fingerprint::Fingerprint& fp) {
  if (fp.degraded || fp.body_bytes == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (!ids_.insert(id).second) return;  // followed and recorded here both
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
    ids_.erase(order_.front().second);
    order_.pop_front();
  }
}

std::size_t Window::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.size();
}

std::string Window::backend() const { return worker_->backend(); }

}  // namespace mw::pipeline
