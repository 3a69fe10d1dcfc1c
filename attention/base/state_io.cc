#include "attention/base/state_io.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace attnlab {

void StateWriter::Raw(const void* data, size_t size) {
  bytes_.append(static_cast<const char*>(data), size);
}

void StateWriter::Int(int64_t value) { Raw(&value, sizeof value); }

void StateWriter::Double(double value) { Raw(&value, sizeof value); }

void StateWriter::String(absl::string_view value) {
  Int(static_cast<int64_t>(value.size()));
  Raw(value.data(), value.size());
}

template <typename T>
void StateWriter::Write(const Matrix<T>& matrix) {
  Int(matrix.rows());
  Int(matrix.cols());
  Raw(matrix.data(), sizeof(T) * matrix.size());
}

absl::Status StateReader::Error(absl::string_view message) const {
  return absl::DataLossError(absl::StrCat(what_, ": ", message));
}

absl::Status StateReader::Raw(void* data, size_t size, absl::string_view field) {
  if (size > rest_.size()) {
    return Error(absl::StrCat("truncated: ", field, " needs ", size, " bytes, ", rest_.size(),
                              " left"));
  }
  std::memcpy(data, rest_.data(), size);
  rest_.remove_prefix(size);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> StateReader::Int() {
  int64_t value;
  if (absl::Status s = Raw(&value, sizeof value, "an integer"); !s.ok()) return s;
  return value;
}

absl::StatusOr<double> StateReader::Double() {
  double value;
  if (absl::Status s = Raw(&value, sizeof value, "a number"); !s.ok()) return s;
  return value;
}

absl::StatusOr<std::string> StateReader::String() {
  absl::StatusOr<int64_t> size = Int();
  if (!size.ok()) return size.status();
  if (*size < 0 || static_cast<uint64_t>(*size) > rest_.size()) {
    return Error(absl::StrCat("truncated: a string of ", *size, " bytes, ", rest_.size(),
                              " left"));
  }
  std::string value(rest_.substr(0, *size));
  rest_.remove_prefix(*size);
  return value;
}

template <typename T>
absl::Status StateReader::Read(const std::string& name, Matrix<T>* matrix) {
  absl::StatusOr<int64_t> rows = Int();
  if (!rows.ok()) return rows.status();
  absl::StatusOr<int64_t> cols = Int();
  if (!cols.ok()) return cols.status();
  if (*rows != matrix->rows() || *cols != matrix->cols()) {
    return Error(absl::StrCat(name, " is ", *rows, " x ", *cols, " in the file, ",
                              matrix->rows(), " x ", matrix->cols(), " here"));
  }
  return Raw(matrix->data(), sizeof(T) * matrix->size(), name);
}

template void StateWriter::Write(const Matrix<float>&);
template void StateWriter::Write(const Matrix<double>&);
template absl::Status StateReader::Read(const std::string&, Matrix<float>*);
template absl::Status StateReader::Read(const std::string&, Matrix<double>*);

}  // namespace attnlab
