// Maildir folders (cur/, new/, tmp/) and their Maildir++ subfolders (.Name/).
//
// Thread-safety: functions of the file system only; safe from any thread.
#ifndef MW_ARCHIVE_MAILDIR_H_
#define MW_ARCHIVE_MAILDIR_H_

#include <string>
#include <vector>

namespace mw::archive {

// True when `dir` holds the subdirectories cur/ and new/ (tmp/ is optional:
// copies of a Maildir often leave the empty tmp/ out).
bool IsMaildir(const std::string& dir);

struct MaildirListing {
  // Message files: new/ then cur/ of the folder, then of each Maildir++
  // subfolder (.Name/ that is itself a Maildir) in name order; within a
  // directory in name order. Names starting with '.' are skipped. tmp/ is
  // never read: its files are deliveries in progress.
  std::vector<std::string> files;
  // Directories that could not be read, as "PATH: reason".
  std::vector<std::string> problems;
};

// REQUIRES: IsMaildir(dir).
MaildirListing ListMaildir(const std::string& dir);

}  // namespace mw::archive

#endif  // MW_ARCHIVE_MAILDIR_H_
