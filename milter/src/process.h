// What a daemon does to its process at start: become a configured user,
// detach from the terminal, write a pid file, and give the unix socket its
// owner and mode. Each step is a function returning a Result, so main()
// decides what a failure means (all of them stop the start, exit 1 or 2).
//
// Thread-safety: call from main before any other thread starts (fork and
// setuid apply to the calling thread's process as it is then).
#ifndef MW_MILTER_PROCESS_H_
#define MW_MILTER_PROCESS_H_

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>

#include "mw/result.h"

namespace mw::milter {

// A user to become: looked up at start, so that a name that does not exist
// is a configuration error before anything is bound.
struct Identity {
  std::string user;
  uid_t uid = 0;
  gid_t gid = 0;  // the configured group, else the user's primary group
};

// `user` empty: nullopt (stay who we are). `group` empty: the user's primary
// group. Unknown names fail with "milter.user: no such user NAME".
[[nodiscard]] Result<std::optional<Identity>> ResolveIdentity(
    const std::string& user, const std::string& group);

// The group of that name alone (for the socket when no user is set).
[[nodiscard]] Result<gid_t> ResolveGroup(const std::string& group);

// initgroups, setgid, setuid, then checks that root cannot be regained.
[[nodiscard]] Result<void> DropPrivileges(const Identity& id);

// A unix socket's path from a libmilter address ("unix:/p", "local:/p" or a
// bare path); empty for inet/inet6.
std::string UnixSocketPath(std::string_view conn);

// Parses "0660"-style octal permission bits (at most 0777).
[[nodiscard]] Result<mode_t> ParseMode(std::string_view text);

// chown (uid or gid left as -1 when absent) and chmod of the socket file.
[[nodiscard]] Result<void> SetSocketAccess(const std::string& path,
                                           std::optional<uid_t> uid,
                                           std::optional<gid_t> gid,
                                           std::optional<mode_t> mode);

// A detached daemon's line back to the process that started it: the parent
// of Daemonize waits until Ready (exit 0) or until the daemon ends without
// it (exit 1), so that "mailwave-milter" in a shell or an init script
// fails when the start fails, not a moment later.
class Detached {
 public:
  explicit Detached(int fd) : fd_(fd) {}
  Detached(Detached&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Detached& operator=(Detached&&) = delete;
  Detached(const Detached&) = delete;
  ~Detached();
  // The start succeeded: the parent exits 0. Once only.
  void Ready();
  // The start failed: the parent prints `reason` on its stderr and exits 1.
  void Failed(std::string_view reason);

 private:
  int fd_;
};

// Makes `dir` and its missing parents (mode 0750), giving the directories it
// made to `uid`/`gid` when set: the socket's and the store's directories of
// a first start with the built-in defaults (/run/mailwave, /var/lib/mailwave)
// exist before the daemon needs them. An existing directory is left as it
// is.
[[nodiscard]] Result<void> MakeDirectories(const std::string& dir,
                                           std::optional<uid_t> uid,
                                           std::optional<gid_t> gid);

// fork, setsid, fork again, chdir /, stdin/stdout/stderr to /dev/null.
// Returns in the daemon; the original process waits there for Ready.
[[nodiscard]] Result<Detached> Daemonize();

// Fails when `path` names a process that is alive (another daemon); a
// missing or stale file is fine. Called before the socket is bound, so that
// a second start cannot take the first one's socket away.
[[nodiscard]] Result<void> CheckNotRunning(const std::string& path);

// The pid file: written (O_EXCL after removing a stale one whose process is
// gone) by Create, removed by the destructor when it still holds our pid.
class PidFile {
 public:
  [[nodiscard]] static Result<PidFile> Create(const std::string& path);
  PidFile(PidFile&& other) noexcept : path_(std::move(other.path_)) {
    other.path_.clear();
  }
  PidFile& operator=(PidFile&&) = delete;
  PidFile(const PidFile&) = delete;
  ~PidFile();

 private:
  explicit PidFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace mw::milter

#endif  // MW_MILTER_PROCESS_H_
