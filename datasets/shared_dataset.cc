#include "datasets/shared_dataset.h"

#include <map>
#include <mutex>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace attnlab {
namespace {

// The base directory, then the spec's bytes, deterministically serialized.
std::string Key(const DatasetSpec& spec, const std::string& base_dir) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    spec.SerializeToCodedStream(&coded);
  }  // the streams write the last bytes and trim `bytes` as they close
  return base_dir + '\0' + bytes;
}

}  // namespace

template <typename T>
absl::StatusOr<std::shared_ptr<const Dataset<T>>> SharedDataset(const DatasetSpec& spec,
                                                                const std::string& base_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const Dataset<T>>> live;
  const std::string key = Key(spec, base_dir);
  // Held while building: a second trial asking for the same data waits for it, not builds it.
  std::lock_guard<std::mutex> lock(mutex);
  if (std::shared_ptr<const Dataset<T>> held = live[key].lock()) return held;
  absl::StatusOr<std::unique_ptr<Dataset<T>>> dataset = CreateDataset<T>(spec, base_dir);
  if (!dataset.ok()) {
    live.erase(key);
    return dataset.status();
  }
  std::shared_ptr<const Dataset<T>> shared = std::move(*dataset);
  live[key] = shared;
  return shared;
}

template absl::StatusOr<std::shared_ptr<const Dataset<float>>> SharedDataset(const DatasetSpec&,
                                                                             const std::string&);
template absl::StatusOr<std::shared_ptr<const Dataset<double>>> SharedDataset(const DatasetSpec&,
                                                                              const std::string&);

}  // namespace attnlab
