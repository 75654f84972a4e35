#include "process.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

namespace mw::milter {

namespace {

std::string Errno(std::string_view what, int err) {
  std::string s(what);
  s += ": ";
  s += std::strerror(err);
  return s;
}

// getpwnam_r/getgrnam_r with a buffer that grows on ERANGE.
template <typename Entry, typename Fn>
bool Lookup(Fn fn, const std::string& name, Entry* entry,
            std::vector<char>* buf) {
  buf->resize(1024);
  for (;;) {
    Entry* found = nullptr;
    const int r = fn(name.c_str(), entry, buf->data(), buf->size(), &found);
    if (r == ERANGE && buf->size() < (1u << 20)) {
      buf->resize(buf->size() * 2);
      continue;
    }
    return r == 0 && found != nullptr;
  }
}

}  // namespace

Result<gid_t> ResolveGroup(const std::string& name) {
  struct group g {};
  std::vector<char> buf;
  if (!Lookup(getgrnam_r, name, &g, &buf))
    return Fail(Error::InvalidArgument("milter.group: no such group " + name));
  return g.gr_gid;
}

Result<std::optional<Identity>> ResolveIdentity(const std::string& user,
                                                const std::string& group) {
  if (user.empty()) return std::optional<Identity>();
  passwd pw{};
  std::vector<char> buf;
  if (!Lookup(getpwnam_r, user, &pw, &buf))
    return Fail(Error::InvalidArgument("milter.user: no such user " + user));
  Identity id{.user = user, .uid = pw.pw_uid, .gid = pw.pw_gid};
  if (!group.empty()) {
    auto g = ResolveGroup(group);
    if (!g) return Fail(g.error());
    id.gid = *g;
  }
  return std::optional<Identity>(id);
}

Result<void> DropPrivileges(const Identity& id) {
  if (initgroups(id.user.c_str(), id.gid) != 0)
    return Fail(Error::Io(Errno("initgroups " + id.user, errno)));
  if (setgid(id.gid) != 0)
    return Fail(Error::Io(Errno("setgid " + std::to_string(id.gid), errno)));
  if (setuid(id.uid) != 0)
    return Fail(Error::Io(Errno("setuid " + id.user, errno)));
  // A process that can become root again has dropped nothing.
  if (id.uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
    return Fail(Error::Internal("setuid " + id.user + ": root regained"));
  return {};
}

std::string UnixSocketPath(std::string_view conn) {
  for (std::string_view prefix : {"unix:", "local:"}) {
    if (conn.substr(0, prefix.size()) == prefix)
      return std::string(conn.substr(prefix.size()));
  }
  if (conn.find(':') == std::string_view::npos) return std::string(conn);
  return {};
}

Result<mode_t> ParseMode(std::string_view text) {
  if (text.empty() || text.size() > 4)
    return Fail(Error::InvalidArgument(
        "milter.socket_mode: must be octal permission bits such as 0660"));
  mode_t mode = 0;
  for (char c : text) {
    if (c < '0' || c > '7')
      return Fail(Error::InvalidArgument(
          "milter.socket_mode: must be octal permission bits such as 0660"));
    mode = mode * 8 + static_cast<mode_t>(c - '0');
  }
  if (mode > 0777)
    return Fail(Error::InvalidArgument(
        "milter.socket_mode: at most 0777 (no setuid, setgid or sticky bit)"));
  return mode;
}

Result<void> MakeDirectories(const std::string& dir, std::optional<uid_t> uid,
                             std::optional<gid_t> gid) {
  if (dir.empty() || dir == "/") return {};
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return {};
    return Fail(Error::Io(dir + ": not a directory"));
  }
  const std::size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    auto parent = MakeDirectories(dir.substr(0, slash), uid, gid);
    if (!parent) return parent;
  }
  if (mkdir(dir.c_str(), 0750) != 0 && errno != EEXIST)
    return Fail(Error::Io(Errno("mkdir " + dir, errno)));
  if ((uid || gid) && chown(dir.c_str(), uid ? *uid : static_cast<uid_t>(-1),
                            gid ? *gid : static_cast<gid_t>(-1)) != 0)
    return Fail(Error::Io(Errno("chown " + dir, errno)));
  return {};
}

Result<void> SetSocketAccess(const std::string& path, std::optional<uid_t> uid,
                             std::optional<gid_t> gid,
                             std::optional<mode_t> mode) {
  if (uid || gid) {
    if (chown(path.c_str(), uid ? *uid : static_cast<uid_t>(-1),
              gid ? *gid : static_cast<gid_t>(-1)) != 0)
      return Fail(Error::Io(Errno("chown " + path, errno)));
  }
  if (mode && chmod(path.c_str(), *mode) != 0)
    return Fail(Error::Io(Errno("chmod " + path, errno)));
  return {};
}

Detached::~Detached() {
  if (fd_ >= 0) close(fd_);
}

void Detached::Ready() {
  if (fd_ < 0) return;
  const char ok = 0;
  [[maybe_unused]] ssize_t n = write(fd_, &ok, 1);
  close(fd_);
  fd_ = -1;
}

void Detached::Failed(std::string_view reason) {
  if (fd_ < 0) return;
  std::string line = "mailwave-milter: ";
  line.append(reason);
  line += '\n';
  [[maybe_unused]] ssize_t n = write(fd_, line.data(), line.size());
  close(fd_);
  fd_ = -1;
}

Result<Detached> Daemonize() {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0)
    return Fail(Error::Io(Errno("pipe", errno)));
  const pid_t first = fork();
  if (first < 0) return Fail(Error::Io(Errno("fork", errno)));
  if (first > 0) {
    // The starter: exit 0 when the daemon says it is ready (one zero
    // byte), else print what it said instead and exit 1.
    close(ready[1]);
    std::string said;
    char buf[512];
    for (;;) {
      const ssize_t n = read(ready[0], buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      said.append(buf, static_cast<std::size_t>(n));
    }
    int status = 0;
    while (waitpid(first, &status, 0) < 0 && errno == EINTR) {
    }
    if (said.size() == 1 && said[0] == 0) _exit(0);
    if (said.empty())
      said = "mailwave-milter: the daemon ended before it was ready\n";
    [[maybe_unused]] ssize_t w = write(2, said.data(), said.size());
    _exit(1);
  }
  close(ready[0]);
  // The second fork makes sure the daemon never gets a controlling
  // terminal again.
  if (setsid() < 0) _exit(1);
  const pid_t second = fork();
  if (second < 0) _exit(1);
  if (second > 0) _exit(0);
  if (chdir("/") != 0) return Fail(Error::Io(Errno("chdir /", errno)));
  const int null = open("/dev/null", O_RDWR);
  if (null < 0) return Fail(Error::Io(Errno("/dev/null", errno)));
  for (int fd = 0; fd <= 2; ++fd) dup2(null, fd);
  if (null > 2) close(null);
  return Detached(ready[1]);
}

namespace {

// The pid a pid file holds; 0 when there is none.
long ReadPid(const std::string& path) {
  std::ifstream in(path);
  long pid = 0;
  in >> pid;
  return pid;
}

// The pid a pid file names when that process is alive; 0 otherwise.
long LivePid(const std::string& path) {
  const long pid = ReadPid(path);
  if (pid <= 0 || (kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM))
    return 0;
  // A zombie (exited, not yet reaped by its parent) answers kill(0) too.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const std::size_t paren = line.rfind(')');
  if (paren != std::string::npos && paren + 2 < line.size() &&
      line[paren + 2] == 'Z')
    return 0;
  return pid;
}

}  // namespace

Result<void> CheckNotRunning(const std::string& path) {
  if (const long pid = LivePid(path); pid > 0 && pid != getpid())
    return Fail(Error::Unavailable(path + ": mailwave-milter " +
                                   std::to_string(pid) + " is running"));
  return {};
}

Result<PidFile> PidFile::Create(const std::string& path) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    const int fd =
        open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      const std::string text = std::to_string(getpid()) + "\n";
      const bool ok = write(fd, text.data(), text.size()) ==
                      static_cast<ssize_t>(text.size());
      close(fd);
      if (!ok) {
        unlink(path.c_str());
        return Fail(Error::Io(Errno("write " + path, errno)));
      }
      return PidFile(path);
    }
    if (errno != EEXIST) return Fail(Error::Io(Errno(path, errno)));
    // Another daemon's pid file: refuse while that process lives.
    if (auto r = CheckNotRunning(path); !r) return Fail(r.error());
    unlink(path.c_str());  // stale: its process is gone
  }
  return Fail(Error::Io(path + ": could not replace a stale pid file"));
}

PidFile::~PidFile() {
  if (path_.empty()) return;
  // Unlinking needs write access to the directory, which a daemon that has
  // dropped root may lack; then the next start finds the file stale.
  if (ReadPid(path_) == getpid()) unlink(path_.c_str());
}

}  // namespace mw::milter
