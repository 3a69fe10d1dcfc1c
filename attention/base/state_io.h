// The binary state of a run in progress (parameters, optimizer state, random streams), for
// checkpoints: exact bytes, so a resumed run continues bit-identical. A reader checks every
// size against what is left, so a truncated or foreign file is an error, never a crash.
#ifndef ATTNLAB_ATTENTION_BASE_STATE_IO_H_
#define ATTNLAB_ATTENTION_BASE_STATE_IO_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "attention/tensor.h"

namespace attnlab {

class StateWriter {
 public:
  void Int(int64_t value);
  void Double(double value);
  void String(absl::string_view value);
  template <typename T>
  void Write(const Matrix<T>& matrix);

  const std::string& bytes() const { return bytes_; }

 private:
  void Raw(const void* data, size_t size);
  std::string bytes_;
};

class StateReader {
 public:
  // `bytes` must outlive the reader; `what` names the source in errors ("checkpoint
  // /out/.t0.checkpoint").
  StateReader(absl::string_view bytes, std::string what) : rest_(bytes), what_(std::move(what)) {}

  absl::StatusOr<int64_t> Int();
  absl::StatusOr<double> Double();
  absl::StatusOr<std::string> String();
  // Reads a matrix into *matrix, which must already have the saved shape (a parameter's).
  template <typename T>
  absl::Status Read(const std::string& name, Matrix<T>* matrix);

  bool done() const { return rest_.empty(); }
  // An error about this source: "checkpoint X: message".
  absl::Status Error(absl::string_view message) const;

 private:
  absl::Status Raw(void* data, size_t size, absl::string_view field);
  absl::string_view rest_;
  std::string what_;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_BASE_STATE_IO_H_
