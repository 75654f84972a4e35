// Enumerating and reading the messages of an archive (archive.h).
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "archive/archive.h"
#include "archive/maildir.h"
#include "archive/mbox.h"
#include "mw/fd.h"

namespace mw::archive {
namespace {

std::string Reason(const std::string& path) {
  return path + ": " + std::strerror(errno);
}

// True when `head` begins with a header field: a name of printable ASCII
// without ':' or space, then ':'.
bool StartsWithHeader(std::string_view head) {
  std::size_t i = 0;
  while (i < head.size() && head[i] > ' ' && head[i] < 127 && head[i] != ':')
    ++i;
  return i > 0 && i < head.size() && head[i] == ':';
}

struct Walker {
  Listing out;
  std::set<std::pair<dev_t, ino_t>> seen_dirs;

  void Problem(std::string path, std::string message) {
    out.problems.push_back({std::move(path), std::move(message)});
  }

  void AddMessageFile(const std::string& path, const struct stat& st) {
    Entry e;
    e.name = path;
    e.file = path;
    e.length = static_cast<std::uint64_t>(st.st_size);
    e.mtime = st.st_mtime;
    out.entries.push_back(std::move(e));
  }

  // An mbox, or a file that may hold From_ lines after junk. mmap keeps the
  // file out of our memory: the kernel pages it in and drops it as the index
  // walks it once.
  void AddMbox(const std::string& path, int fd, const struct stat& st,
               bool starts_as_mbox) {
    const auto size = static_cast<std::size_t>(st.st_size);
    void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      Problem(path, Reason(path));
      return;
    }
    ::madvise(map, size, MADV_SEQUENTIAL);
    const MboxIndex index =
        IndexMbox(std::string_view(static_cast<const char*>(map), size));
    ::munmap(map, size);
    if (index.messages.empty()) {
      Problem(path, path + ": neither a message nor an mbox, skipped");
      return;
    }
    if (!starts_as_mbox || index.leading_bytes > 0) {
      Problem(path,
              path + ": damaged mbox: " + std::to_string(index.leading_bytes) +
                  " bytes before the first From line, skipped");
    }
    const bool several = index.messages.size() > 1;
    for (std::size_t i = 0; i < index.messages.size(); ++i) {
      const MboxMessage& m = index.messages[i];
      Entry e;
      e.name = several ? path + ":" + std::to_string(i + 1) : path;
      e.file = path;
      e.offset = m.offset;
      e.length = m.length;
      e.mbox = true;
      e.mtime = st.st_mtime;
      if (m.has_nul) {
        Problem(e.name, e.name +
                            ": damaged mbox: NUL bytes in the message "
                            "(read as it is)");
      }
      out.entries.push_back(std::move(e));
    }
    if (index.truncated) {
      Problem(out.entries.back().name,
              out.entries.back().name +
                  ": damaged mbox: the last message is cut off (read as it "
                  "is)");
    }
  }

  void File(const std::string& path, const struct stat& st) {
    if (st.st_size == 0) {
      Problem(path, path + ": empty file, skipped");
      return;
    }
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) {
      Problem(path, Reason(path));
      return;
    }
    char buf[1024];
    const ssize_t n = ::pread(fd.get(), buf, sizeof buf, 0);
    if (n < 0) {
      Problem(path, Reason(path));
      return;
    }
    std::string_view head(buf, static_cast<std::size_t>(n));
    const std::string_view first = head.substr(0, head.find('\n'));
    if (IsFromLine(first.ends_with('\r') ? first.substr(0, first.size() - 1)
                                         : first)) {
      AddMbox(path, fd.get(), st, true);
    } else if (StartsWithHeader(head)) {
      AddMessageFile(path, st);
    } else {
      AddMbox(path, fd.get(), st, false);
    }
  }

  void Directory(const std::string& dir, const struct stat& st) {
    if (!seen_dirs.emplace(st.st_dev, st.st_ino).second) return;
    if (IsMaildir(dir)) {
      MaildirListing m = ListMaildir(dir);
      for (std::string& p : m.problems) Problem(dir, std::move(p));
      for (const std::string& f : m.files) {
        struct stat fst;
        if (::stat(f.c_str(), &fst) != 0) {
          Problem(f, Reason(f));
        } else if (S_ISREG(fst.st_mode)) {
          // Maildir files are messages by definition; no sniffing.
          if (fst.st_size == 0) {
            Problem(f, f + ": empty file, skipped");
          } else {
            AddMessageFile(f, fst);
          }
        }
      }
      return;
    }
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      Problem(dir, Reason(dir));
      return;
    }
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) Path(dir + "/" + n);
  }

  void Path(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      Problem(path, Reason(path));
    } else if (S_ISDIR(st.st_mode)) {
      Directory(path, st);
    } else if (S_ISREG(st.st_mode)) {
      File(path, st);
    } else {
      Problem(path, path + ": not a regular file or directory, skipped");
    }
  }
};

}  // namespace

Listing List(std::span<const std::string> paths) {
  Walker w;
  for (const std::string& p : paths) {
    std::string path = p;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    w.Path(path);
  }
  return std::move(w.out);
}

Result<std::string> Read(const Entry& entry, std::uint64_t max_bytes) {
  Fd fd(::open(entry.file.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    const int e = errno;
    const std::string why = Reason(entry.file);
    return Fail(e == ENOENT ? Error::NotFound(why) : Error::Io(why));
  }
  std::uint64_t want = max_bytes;
  if (entry.mbox) want = std::min(want, entry.length);
  std::string bytes;
  // A message file is read to its end (it may have grown since listing);
  // an mbox message exactly as indexed.
  std::uint64_t offset = entry.offset;
  char buf[1 << 16];
  while (bytes.size() < want) {
    const std::size_t chunk = static_cast<std::size_t>(
        std::min<std::uint64_t>(sizeof buf, want - bytes.size()));
    const ssize_t n = ::pread(fd.get(), buf, chunk, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Fail(Error::Io(Reason(entry.file)));
    }
    if (n == 0) break;
    bytes.append(buf, static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  if (entry.mbox) return UnquoteFrom(bytes);
  return bytes;
}

}  // namespace mw::archive
