#include "plugins/mechanisms/softmax/softmax_mechanism.h"

#include <cmath>

#include "attention/mechanism_check.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

using Mat = Matrix<double>;

TEST(SoftmaxMechanismTest, OneHeadByHand) {
  // q = (1), keys (1, 2), values (1, 2), scale 1: weights e^1, e^2 over their sum.
  SoftmaxMechanism<double> softmax;
  ASSERT_TRUE(softmax.Setup(Heads(1, 1)).ok());
  Mat q(1, 1), k(2, 1), v(2, 1), a(1, 2), h(1, 1);
  q << 1;
  k << 1, 2;
  v << 1, 2;
  softmax.Prepare(1);
  softmax.Forward(0, q, k, v, 1.0, a, h);
  const double e1 = std::exp(1.0), e2 = std::exp(2.0);
  EXPECT_NEAR(a(0, 0), e1 / (e1 + e2), 1e-15);
  EXPECT_NEAR(h(0, 0), (e1 + 2 * e2) / (e1 + e2), 1e-15);
}

TEST(SoftmaxMechanismTest, CausalMasksTheFuture) {
  SoftmaxMechanism<double> softmax;
  ASSERT_TRUE(softmax.Setup(Heads(1, 1, true)).ok());
  Mat q(2, 1), v(2, 1), a(2, 2), h(2, 1);
  q << 1, 2;
  v << 1, 2;
  softmax.Prepare(1);
  softmax.Forward(0, q, q, v, 1.0, a, h);
  EXPECT_EQ(a(0, 1), 0.0);
  EXPECT_EQ(h(0, 0), 1.0);  // token 0 sees only itself
  const double e2 = std::exp(2.0), e4 = std::exp(4.0);
  EXPECT_NEAR(h(1, 0), (e2 + 2 * e4) / (e2 + e4), 1e-14);
}

// The fused scores-and-softmax path (no mask) against the generic map: scores, mask, map.
TEST(SoftmaxMechanismTest, FusedPathMatchesTheGenericMap) {
  for (int keys : {3, 17, 64, 70}) {
    SoftmaxMechanism<double> softmax;
    ASSERT_TRUE(softmax.Setup(Heads(5, 3)).ok());
    const Mat q = Mat::Random(keys, 5), k = Mat::Random(keys, 5), v = Mat::Random(keys, 3);
    Mat a(keys, keys), h(keys, 3), a_map(keys, keys), h_map(keys, 3);
    softmax.Prepare(1);
    softmax.Forward(0, q, k, v, 0.7, a, h);
    softmax.WeightsMap<double>::Forward(0, q, k, v, 0.7, a_map, h_map);
    EXPECT_LT((a - a_map).cwiseAbs().maxCoeff(), 1e-14) << keys;
    EXPECT_LT((h - h_map).cwiseAbs().maxCoeff(), 1e-14) << keys;
  }
}

TEST(SoftmaxMechanismTest, GradientsInEveryLayer) {
  absl::Status status = CheckMechanismInEveryLayer("softmax", "");
  EXPECT_TRUE(status.ok()) << status;
}

}  // namespace
}  // namespace attnlab
