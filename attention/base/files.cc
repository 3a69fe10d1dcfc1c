#include "attention/base/files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace attnlab {
absl::Status ErrnoError(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

absl::Status WriteFileAtomically(const std::string& path, absl::string_view contents) {
  const std::string temporary = absl::StrCat(path, ".tmp.", getpid());
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return ErrnoError("cannot create " + temporary);
  auto fail = [&](const std::string& what) {  // no half-written temporary stays behind
    absl::Status status = ErrnoError(what);
    unlink(temporary.c_str());
    return status;
  };
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      close(fd);
      return fail("cannot write " + path);
    }
    written += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) {
    close(fd);
    return fail("cannot write " + path);
  }
  if (close(fd) != 0) return fail("cannot write " + path);
  if (rename(temporary.c_str(), path.c_str()) != 0) return fail("cannot rename to " + path);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!Exists(path)) return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    return ErrnoError("cannot open " + path);
  }
  struct stat info;  // a directory opens, and reads as an empty file
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": is a directory, not a file"));
  }
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return ErrnoError("cannot read " + path);
  return text.str();
}

absl::Status MakeDirectories(const std::string& path) {
  std::string prefix;
  for (absl::string_view part : absl::StrSplit(path, '/')) {
    absl::StrAppend(&prefix, part, "/");
    if (part.empty() || part == ".") continue;
    if (mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return ErrnoError("cannot create directory " + prefix);
    }
  }
  return absl::OkStatus();
}

uint64_t Fnv1a(absl::string_view bytes) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

absl::Status RemoveTree(const std::string& path) {
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) {
    return errno == ENOENT ? absl::OkStatus() : ErrnoError("cannot remove " + path);
  }
  if (S_ISDIR(info.st_mode)) {  // lstat: a symbolic link is removed, never followed
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr) return ErrnoError("cannot remove " + path);
    std::vector<std::string> entries;
    while (const dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") entries.push_back(path + "/" + name);
    }
    closedir(dir);
    for (const std::string& entry : entries) {
      if (absl::Status s = RemoveTree(entry); !s.ok()) return s;
    }
    if (rmdir(path.c_str()) != 0 && errno != ENOENT) return ErrnoError("cannot remove " + path);
    return absl::OkStatus();
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) return ErrnoError("cannot remove " + path);
  return absl::OkStatus();
}

}  // namespace attnlab
