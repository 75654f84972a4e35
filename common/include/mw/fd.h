// An owned POSIX file descriptor, closed when its owner goes: the one such
// wrapper the modules share (archive reads files through it, the store its
// secret).
//
// Thread-safety: none; one owner.
#ifndef MW_FD_H_
#define MW_FD_H_

#include <unistd.h>

namespace mw {

// Owns `fd` when it is >= 0 (a failed open(2) may be passed as is: nothing is
// closed then). Not copyable.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace mw

#endif  // MW_FD_H_
