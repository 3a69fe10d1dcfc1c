// Every CUDA kernel against the CPU path, in float: relative error < 1e-5 (of the largest
// entry). Skips, saying why, in a build without --config=cuda or on a machine without a GPU.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "attention/cuda/device.h"
#include "attention/cuda/device_tensor.h"
#include "attention/cuda/kernels.h"
#include "attention/softmax.h"
#include "attention/tensor.h"
#include "gtest/gtest.h"
#include "plugins/rpc/rpc_attention.h"

#ifdef ATTNLAB_WITH_CUDA
#include <cublas_v2.h>
#endif

namespace attnlab {
namespace {

using Mat = Matrix<float>;

TEST(CudaAvailableTest, SaysWhyNot) {
  const absl::Status status = CudaAvailable();
  if (!BuiltWithCuda()) {
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(status.message().find("--config=cuda"), std::string::npos) << status;
  } else if (!status.ok()) {
    EXPECT_NE(status.message().find("GPU"), std::string::npos) << status;
  }
}

#ifdef ATTNLAB_WITH_CUDA

Mat Random(int rows, int cols, std::mt19937_64& rng, float scale = 1) {
  std::normal_distribution<float> normal(0, scale);
  Mat m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
  return m;
}

// Max |gpu - cpu| over max |cpu| (or 1 when that is below 1).
double RelativeError(const std::vector<float>& gpu, const float* cpu, size_t n) {
  double error = 0, scale = 1;
  for (size_t i = 0; i < n; ++i) {
    error = std::max(error, double(std::abs(gpu[i] - cpu[i])));
    scale = std::max(scale, double(std::abs(cpu[i])));
  }
  return error / scale;
}

class CudaKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const absl::Status status = CudaAvailable();
    if (!status.ok()) GTEST_SKIP() << status.message();
    ASSERT_EQ(cublasCreate(&cublas_), CUBLAS_STATUS_SUCCESS);
  }
  void TearDown() override {
    if (cublas_ != nullptr) cublasDestroy(cublas_);
  }
  cublasHandle_t cublas_ = nullptr;
  std::mt19937_64 rng_{7};
};

constexpr double kTolerance = 1e-5;

TEST_F(CudaKernelsTest, MultiHeadAttentionForwardAndBackward) {
  const int heads = 6, t = 37, m = 16, dv = 8;
  const float scale = 0.25f;
  for (bool causal : {false, true}) {
    std::vector<Mat> q, k, v, g;
    std::vector<float> hq, hk, hv, hg;
    for (int h = 0; h < heads; ++h) {
      for (auto [list, cols, flat] : {std::tuple{&q, m, &hq}, std::tuple{&k, m, &hk},
                                      std::tuple{&v, dv, &hv}, std::tuple{&g, dv, &hg}}) {
        list->push_back(Random(t, cols, rng_));
        flat->insert(flat->end(), list->back().data(), list->back().data() + t * cols);
      }
    }
    cuda::DeviceTensor<float> dq(hq.data(), hq.size()), dk(hk.data(), hk.size()),
        dv_(hv.data(), hv.size()), dg(hg.data(), hg.size());
    cuda::DeviceTensor<float> probs(heads * t * t), out(heads * t * dv), scratch(heads * t * t),
        gq(hq.size()), gk(hk.size()), gv(hv.size());
    ASSERT_EQ(cuda::AttentionForward(cublas_, dq.data(), dk.data(), dv_.data(), heads, t, t, m, dv,
                                     scale, causal, probs.data(), out.data()),
              nullptr);
    ASSERT_EQ(cuda::AttentionBackward(cublas_, dq.data(), dk.data(), dv_.data(), probs.data(),
                                      dg.data(), heads, t, t, m, dv, scale, scratch.data(),
                                      gq.data(), gk.data(), gv.data()),
              nullptr);
    const std::vector<float> gpu_out = out.ToHost(), gpu_gq = gq.ToHost(), gpu_gk = gk.ToHost(),
                             gpu_gv = gv.ToHost();
    for (int h = 0; h < heads; ++h) {  // the CPU path of plugins/softmax, head by head
      Mat a = scale * q[h] * k[h].transpose();
      if (causal) {
        for (int i = 0; i + 1 < t; ++i) {
          a.row(i).tail(t - i - 1).setConstant(-std::numeric_limits<float>::infinity());
        }
      }
      SoftmaxRows(a, a);
      const Mat o = a * v[h];
      const Mat grad_v = a.transpose() * g[h];
      Mat grad_s = g[h] * v[h].transpose();
      SoftmaxRowsBackward(a, grad_s, grad_s);
      grad_s *= scale;
      const Mat grad_q = grad_s * k[h], grad_k = grad_s.transpose() * q[h];
      auto slice = [&](const std::vector<float>& all, int size) {
        return std::vector<float>(all.begin() + h * size, all.begin() + (h + 1) * size);
      };
      EXPECT_LT(RelativeError(slice(gpu_out, t * dv), o.data(), t * dv), kTolerance);
      EXPECT_LT(RelativeError(slice(gpu_gv, t * dv), grad_v.data(), t * dv), kTolerance);
      EXPECT_LT(RelativeError(slice(gpu_gq, t * m), grad_q.data(), t * m), kTolerance);
      EXPECT_LT(RelativeError(slice(gpu_gk, t * m), grad_k.data(), t * m), kTolerance);
    }
  }
}

TEST_F(CudaKernelsTest, SingleQueryAttentionForwardAndBackward) {
  const int batch = 5, t = 200, m = 17, dv = 5;  // paper 3's shape, smaller
  const Mat keys = Random(batch * t, m, rng_), query = Random(batch, m, rng_, 0.5f),
            values = Random(batch * t, dv, rng_), grad = Random(batch, dv, rng_);
  cuda::DeviceTensor<float> dk(keys.data(), keys.size()), du(query.data(), query.size()),
      dval(values.data(), values.size()), dg(grad.data(), grad.size());
  cuda::DeviceTensor<float> probs(batch * t), out(batch * dv), gu(query.size()),
      gk(keys.size()), gv(values.size());
  ASSERT_EQ(cuda::SingleQueryForward(dk.data(), du.data(), dval.data(), batch, t, m, dv,
                                     probs.data(), out.data()),
            nullptr);
  ASSERT_EQ(cuda::SingleQueryBackward(dk.data(), du.data(), dval.data(), probs.data(), dg.data(),
                                      batch, t, m, dv, gu.data(), gk.data(), gv.data()),
            nullptr);
  const std::vector<float> gpu_out = out.ToHost(), gpu_gu = gu.ToHost(), gpu_gk = gk.ToHost(),
                           gpu_gv = gv.ToHost();
  for (int b = 0; b < batch; ++b) {
    const auto k = keys.middleRows(b * t, t);
    const auto v = values.middleRows(b * t, t);
    Mat a = query.row(b) * k.transpose();  // 1 x T
    SoftmaxRows(a, a);
    const Mat o = a * v;
    Mat ds = grad.row(b) * v.transpose();
    SoftmaxRowsBackward(a, ds, ds);
    const Mat grad_u = ds * k, grad_k = ds.transpose() * query.row(b),
              grad_v = a.transpose() * grad.row(b);
    auto slice = [&](const std::vector<float>& all, int size) {
      return std::vector<float>(all.begin() + b * size, all.begin() + (b + 1) * size);
    };
    EXPECT_LT(RelativeError(slice(gpu_out, dv), o.data(), dv), kTolerance);
    EXPECT_LT(RelativeError(slice(gpu_gu, m), grad_u.data(), m), kTolerance);
    EXPECT_LT(RelativeError(slice(gpu_gk, t * m), grad_k.data(), t * m), kTolerance);
    EXPECT_LT(RelativeError(slice(gpu_gv, t * dv), grad_v.data(), t * dv), kTolerance);
  }
}

// PAP composed from the kernels (split, symmetric attention, dual update) against the CPU
// PrincipalAttentionPursuit, iterate by iterate; then the shrink's backward.
TEST_F(CudaKernelsTest, PapInnerStepsMatchTheCpuPursuit) {
  const int n = 50, d = 16, iterations = 4;
  const Mat k = Random(n, d, rng_), v = Random(n, d, rng_);
  PapTrace<float> trace;
  const float lambda = 1.0f;
  const Mat cpu_l = PrincipalAttentionPursuit<float>(k, v, iterations, lambda,
                                                     /*threshold_over_mu=*/true, float(d), &trace);
  const float mu = trace.mu, threshold = lambda / mu, c = 1 / std::sqrt(float(d));
  cuda::DeviceTensor<float> dk(k.data(), k.size()), dv_(v.data(), v.size()), l(n * d), y(n * d),
      r(n * d), s(n * d), k2(n * d), probs(n * n);
  l.SetZero();
  y.SetZero();
  for (int it = 0; it < iterations; ++it) {
    ASSERT_EQ(cuda::PapSplit(dk.data(), l.data(), y.data(), n * d, mu, threshold, r.data(),
                             s.data(), k2.data()),
              nullptr);
    EXPECT_LT(RelativeError(s.ToHost(), trace.s[it].data(), n * d), kTolerance) << "S, " << it;
    ASSERT_EQ(cuda::AttentionForward(cublas_, k2.data(), k2.data(), dv_.data(), 1, n, n, d, d, c,
                                     false, probs.data(), l.data()),
              nullptr);
    EXPECT_LT(RelativeError(l.ToHost(), trace.l[it].data(), n * d), kTolerance) << "L, " << it;
    ASSERT_EQ(cuda::PapDualUpdate(dk.data(), l.data(), s.data(), n * d, mu, y.data()), nullptr);
  }
  EXPECT_LT(RelativeError(l.ToHost(), cpu_l.data(), n * d), kTolerance);

  const Mat grad_s = Random(n, d, rng_);
  const Mat& last_r = trace.r.back();
  Mat cpu_grad_r = Mat::Zero(n, d);
  float cpu_grad_threshold = 0;
  for (Eigen::Index i = 0; i < last_r.size(); ++i) {
    if (std::abs(last_r.data()[i]) > threshold) {
      cpu_grad_r.data()[i] = grad_s.data()[i];
      cpu_grad_threshold -= grad_s.data()[i] * (last_r.data()[i] > 0 ? 1.f : -1.f);
    }
  }
  cuda::DeviceTensor<float> dr(last_r.data(), last_r.size()), dgs(grad_s.data(), grad_s.size()),
      grad_r(n * d), grad_threshold(1);
  grad_threshold.SetZero();
  ASSERT_EQ(cuda::ShrinkBackward(dr.data(), dgs.data(), n * d, threshold, grad_r.data(),
                                 grad_threshold.data()),
            nullptr);
  EXPECT_LT(RelativeError(grad_r.ToHost(), cpu_grad_r.data(), n * d), kTolerance);
  EXPECT_LT(RelativeError(grad_threshold.ToHost(), &cpu_grad_threshold, 1), kTolerance);
}

#else  // !ATTNLAB_WITH_CUDA

TEST(CudaKernelsTest, SkippedWithoutCuda) {
  GTEST_SKIP() << "this build has no CUDA kernels (build and test with --config=cuda)";
}

#endif

}  // namespace
}  // namespace attnlab
