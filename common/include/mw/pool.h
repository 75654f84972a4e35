// A bounded pool of reusable objects: the scratch state an analysis needs
// (a word memo, an ICU iterator) is costly to build and to keep, and the
// milter runs as many threads as connections are busy. A thread_local copy
// per thread would make memory grow with the number of threads; a Pool keeps
// at most `max_idle` spare objects however many threads there are, and an
// object beyond that is built for one use and freed after it.
//
// Thread-safety: Acquire and the lease's release may run on any thread at
// once (one mutex, held only to move a pointer).
#ifndef MW_POOL_H_
#define MW_POOL_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace mw {

template <typename T>
class Pool {
 public:
  // `make` builds a new object (it may return null: Acquire then gives an
  // empty lease).
  Pool(std::size_t max_idle, std::function<std::unique_ptr<T>()> make)
      : max_idle_(max_idle), make_(std::move(make)) {}
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Gives the object back to its pool when destroyed.
  class Lease {
   public:
    Lease(Pool* pool, std::unique_ptr<T> object)
        : pool_(pool), object_(std::move(object)) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (object_) pool_->Release(std::move(object_));
    }
    T* get() const { return object_.get(); }
    T* operator->() const { return object_.get(); }
    T& operator*() const { return *object_; }
    explicit operator bool() const { return object_ != nullptr; }

   private:
    Pool* pool_;
    std::unique_ptr<T> object_;
  };

  Lease Acquire() {
    {
      std::lock_guard lock(mutex_);
      if (!idle_.empty()) {
        std::unique_ptr<T> o = std::move(idle_.back());
        idle_.pop_back();
        return Lease(this, std::move(o));
      }
    }
    return Lease(this, make_());
  }

  std::size_t idle() const {
    std::lock_guard lock(mutex_);
    return idle_.size();
  }

 private:
  void Release(std::unique_ptr<T> object) {
    std::lock_guard lock(mutex_);
    if (idle_.size() < max_idle_) idle_.push_back(std::move(object));
    // else: freed as `object` goes out of scope (under the lock: a few
    // frees of an idle overflow, not worth a second critical section)
  }

  const std::size_t max_idle_;
  const std::function<std::unique_ptr<T>()> make_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<T>> idle_;
};

// The number of spare objects per pool the analysis keeps: enough for every
// core to analyse at once without building anything.
std::size_t DefaultPoolIdle();

}  // namespace mw

#endif  // MW_POOL_H_
