#include "experiments/trials/checkpoint.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "attention/base/files.h"
#include "attention/base/status_macros.h"

namespace attnlab {
namespace {

constexpr char kMagic[] = "attnlab trial checkpoint v3";
constexpr char kMagicV2[] = "attnlab trial checkpoint v2";
constexpr char kMagicV1[] = "attnlab trial checkpoint v1";

}  // namespace

absl::Status WriteCheckpoint(const std::string& path, const CheckpointContent& content,
                             const std::function<void(StateWriter*)>& write_state) {
  StateWriter out;
  out.String(kMagic);
  out.String(content.spec_text);
  out.Int(content.next_step);
  out.Double(content.last_loss);
  out.Int(static_cast<int64_t>(content.points.size()));
  for (const MetricPoint& point : content.points) {
    out.Int(point.step);
    out.String(point.metric);
    out.Double(point.value);
  }
  out.Int(static_cast<int64_t>(content.arrays.size()));
  for (const auto& [name, array] : content.arrays) {
    out.String(name);
    out.String(array.dtype);
    out.Int(static_cast<int64_t>(array.shape.size()));
    for (int64_t extent : array.shape) out.Int(extent);
    out.String(array.data);
  }
  out.String(content.random_state);
  write_state(&out);
  std::string bytes = out.bytes();
  const uint64_t checksum = Fnv1a(bytes);  // last: a damaged file is refused, not resumed
  bytes.append(reinterpret_cast<const char*>(&checksum), sizeof checksum);
  return WriteFileAtomically(path, bytes);
}

absl::StatusOr<std::optional<CheckpointContent>> ReadCheckpoint(
    const std::string& path, const std::string& spec_text, int64_t steps,
    const std::function<absl::Status(StateReader*)>& read_state) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (absl::IsNotFound(bytes.status())) return std::nullopt;
  if (!bytes.ok()) return bytes.status();
  const std::string what = absl::StrCat("checkpoint ", path);
  StateReader header(*bytes, what);
  ASSIGN_OR_RETURN(const std::string magic, header.String());
  if (magic == kMagicV1) {
    return header.Error(
        "written by an older attnlab (checkpoint v1, before trials kept .npy snapshots)");
  }
  if (magic == kMagicV2) {
    return header.Error("written by an older attnlab (checkpoint v2, without a checksum)");
  }
  if (magic != kMagic) return header.Error("not an attnlab checkpoint");
  uint64_t checksum = 0;  // the file's last bytes; the magic before them is longer
  const absl::string_view body =
      absl::string_view(*bytes).substr(0, bytes->size() - sizeof checksum);
  std::memcpy(&checksum, bytes->data() + body.size(), sizeof checksum);
  if (checksum != Fnv1a(body)) {
    return header.Error("its checksum does not match its bytes (the file is damaged)");
  }
  StateReader in(body, what);
  RETURN_IF_ERROR(in.String().status());  // the magic
  CheckpointContent content;
  ASSIGN_OR_RETURN(content.spec_text, in.String());
  if (content.spec_text != spec_text) return in.Error("written for another spec of this trial");
  ASSIGN_OR_RETURN(content.next_step, in.Int());
  if (content.next_step < 1 || content.next_step > steps) {
    return in.Error(absl::StrCat("step ", content.next_step, " is not in 1..", steps));
  }
  ASSIGN_OR_RETURN(content.last_loss, in.Double());
  ASSIGN_OR_RETURN(const int64_t points, in.Int());
  if (points < 0) return in.Error("a negative number of metric values");
  for (int64_t i = 0; i < points; ++i) {
    MetricPoint point;
    ASSIGN_OR_RETURN(point.step, in.Int());
    ASSIGN_OR_RETURN(point.metric, in.String());
    ASSIGN_OR_RETURN(point.value, in.Double());
    content.points.push_back(std::move(point));
  }
  ASSIGN_OR_RETURN(const int64_t arrays, in.Int());
  if (arrays < 0) return in.Error("a negative number of arrays");
  for (int64_t i = 0; i < arrays; ++i) {
    ASSIGN_OR_RETURN(const std::string name, in.String());
    NpyArray& array = content.arrays[name];
    ASSIGN_OR_RETURN(array.dtype, in.String());
    ASSIGN_OR_RETURN(const int64_t rank, in.Int());
    if (rank < 0 || rank > 8) return in.Error(absl::StrCat("array ", name, " of rank ", rank));
    array.shape.resize(rank);
    for (int64_t& extent : array.shape) {
      ASSIGN_OR_RETURN(extent, in.Int());
    }
    ASSIGN_OR_RETURN(array.data, in.String());
  }
  ASSIGN_OR_RETURN(content.random_state, in.String());
  RETURN_IF_ERROR(read_state(&in));
  if (!in.done()) return in.Error("unexpected bytes after the optimizer state");
  return content;
}

}  // namespace attnlab
