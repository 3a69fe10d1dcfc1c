#include "attention/base/npy.h"

#include <cstring>
#include <string>

#include "gtest/gtest.h"

namespace attnlab {
namespace {

// The header numpy 1.24's np.save writes, padded with spaces to 118 bytes and a newline.
std::string NumpyHeader(const std::string& dict) {
  std::string header = "\x93NUMPY";
  header += '\x01';
  header += '\x00';
  header += 'v';  // 118
  header += '\x00';
  return header + dict + std::string(117 - dict.size(), ' ') + "\n";
}

TEST(NpyTest, BytesAreWhatNumpyWrites) {
  const double vector[2] = {1.5, 2.0};
  std::string expected = NumpyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }");
  expected.append(reinterpret_cast<const char*>(vector), sizeof(vector));
  EXPECT_EQ(NpyBytes(NpyArray::Of<double>({2}, vector)), expected);

  const float matrix[6] = {0, 1, 2, 3, 4, 5};
  expected = NumpyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  expected.append(reinterpret_cast<const char*>(matrix), sizeof(matrix));
  EXPECT_EQ(NpyBytes(NpyArray::Of<float>({2, 3}, matrix)), expected);

  const int64_t scalar = 7;
  expected = NumpyHeader("{'descr': '<i8', 'fortran_order': False, 'shape': (), }");
  expected.append(reinterpret_cast<const char*>(&scalar), sizeof(scalar));
  EXPECT_EQ(NpyBytes(NpyArray::Of<int64_t>({}, &scalar)), expected);

  const bool mask[2] = {true, false};
  expected = NumpyHeader("{'descr': '|b1', 'fortran_order': False, 'shape': (1, 2), }");
  expected += std::string("\x01\x00", 2);
  EXPECT_EQ(NpyBytes(NpyArray::Of<bool>({1, 2}, mask)), expected);
}

TEST(NpyTest, HeaderKeepsDataAlignedTo64Bytes) {
  const double values[3] = {1, 2, 3};
  for (std::vector<int64_t> shape : {std::vector<int64_t>{3}, {1, 3}, {1, 1, 1, 1, 1, 1, 1, 3}}) {
    const std::string bytes = NpyBytes(NpyArray::Of<double>(shape, values));
    EXPECT_EQ((bytes.size() - sizeof(values)) % 64, 0u);
    EXPECT_EQ(bytes[bytes.size() - sizeof(values) - 1], '\n');
  }
}

TEST(NpyTest, SnapshotsStackAlongALeadingAxis) {
  NpyArrays arrays;
  const double first[2] = {1, 2}, second[2] = {3, 4};
  ASSERT_TRUE(AppendSnapshot("p", NpyArray::Of<double>({2}, first), &arrays).ok());
  ASSERT_TRUE(AppendSnapshot("p", NpyArray::Of<double>({2}, second), &arrays).ok());
  const NpyArray& p = arrays.at("p");
  EXPECT_EQ(p.shape, (std::vector<int64_t>{2, 2}));
  double stacked[4];
  ASSERT_EQ(p.data.size(), sizeof(stacked));
  std::memcpy(stacked, p.data.data(), sizeof(stacked));
  EXPECT_EQ(stacked[0], 1);
  EXPECT_EQ(stacked[3], 4);

  const double three[3] = {1, 2, 3};
  const absl::Status wrong_shape = AppendSnapshot("p", NpyArray::Of<double>({3}, three), &arrays);
  EXPECT_FALSE(wrong_shape.ok());
  EXPECT_NE(wrong_shape.message().find("p.npy"), absl::string_view::npos) << wrong_shape;
  const float as_float[2] = {1, 2};
  EXPECT_FALSE(AppendSnapshot("p", NpyArray::Of<float>({2}, as_float), &arrays).ok());
}

}  // namespace
}  // namespace attnlab
