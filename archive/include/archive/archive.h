// The messages of an archive: Maildir folders, mbox files and directories of
// message files, enumerated first and read one at a time, so that a scan
// holds the bytes of one message per thread, never a whole mbox.
//
// Names. A message file (a Maildir message or a file of a directory) is named
// by its path. A message of an mbox that holds several is named
// "PATH:N", N counting from 1 in file order; an mbox of one message (as the
// SpamAssassin corpus stores each mail, behind a From_ line) is named PATH.
//
// Errors are values: what cannot be listed (a missing path, a directory that
// cannot be read, a file that is neither a message nor an mbox, the damage of
// a damaged mbox) comes back as a Problem and the listing goes on; what cannot
// be read later comes back from Read as an Error.
//
// Thread-safety: List and Read touch only the file system; Read may run on any
// number of threads at once.
#ifndef MW_ARCHIVE_ARCHIVE_H_
#define MW_ARCHIVE_ARCHIVE_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mw/result.h"

namespace mw::archive {

// Where one message lies.
struct Entry {
  std::string name;          // see "Names" above
  std::string file;          // the file that holds it
  std::uint64_t offset = 0;  // first byte of the message in `file`
  // Bytes of the message in `file` (mbox: quoted, From_ line excluded; a
  // message file: its size when listed; Read takes what is there then).
  std::uint64_t length = 0;
  bool mbox = false;       // ">From " lines to unquote (mbox.h)
  std::int64_t mtime = 0;  // the file's modification time (s since 1970)
};

// Something that was skipped: "PATH: reason" in `message`, `path` the file or
// directory (or "PATH:N" for one message of an mbox).
struct Problem {
  std::string path;
  std::string message;
};

struct Listing {
  std::vector<Entry> entries;  // in the order of the paths, then file order
  std::vector<Problem> problems;
};

// Every message under `paths`. Each path is
//   a Maildir (IsMaildir): its messages and Maildir++ subfolders (maildir.h);
//   another directory: its files and subdirectories, recursively, in name
//     order; names starting with '.' are skipped (hidden files, .git), and a
//     directory reached twice (a symbolic link loop) is read once;
//   a file: an mbox when its first line is a From_ line (mbox.h), or when it
//     has From_ lines after leading bytes that are not a message (those bytes
//     are reported); a message file when it begins with a header field
//     ("Name: value"); else reported as neither and skipped. Empty files are
//     reported.
// A damaged mbox is reported (leading junk, a cut-off last message, NUL
// bytes inside a message) and its readable messages are listed.
Listing List(std::span<const std::string> paths);

// The bytes of `entry`, at most max_bytes of them (the rest is not read),
// mbox quoting undone. Fails with kNotFound, kIo ("PATH: reason").
Result<std::string> Read(const Entry& entry, std::uint64_t max_bytes);

}  // namespace mw::archive

#endif  // MW_ARCHIVE_ARCHIVE_H_
