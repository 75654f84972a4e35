// mw::Pool: objects are reused, at most max_idle are kept, an object past
// that is freed after its one use, and many threads at once see each object
// held by one of them only.
#include "mw/pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace mw {
namespace {

struct Counted {
  static inline std::atomic<int> alive{0};
  static inline std::atomic<int> made{0};
  Counted() {
    ++alive;
    ++made;
  }
  ~Counted() { --alive; }
  std::atomic<int> holders{0};
};

TEST(Pool, ReusesAndBoundsTheSpares) {
  Counted::alive = 0;
  Counted::made = 0;
  {
    Pool<Counted> pool(2, [] { return std::make_unique<Counted>(); });
    Counted* first = nullptr;
    {
      auto a = pool.Acquire();
      first = a.get();
    }
    EXPECT_EQ(pool.idle(), 1u);
    {
      auto a = pool.Acquire();
      EXPECT_EQ(a.get(), first) << "a spare object is reused";
    }
    EXPECT_EQ(Counted::made.load(), 1);
    {
      // Five at once: five objects, of which two stay as spares.
      std::vector<Pool<Counted>::Lease> held;
      for (int i = 0; i < 5; ++i) held.push_back(pool.Acquire());
      EXPECT_EQ(Counted::alive.load(), 5);
    }
    EXPECT_EQ(pool.idle(), 2u);
    EXPECT_EQ(Counted::alive.load(), 2);
  }
  EXPECT_EQ(Counted::alive.load(), 0);
}

TEST(Pool, AFactoryThatFailsGivesAnEmptyLease) {
  Pool<int> pool(1, [] { return std::unique_ptr<int>(); });
  auto lease = pool.Acquire();
  EXPECT_FALSE(lease);
}

TEST(Pool, OneHolderAtATimeAcrossThreads) {
  Counted::alive = 0;
  Pool<Counted> pool(3, [] { return std::make_unique<Counted>(); });
  std::atomic<bool> shared{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        auto lease = pool.Acquire();
        if (lease->holders.fetch_add(1) != 0) shared = true;
        lease->holders.fetch_sub(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(shared.load());
  EXPECT_LE(pool.idle(), 3u);
  EXPECT_LE(Counted::alive.load(), 3);
}

}  // namespace
}  // namespace mw
