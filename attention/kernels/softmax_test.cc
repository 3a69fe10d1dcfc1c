// SoftmaxRows and SoftmaxRowsBackward: by hand, and the packet kernels (contiguous rows)
// against the generic Eigen loop (taken for column-major outputs) over row lengths that leave
// every tail size, with masked (-infinity) scores.
#include "attention/kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "attention/tensor.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

template <typename T>
using ColMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;

// The packet exp against std::exp in double: within 2 float ulps wherever the result is normal,
// exactly 0 at -infinity, NaN for NaN.
// Exp on a full packet of floats and on the half packet that ends a fused tile's rows.
template <typename P>
void CheckPacketExp() {
  constexpr int L = Eigen::internal::unpacket_traits<P>::size;
  float in[L], out[L];
  double worst = 0;
  for (double start = -87.0; start < 88.5; start += 0.0137 * L) {
    for (int k = 0; k < L; ++k) in[k] = static_cast<float>(start + 0.0137 * k);
    Eigen::internal::pstoreu(out, softmax_internal::Exp<float, P>(Eigen::internal::ploadu<P>(in)));
    for (int k = 0; k < L; ++k) {
      const double exact = std::exp(double(in[k]));
      worst = std::max(worst, std::abs(out[k] - exact) / exact);
    }
  }
  EXPECT_LT(worst, 2 * std::numeric_limits<float>::epsilon());
  for (int k = 0; k < L; ++k) in[k] = k % 2 ? -std::numeric_limits<float>::infinity() : -105.0f;
  in[2] = std::numeric_limits<float>::quiet_NaN();
  Eigen::internal::pstoreu(out, softmax_internal::Exp<float, P>(Eigen::internal::ploadu<P>(in)));
  for (int k = 0; k < L; ++k) {
    if (k == 2) {
      EXPECT_TRUE(std::isnan(out[k]));
    } else {
      EXPECT_EQ(out[k], k % 2 ? 0.0f : std::exp(-105.0f)) << in[k];
    }
  }
}

TEST(SoftmaxTest, PacketExpMatchesStdExp) { CheckPacketExp<Packet<float>>(); }

// The packet exp in double against std::exp: within 2 ulps wherever the result is normal
// (paper 1 trains far into the softmax's saturation, where the weights' small entries are
// its gradient), exactly 0 at -infinity and below exp's range, infinite above it, NaN for NaN.
// On a full packet and on the half packet that ends a fused tile's rows.
template <typename P>
void CheckPacketExpInDouble() {
  constexpr int L = Eigen::internal::unpacket_traits<P>::size;
  double in[L], out[L], worst = 0;
  for (double start = -708.0; start < 709.0; start += 0.00731 * L) {
    for (int k = 0; k < L; ++k) in[k] = start + 0.00731 * k;
    Eigen::internal::pstoreu(out, softmax_internal::Exp<double, P>(Eigen::internal::ploadu<P>(in)));
    for (int k = 0; k < L; ++k) {
      const double exact = std::exp(in[k]);
      worst = std::max(worst, std::abs(out[k] - exact) / exact);
    }
  }
  EXPECT_LT(worst, 2 * std::numeric_limits<double>::epsilon());
  const double inf = std::numeric_limits<double>::infinity();
  const double special[] = {-inf, -746.0, 710.0, inf, 0.0, -0.0, 1.0, -1.0};
  for (int first = 0; first < 8; first += L) {
    std::copy(special + first, special + first + L, in);
    if (first == 0 && L > 2) in[2] = std::numeric_limits<double>::quiet_NaN();
    Eigen::internal::pstoreu(out, softmax_internal::Exp<double, P>(Eigen::internal::ploadu<P>(in)));
    for (int k = 0; k < L; ++k) {
      if (std::isnan(in[k])) {
        EXPECT_TRUE(std::isnan(out[k]));
      } else if (std::exp(in[k]) == 0 || std::isinf(std::exp(in[k]))) {
        EXPECT_EQ(out[k], std::exp(in[k])) << in[k];
      } else {
        EXPECT_NEAR(out[k], std::exp(in[k]),
                    2 * std::numeric_limits<double>::epsilon() * std::exp(in[k]))
            << in[k];
      }
    }
  }
}

TEST(SoftmaxTest, PacketExpMatchesStdExpInDouble) { CheckPacketExpInDouble<Packet<double>>(); }
TEST(SoftmaxTest, HalfPacketExpMatchesStdExpInDouble) {
  CheckPacketExpInDouble<HalfPacket<double>>();
}
TEST(SoftmaxTest, HalfPacketExpMatchesStdExp) { CheckPacketExp<HalfPacket<float>>(); }

TEST(SoftmaxTest, ByHand) {
  const double inf = std::numeric_limits<double>::infinity();
  const Matrix<double> scores = (Matrix<double>(2, 3) << 0, std::log(2.0), std::log(5.0),  //
                                 1, -inf, 1)
                                    .finished();
  Matrix<double> probs(2, 3);
  SoftmaxRows(scores, probs);
  EXPECT_NEAR(probs(0, 0), 1.0 / 8, 1e-15);
  EXPECT_NEAR(probs(0, 1), 2.0 / 8, 1e-15);
  EXPECT_NEAR(probs(0, 2), 5.0 / 8, 1e-15);
  EXPECT_EQ(probs(1, 1), 0.0);  // masked: exactly 0
  EXPECT_NEAR(probs(1, 0), 0.5, 1e-15);
  // dL/dscores = p .* (g - <g, p>): g = (1, 0, 0) on row 0 gives (7/64, -2/64, -5/64).
  const Matrix<double> grad = (Matrix<double>(2, 3) << 1, 0, 0, 3, 9, 1).finished();
  Matrix<double> grad_scores(2, 3);
  SoftmaxRowsBackward(probs, grad, grad_scores);
  EXPECT_NEAR(grad_scores(0, 0), 7.0 / 64, 1e-15);
  EXPECT_NEAR(grad_scores(0, 1), -2.0 / 64, 1e-15);
  EXPECT_NEAR(grad_scores(0, 2), -5.0 / 64, 1e-15);
  EXPECT_NEAR(grad_scores(1, 0), 0.5, 1e-15);  // 0.5 * (3 - 2)
  EXPECT_EQ(grad_scores(1, 1), 0.0);
  EXPECT_NEAR(grad_scores(1, 2), -0.5, 1e-15);
}

template <typename T>
void CheckKernelsAgainstGenericLoop(double tolerance) {
  std::mt19937 rng(3);
  std::normal_distribution<double> normal(0, 4);
  for (int n = 1; n <= 40; ++n) {
    SCOPED_TRACE(testing::Message() << "row length " << n);
    Matrix<T> scores(5, n), grad(5, n);
    for (Eigen::Index i = 0; i < scores.size(); ++i) {
      scores.data()[i] = T(normal(rng));
      grad.data()[i] = T(normal(rng));
    }
    for (int i = 1; i < 5 && n > 1; ++i) {  // one masked score (a row needs a finite one)
      scores(i, (3 * i) % n) = -std::numeric_limits<T>::infinity();
    }
    scores(0, n - 1) = scores(0, 0);  // a tie for the largest probability
    Matrix<T> probs(5, n), grad_scores(5, n);
    ColMajor<T> want_probs(5, n), want_grad_scores(5, n);
    SoftmaxRows(scores, probs);
    SoftmaxRows(scores, want_probs);
    SoftmaxRowsBackward(probs, grad, grad_scores);
    SoftmaxRowsBackward(probs, grad, want_grad_scores);
    for (int i = 0; i < 5; ++i) {
      for (int j = 0; j < n; ++j) {
        if (std::isinf(scores(i, j))) {
          EXPECT_EQ(probs(i, j), T(0));
          EXPECT_EQ(grad_scores(i, j), T(0));
        }
        EXPECT_NEAR(probs(i, j), want_probs(i, j), tolerance);
        EXPECT_NEAR(grad_scores(i, j), want_grad_scores(i, j),
                    4 * tolerance * (1 + grad.row(i).cwiseAbs().maxCoeff()));
      }
      EXPECT_NEAR(probs.row(i).sum(), T(1), tolerance);
    }
    // In place, as the layers call them.
    Matrix<T> in_place = scores;
    SoftmaxRows(in_place, in_place);
    EXPECT_EQ(in_place, probs);
    in_place = grad;
    SoftmaxRowsBackward(probs, in_place, in_place);
    EXPECT_EQ(in_place, grad_scores);
  }
}

TEST(SoftmaxTest, PacketKernelsMatchTheGenericLoopInDouble) {
  CheckKernelsAgainstGenericLoop<double>(1e-14);
}
TEST(SoftmaxTest, PacketKernelsMatchTheGenericLoopInFloat) {
  CheckKernelsAgainstGenericLoop<float>(1e-6);
}

// ShiftedExpRow with a bias (the LM head's vocabulary blocks): exp(x + bias - max) with that max
// and the sum, over lengths that leave every tail size.
TEST(SoftmaxTest, ShiftedExpRowWithABias) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-20, 20);
  for (int n = 1; n <= 40; ++n) {
    std::vector<float> x(n), bias(n), y(n);
    for (int k = 0; k < n; ++k) x[k] = uniform(rng), bias[k] = uniform(rng);
    const auto normalizer = ShiftedExpRow(x.data(), n, y.data(), bias.data());
    double max = -1e300, sum = 0;  // of x + bias, added in float as the kernel does
    for (int k = 0; k < n; ++k) max = std::max(max, double(x[k] + bias[k]));
    EXPECT_EQ(normalizer.max, float(max)) << n;
    for (int k = 0; k < n; ++k) {
      const double want = std::exp(double((x[k] + bias[k]) - float(max)));  // float's argument
      EXPECT_NEAR(y[k], want, 1e-6 * want + 1e-30) << n << " " << k;
      sum += want;
    }
    EXPECT_NEAR(normalizer.sum, sum, 1e-6 * sum) << n;
  }
}

}  // namespace
}  // namespace attnlab
