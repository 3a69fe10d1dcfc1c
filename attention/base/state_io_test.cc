#include "attention/base/state_io.h"

#include "gtest/gtest.h"

namespace attnlab {
namespace {

TEST(StateIoTest, RoundTripsExactBytes) {
  StateWriter out;
  out.Int(-7);
  out.Double(0.1);
  out.String("adam");
  Matrix<float> m(2, 3);
  m << 1, 2, 3, 4, 5, 1.0f / 3;
  out.Write(m);
  StateReader in(out.bytes(), "test state");
  EXPECT_EQ(*in.Int(), -7);
  EXPECT_EQ(*in.Double(), 0.1);
  EXPECT_EQ(*in.String(), "adam");
  Matrix<float> back(2, 3);
  ASSERT_TRUE(in.Read("m", &back).ok());
  EXPECT_EQ(back, m);
  EXPECT_TRUE(in.done());
}

TEST(StateIoTest, TruncationAndShapeMismatchAreErrorsNamingTheSource) {
  StateWriter out;
  out.String("0123456789");
  Matrix<double> m = Matrix<double>::Ones(2, 2);
  out.Write(m);
  const std::string bytes = out.bytes();

  const std::string first_12 = bytes.substr(0, 12), all_but_1 = bytes.substr(0, bytes.size() - 1);
  StateReader cut(first_12, "checkpoint x");
  absl::StatusOr<std::string> s = cut.String();
  EXPECT_EQ(s.status().message(), "checkpoint x: truncated: a string of 10 bytes, 4 left");

  StateReader wrong_shape(bytes, "checkpoint y");
  ASSERT_TRUE(wrong_shape.String().ok());
  Matrix<double> other(3, 2);
  EXPECT_EQ(wrong_shape.Read("w", &other).message(),
            "checkpoint y: w is 2 x 2 in the file, 3 x 2 here");

  StateReader short_data(all_but_1, "checkpoint z");
  ASSERT_TRUE(short_data.String().ok());
  Matrix<double> same(2, 2);
  EXPECT_EQ(short_data.Read("w", &same).message(),
            "checkpoint z: truncated: w needs 32 bytes, 31 left");
}

}  // namespace
}  // namespace attnlab
