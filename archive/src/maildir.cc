#include "archive/maildir.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mw::archive {
namespace {

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The names in `dir` not starting with '.', sorted; false and a problem when
// the directory cannot be read.
bool Names(const std::string& dir, std::vector<std::string>& names,
           std::vector<std::string>& problems, bool dotted) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    problems.push_back(dir + ": " + std::strerror(errno));
    return false;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if ((name[0] == '.') != dotted) continue;
    names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return true;
}

void ListFolder(const std::string& dir, MaildirListing& out) {
  for (const char* sub : {"/new", "/cur"}) {
    const std::string path = dir + sub;
    std::vector<std::string> names;
    if (!Names(path, names, out.problems, false)) continue;
    for (const std::string& n : names) out.files.push_back(path + "/" + n);
  }
}

}  // namespace

bool IsMaildir(const std::string& dir) {
  return IsDirectory(dir + "/cur") && IsDirectory(dir + "/new");
}

MaildirListing ListMaildir(const std::string& dir) {
  MaildirListing out;
  ListFolder(dir, out);
  std::vector<std::string> subfolders;
  Names(dir, subfolders, out.problems, true);
  for (const std::string& name : subfolders) {
    const std::string path = dir + "/" + name;
    if (IsMaildir(path)) ListFolder(path, out);
  }
  return out;
}

}  // namespace mw::archive
