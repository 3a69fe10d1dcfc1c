#include "experiments/spec/trial_data.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <mutex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "attention/base/files.h"
#include "datasets/data_file.pb.h"
#include "datasets/data_path.h"
#include "experiments/spec/field_path.h"
#include "experiments/user_paths.h"

namespace attnlab {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

void CollectPaths(const Message& message, const std::string& base_dir,
                  std::vector<std::string>* paths) {
  const Reflection* reflection = message.GetReflection();
  if (message.GetDescriptor()->full_name() == "google.protobuf.Any") {
    const Descriptor* content = AnyContentType(message);
    if (content == nullptr) return;
    std::unique_ptr<Message> inner(
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(content)->New());
    inner->ParseFromString(
        reflection->GetString(message, message.GetDescriptor()->FindFieldByName("value")));
    CollectPaths(*inner, base_dir, paths);
    return;
  }
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
          CollectPaths(reflection->GetRepeatedMessage(message, field, i), base_dir, paths);
        }
      } else {
        CollectPaths(reflection->GetMessage(message, field), base_dir, paths);
      }
    } else if (field->cpp_type() == FieldDescriptor::CPPTYPE_STRING &&
               field->options().GetExtension(data_file)) {
      auto add = [&](const std::string& path) {
        const std::string resolved = ResolveDataPath(path, base_dir);
        if (!path.empty() && std::find(paths->begin(), paths->end(), resolved) == paths->end()) {
          paths->push_back(resolved);
        }
      };
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
          add(reflection->GetRepeatedString(message, field, i));
        }
      } else {
        add(reflection->GetString(message, field));
      }
    }
  }
}

// What identifies a version of a file without reading it.
std::string StatKey(const std::string& path, const struct stat& info) {
  return absl::StrCat(path, "\t", info.st_dev, "\t", info.st_ino, "\t", info.st_size, "\t",
                      info.st_mtim.tv_sec, ".", info.st_mtim.tv_nsec, "\t", info.st_ctim.tv_sec,
                      ".", info.st_ctim.tv_nsec);
}

// A file changed in the last seconds may change again within its timestamps' resolution
// (milliseconds) with the same size, leaving its StatKey as it was: its hash is not cached
// (git's rule for "racily clean" files).
bool RecentlyChanged(const struct stat& info) {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  const timespec newest = info.st_ctim.tv_sec > info.st_mtim.tv_sec ? info.st_ctim : info.st_mtim;
  return now.tv_sec - newest.tv_sec < 3;
}

std::string CacheFile() {
  const std::string directory = CacheDirectory();
  return directory.empty() ? "" : absl::StrCat(directory, "/data_hashes.tsv");
}

// The hashes known so far, by StatKey; read from the cache file on first use.
class HashCache {
 public:
  std::string Find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    Load();
    auto it = hashes_.find(key);
    return it == hashes_.end() ? "" : it->second;
  }

  // Best effort: a cache that cannot be written only costs a rehash next time.
  void Add(const std::string& key, const std::string& hash) {
    std::lock_guard<std::mutex> lock(mutex_);
    Load();
    hashes_[key] = hash;
    const std::string file = CacheFile();
    if (file.empty() || !MakeDirectories(DirectoryOf(file)).ok()) return;
    std::string text;
    for (const auto& [k, h] : hashes_) absl::StrAppend(&text, k, "\t", h, "\n");
    WriteFileAtomically(file, text).IgnoreError();
  }

 private:
  void Load() {
    if (loaded_) return;
    loaded_ = true;
    const std::string file = CacheFile();
    if (file.empty()) return;
    absl::StatusOr<std::string> text = ReadFile(file);
    if (!text.ok()) return;
    for (absl::string_view line : absl::StrSplit(*text, '\n', absl::SkipEmpty())) {
      const size_t tab = line.rfind('\t');
      if (tab == absl::string_view::npos || line.size() - tab - 1 != 16) continue;
      hashes_[std::string(line.substr(0, tab))] = std::string(line.substr(tab + 1));
    }
  }

  std::mutex mutex_;
  bool loaded_ = false;
  std::map<std::string, std::string> hashes_;
};

HashCache& Cache() {
  static HashCache* cache = new HashCache();
  return *cache;
}

absl::StatusOr<std::string> HashFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat(path, ": cannot read (", std::strerror(errno), ")"));
  }
  uint64_t hash = Fnv1a("");
  std::vector<char> buffer(1 << 20);
  for (;;) {
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status status =
          absl::NotFoundError(absl::StrCat(path, ": cannot read (", std::strerror(errno), ")"));
      close(fd);
      return status;
    }
    if (n == 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      hash ^= static_cast<unsigned char>(buffer[i]);
      hash *= 0x100000001b3ull;
    }
  }
  close(fd);
  return absl::StrFormat("%016x", hash);
}

}  // namespace

std::vector<std::string> DataFilePaths(const Message& spec, const std::string& base_dir) {
  std::vector<std::string> paths;
  CollectPaths(spec, base_dir, &paths);
  return paths;
}

absl::StatusOr<std::vector<DataFile>> FingerprintDataFiles(const std::vector<std::string>& paths) {
  std::vector<DataFile> files;
  for (const std::string& path : paths) {
    char canonical[PATH_MAX];
    struct stat info;
    if (realpath(path.c_str(), canonical) == nullptr || stat(canonical, &info) != 0) {
      return absl::NotFoundError(absl::StrCat(path, ": cannot read (", std::strerror(errno), ")"));
    }
    DataFile file{canonical, static_cast<uint64_t>(info.st_size), ""};
    const std::string key = StatKey(file.path, info);
    const bool recent = RecentlyChanged(info);
    if (!recent) file.hash = Cache().Find(key);
    if (file.hash.empty()) {
      absl::StatusOr<std::string> hash = HashFile(file.path);
      if (!hash.ok()) return hash.status();
      file.hash = *hash;
      if (!recent) Cache().Add(key, file.hash);
    }
    files.push_back(std::move(file));
  }
  return files;
}

}  // namespace attnlab
