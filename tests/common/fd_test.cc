#include "mw/fd.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

namespace mw {
namespace {

bool IsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

TEST(Fd, ClosesWhatItOwnsAtTheEndOfItsScope) {
  int raw = -1;
  {
    const Fd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    raw = fd.get();
    ASSERT_GE(raw, 0);
    EXPECT_TRUE(IsOpen(raw));
  }
  errno = 0;
  EXPECT_FALSE(IsOpen(raw));
  EXPECT_EQ(errno, EBADF);
}

TEST(Fd, AFailedOpenIsHeldAsIsAndClosesNothing) {
  const int other = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(other, 0);
  {
    const Fd fd(::open("/nonexistent/mw-fd-test", O_RDONLY | O_CLOEXEC));
    EXPECT_EQ(fd.get(), -1);
  }
  EXPECT_TRUE(IsOpen(other));
  ::close(other);
}

}  // namespace
}  // namespace mw
