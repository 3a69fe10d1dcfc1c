// Every CUDA kernel against the CPU path, in float: relative error < 1e-5 (of the largest
// entry). Skips, saying why, in a build without --config=cuda or on a machine without a GPU.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "attention/kernels/cuda/device.h"
#include "attention/kernels/cuda/device_tensor.h"
#include "attention/kernels/cuda/kernels.h"
#include "attention/kernels/softmax.h"
#include "attention/tensor.h"
#include "gtest/gtest.h"

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
    for (int h = 0; h < heads; ++h) {  // the CPU path of plugins/mechanisms/softmax, head by head
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

#else  // !ATTNLAB_WITH_CUDA

TEST(CudaKernelsTest, SkippedWithoutCuda) {
  GTEST_SKIP() << "this build has no CUDA kernels (build and test with --config=cuda)";
}

#endif

}  // namespace
}  // namespace attnlab
