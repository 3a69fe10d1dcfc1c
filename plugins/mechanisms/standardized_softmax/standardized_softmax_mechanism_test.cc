#include "plugins/mechanisms/standardized_softmax/standardized_softmax_mechanism.h"

#include <cmath>

#include "attention/mechanism_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Mat = Matrix<double>;

TEST(StandardizedSoftmaxTest, OneHeadByHand) {
  // q = (1, 3): mean 2, sd sqrt(2) (n - 1), so q^ = (-1, 1) / sqrt(2). Keys (0, 2) and (2, 0):
  // k^ = (-1, 1) / sqrt(2) and (1, -1) / sqrt(2); scores at scale 1: 1 and -1; values 1, 2.
  // Scaling or shifting a query or key changes nothing: q = (10, 30) is the same query.
  StandardizedSoftmaxMechanism<double> mechanism;
  ASSERT_TRUE(mechanism.Setup(Heads(2, 1)).ok());
  Mat k(2, 2), v(2, 1), a(1, 2), h(1, 1);
  k << 0, 2, 2, 0;
  v << 1, 2;
  const double e = std::exp(1.0), weight = e / (e + 1 / e);
  for (const Mat& q : {Mat{{1.0, 3.0}}, Mat{{10.0, 30.0}}}) {
    mechanism.Prepare(1);
    mechanism.Forward(0, q, k, v, 1.0, a, h);
    EXPECT_NEAR(a(0, 0), weight, 1e-15);
    EXPECT_NEAR(a(0, 1), 1 - weight, 1e-15);
    EXPECT_NEAR(h(0, 0), weight + 2 * (1 - weight), 1e-15);
  }
}

TEST(StandardizedSoftmaxTest, RowsByHand) {
  const Mat x{{1.0, 2.0, 6.0}};  // mean 3, squares 4 + 1 + 9 = 14 over n - 1 = 2: sd sqrt(7)
  Mat y;
  Vector<double> sd;
  StandardizeRows<double>(x, &y, &sd);
  EXPECT_NEAR(sd(0), std::sqrt(7.0), 1e-15);
  EXPECT_NEAR(y(0, 0), -2 / std::sqrt(7.0), 1e-15);
  EXPECT_NEAR(y(0, 2), 3 / std::sqrt(7.0), 1e-15);
}

TEST(StandardizedSoftmaxTest, NeedsTwoFeatures) {
  StandardizedSoftmaxMechanism<double> mechanism;
  EXPECT_EQ(mechanism.Setup(Heads(1, 1)).message(),
            "standardized_softmax divides each query and key by its standard deviation over its "
            "qk_dim features: needs qk_dim >= 2, got 1");
}

TEST(StandardizedSoftmaxTest, GradientsInEveryLayer) {
  absl::Status status = CheckMechanismInEveryLayer("standardized_softmax", "");
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace attnlab
