// Benchmarks of the kernels: bazel run -c opt //attention/kernels:bench
//
// The Gaussian stream (paper 3's encodings), and a ViT head's softmax scores: our fused kernel
// against the library product (libxsmm, through Product) followed by the softmax rows.
#include <random>
#include <vector>

#include "attention/kernels/fused_softmax.h"
#include "attention/kernels/gaussian.h"
#include "attention/tensor.h"
#include "benchmark/benchmark.h"

namespace attnlab {
namespace {

// One sample's stochastic positional encodings in paper 3: T * d_e = 200 * 170 normals.
void BM_GaussianStreamFloat(benchmark::State& state) {
  std::vector<float> out(state.range(0));
  GaussianStream stream(1);
  for (auto _ : state) {
    stream.Fill(out.data(), out.size());
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * out.size());
}
BENCHMARK(BM_GaussianStreamFloat)->Arg(34000);

// The same with the standard library, for scale.
void BM_StdNormalDistributionFloat(benchmark::State& state) {
  std::vector<float> out(state.range(0));
  std::mt19937_64 rng(1);
  std::normal_distribution<float> normal;
  for (auto _ : state) {
    for (float& x : out) x = normal(rng);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * out.size());
}
BENCHMARK(BM_StdNormalDistributionFloat)->Arg(34000);

// The vit workloads' heads: 128 images of 50 tokens, 4 heads of 16 in rows of 64 (a layer's
// keys, symmetric attention: queries = keys), forward (probs = softmax(Q K^T / 4)) and backward
// (dL/dscores from dL/dprobs = G V^T) for every head of the batch, as one layer does.
struct HeadBatch {
  static constexpr int kImages = 128, kTokens = 50, kHeads = 4, kDepth = 16;
  Matrix<float> keys = Matrix<float>::Random(kImages * kTokens, kHeads * kDepth);
  Matrix<float> values = Matrix<float>::Random(kImages * kTokens, kHeads * kDepth);
  Matrix<float> grad = Matrix<float>::Random(kImages * kTokens, kHeads * kDepth);
  Matrix<float> probs = Matrix<float>(kImages * kHeads * kTokens, kTokens);
  Matrix<float> grad_scores = Matrix<float>(kImages * kHeads * kTokens, kTokens);

  template <typename F>
  void ForEachHead(F&& f) {
    for (int b = 0; b < kImages; ++b) {
      for (int h = 0; h < kHeads; ++h) {
        const int64_t first = int64_t(b * kHeads + h) * kTokens;
        f(keys.block(b * kTokens, h * kDepth, kTokens, kDepth),
          values.block(b * kTokens, h * kDepth, kTokens, kDepth),
          grad.block(b * kTokens, h * kDepth, kTokens, kDepth), probs.middleRows(first, kTokens),
          grad_scores.middleRows(first, kTokens));
      }
    }
  }
};

void BM_HeadSoftmaxForward(benchmark::State& state) {
  HeadBatch batch;
  const bool fused = state.range(0) == 1;
  for (auto _ : state) {
    batch.ForEachHead([&](auto k, auto, auto, auto probs, auto) {
      if (fused) {
        SoftmaxOfScores(k, k, 0.25f, probs);
      } else {
        Product(k, k.transpose(), probs, /*accumulate=*/false, 0.25f);
        SoftmaxRows(probs, probs);
      }
    });
    benchmark::DoNotOptimize(batch.probs.data());
  }
  state.SetLabel(fused ? "fused" : "libxsmm product + softmax rows");
  state.SetItemsProcessed(state.iterations() * HeadBatch::kImages * HeadBatch::kHeads);
}
BENCHMARK(BM_HeadSoftmaxForward)->ArgName("fused")->Arg(1)->Arg(0);

void BM_HeadSoftmaxBackward(benchmark::State& state) {
  HeadBatch batch;
  batch.ForEachHead(
      [&](auto k, auto, auto, auto probs, auto) { SoftmaxOfScores(k, k, 0.25f, probs); });
  const bool fused = state.range(0) == 1;
  for (auto _ : state) {
    batch.ForEachHead([&](auto, auto v, auto g, auto probs, auto grad_scores) {
      if (fused) {
        SoftmaxOfScoresBackward(probs, g, v, grad_scores);
      } else {
        Product(g, v.transpose(), grad_scores, /*accumulate=*/false);
        SoftmaxRowsBackward(probs, grad_scores, grad_scores);
      }
    });
    benchmark::DoNotOptimize(batch.grad_scores.data());
  }
  state.SetLabel(fused ? "fused" : "libxsmm product + softmax rows backward");
  state.SetItemsProcessed(state.iterations() * HeadBatch::kImages * HeadBatch::kHeads);
}
BENCHMARK(BM_HeadSoftmaxBackward)->ArgName("fused")->Arg(1)->Arg(0);

}  // namespace
}  // namespace attnlab

BENCHMARK_MAIN();
