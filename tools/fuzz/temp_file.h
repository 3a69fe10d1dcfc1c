// For fuzz targets of readers that take a path: the input's bytes in a temporary file, removed
// when the object goes.
#ifndef ATTNLAB_TOOLS_FUZZ_TEMP_FILE_H_
#define ATTNLAB_TOOLS_FUZZ_TEMP_FILE_H_

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace attnlab {

class TempFile {
 public:
  // `name` tells the target's files apart ("images", "labels").
  TempFile(const uint8_t* data, size_t size, const std::string& name) {
    const char* dir = std::getenv("TEST_TMPDIR");
    path_ = std::string(dir ? dir : "/tmp") + "/fuzz-" + std::to_string(getpid()) + "-" + name;
    std::FILE* file = std::fopen(path_.c_str(), "wb");
    if (file == nullptr || std::fwrite(data, 1, size, file) != size || std::fclose(file) != 0) {
      std::perror(path_.c_str());
      std::abort();  // the harness, not the target, failed
    }
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace attnlab

#endif  // ATTNLAB_TOOLS_FUZZ_TEMP_FILE_H_
