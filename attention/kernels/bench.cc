// Benchmarks of the kernels: bazel run -c opt //attention/kernels:bench
//
// The Gaussian stream (paper 3's encodings); a ViT head's softmax scores: our fused kernel
// against the product (through Product, on the backend the trials' tuning chose for its class;
// --product_backend= forces one) followed by the softmax rows; the
// symmetric head's dL/dK; the ViT step's element-wise work at its size against in cache; and
// paper 1's two token passes per sample, in L1, in L2 and streamed from memory.
#include <algorithm>
#include <random>
#include <vector>

#include "attention/exec_context.h"
#include "attention/kernels/activations.h"
#include "attention/kernels/fused_softmax.h"
#include "attention/kernels/gaussian.h"
#include "attention/kernels/layer_norm_rows.h"
#include "attention/kernels/symmetric_sum.h"
#include "attention/kernels/token_passes.h"
#include "attention/tensor.h"
#include "benchmark/benchmark.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

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
  state.SetLabel(fused ? "fused" : "product + softmax rows");
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
  state.SetLabel(fused ? "fused" : "product + softmax rows backward");
  state.SetItemsProcessed(state.iterations() * HeadBatch::kImages * HeadBatch::kHeads);
}
BENCHMARK(BM_HeadSoftmaxBackward)->ArgName("fused")->Arg(1)->Arg(0);

// Symmetric attention's dL/dK for every head from dL/dscores G: the two products
// G^T K + G K, or the symmetric sum G + G^T and one product. The scale is 1 in the first (its
// pass over G kept, its value not, lest G shrink to denormals over the iterations) and 1/2 in
// the second (G + G^T would grow).
void BM_SymmetricKeysGradient(benchmark::State& state) {
  HeadBatch batch;
  batch.ForEachHead([&](auto k, auto v, auto g, auto probs, auto grad_scores) {
    SoftmaxOfScores(k, k, 0.25f, probs);
    SoftmaxOfScoresBackward(probs, g, v, grad_scores);
  });
  Matrix<float> dk(HeadBatch::kTokens, HeadBatch::kDepth);
  const bool symmetric_sum = state.range(0) == 1;
  const float scale = symmetric_sum ? 0.5f : 1.0f;  // not a constant the compiler could fold
  for (auto _ : state) {
    batch.ForEachHead([&](auto k, auto, auto, auto, auto grad_scores) {
      if (symmetric_sum) {
        ScaledSymmetricSum(int(grad_scores.rows()), scale, grad_scores.data(),
                           grad_scores.outerStride());
        Product(grad_scores, k, dk, /*accumulate=*/false);
      } else {
        grad_scores *= scale;
        Product(grad_scores.transpose(), k, dk, /*accumulate=*/false);
        Product(grad_scores, k, dk, /*accumulate=*/true);
      }
    });
    benchmark::DoNotOptimize(dk.data());
  }
  state.SetLabel(symmetric_sum ? "(G + G^T) K" : "G^T K + G K");
  state.SetItemsProcessed(state.iterations() * HeadBatch::kImages * HeadBatch::kHeads);
}
BENCHMARK(BM_SymmetricKeysGradient)->ArgName("symmetric_sum")->Arg(0)->Arg(1);

// The ViT step's element-wise work at the step's size (6400 rows: the MLP's 3.2 MiB hidden
// layer lives in L3) against the same rows run over a block that stays in L1/L2 (64 rows,
// repeated to as many rows): per-element time the same in both means the work is bound by its
// arithmetic, so fusing it into the products' tiles cannot make it cheaper.
constexpr int kStepRows = 6400, kCachedRows = 64;

void BM_GeluKeepingDerivative(benchmark::State& state) {
  const int rows = int(state.range(0)), cols = 128, repeats = kStepRows / rows;
  Matrix<float> x = Matrix<float>::Random(rows, cols), y(rows, cols);
  ExecContext ctx(1);
  for (auto _ : state) {
    for (int r = 0; r < repeats; ++r) {
      ActivateKeepingDerivative(ctx, Activation::kGelu, &x, &y);  // x becomes GELU', bounded
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * int64_t(kStepRows) * cols);
}
BENCHMARK(BM_GeluKeepingDerivative)->ArgName("rows")->Arg(kStepRows)->Arg(kCachedRows);

void BM_LayerNormRows(benchmark::State& state) {
  const int rows = int(state.range(0)), cols = 64, repeats = kStepRows / rows;
  const bool backward = state.range(1) == 1;
  Matrix<float> x = Matrix<float>::Random(rows, cols), y(rows, cols), dx(rows, cols);
  const Matrix<float> dy = Matrix<float>::Random(rows, cols);
  std::vector<float> gamma(cols, 1.0f), beta(cols, 0.0f), gamma_sum(cols), beta_sum(cols);
  std::vector<float> mean(rows), inv_std(rows);
  for (auto _ : state) {
    for (int r = 0; r < repeats; ++r) {
      if (backward) {
        LayerNormRowsBackward(rows, cols, x.data(), cols, dy.data(), cols, mean.data(),
                              inv_std.data(), gamma.data(), x.data(), cols, gamma_sum.data(),
                              beta_sum.data(), dx.data(), cols);
      } else {
        LayerNormRows(rows, cols, x.data(), cols, 1e-5f, gamma.data(), beta.data(), y.data(), cols,
                      mean.data(), inv_std.data());
      }
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::DoNotOptimize(dx.data());
  }
  state.SetLabel(backward ? "backward (residual added)" : "forward");
  state.SetItemsProcessed(state.iterations() * int64_t(kStepRows) * cols);
}
BENCHMARK(BM_LayerNormRows)
    ->ArgNames({"rows", "backward"})
    ->Args({kStepRows, 0})
    ->Args({kCachedRows, 0})
    ->Args({kStepRows, 1})
    ->Args({kCachedRows, 1});

// BM_HeadSoftmaxForward/Backward's fused kernels on the batch's first head only, 512 times:
// its operands stay in L1.
void BM_HeadSoftmaxOneHeadInCache(benchmark::State& state) {
  HeadBatch batch;
  const bool backward = state.range(0) == 1;
  const int heads = HeadBatch::kImages * HeadBatch::kHeads;
  auto k = batch.keys.block(0, 0, HeadBatch::kTokens, HeadBatch::kDepth);
  auto v = batch.values.block(0, 0, HeadBatch::kTokens, HeadBatch::kDepth);
  auto g = batch.grad.block(0, 0, HeadBatch::kTokens, HeadBatch::kDepth);
  auto probs = batch.probs.middleRows(0, HeadBatch::kTokens);
  auto grad_scores = batch.grad_scores.middleRows(0, HeadBatch::kTokens);
  SoftmaxOfScores(k, k, 0.25f, probs);
  for (auto _ : state) {
    for (int h = 0; h < heads; ++h) {
      if (backward) {
        SoftmaxOfScoresBackward(probs, g, v, grad_scores);
      } else {
        SoftmaxOfScores(k, k, 0.25f, probs);
      }
    }
    benchmark::DoNotOptimize(batch.probs.data());
    benchmark::DoNotOptimize(batch.grad_scores.data());
  }
  state.SetLabel(backward ? "fused backward" : "fused forward");
  state.SetItemsProcessed(state.iterations() * heads);
}
BENCHMARK(BM_HeadSoftmaxOneHeadInCache)->ArgName("backward")->Arg(0)->Arg(1);

// Paper 1's two passes per sample (p1_large: T = d = 64, double, two vectors and two weight
// rows) over `samples` samples of tokens, each prefetching the next, the samples split evenly
// over `threads` threads: 1 sample stays in L1, 16 in L2, 1024 (33.5 MB) stream from memory.
// The softmax between the passes is left out.
void BM_TokenPasses(benchmark::State& state) {
  constexpr int kRows = 64, kDim = 64, kCount = 2;
  const int samples = static_cast<int>(state.range(0)), threads = static_cast<int>(state.range(1));
  std::vector<double> tokens(size_t(samples) * kRows * kDim), vectors(kCount * kDim);
  std::mt19937 rng(1);
  std::normal_distribution<double> normal;
  for (double& x : tokens) x = normal(rng);
  for (double& x : vectors) x = normal(rng);
  // Each thread's outputs 4 KB from the other's: no cache line shared.
  constexpr int kApart = 512;
  std::vector<double> scratch(size_t(threads) * 2 * kApart);
  auto dots = [&](int t) { return scratch.data() + size_t(t) * 2 * kApart; };
  auto sums = [&](int t) { return dots(t) + kApart; };
  tbb::task_arena arena(threads);
  const int chunk = (samples + threads - 1) / threads;
  for (auto _ : state) {
    arena.execute([&] {
      tbb::parallel_for(0, threads, [&](int t) {
        const int end = std::min(samples, (t + 1) * chunk);
        for (int b = t * chunk; b < end; ++b) {
          const double* x = tokens.data() + size_t(b) * kRows * kDim;
          NextSamplePrefetch prefetch(b + 1 < end ? x + kRows * kDim : nullptr,
                                      kRows * kDim * sizeof(double), /*steps_between=*/0);
          TokenDots(x, kRows, kDim, vectors.data(), kCount, dots(t), prefetch.first_pass());
          WeightedTokenSums(x, kRows, kDim, dots(t), kCount, sums(t), prefetch.second_pass());
        }
      }, tbb::static_partitioner());
    });
    benchmark::DoNotOptimize(scratch.data());
  }
  state.SetItemsProcessed(state.iterations() * samples);
  state.counters["GFLOP/s"] = benchmark::Counter(
      4.0 * 2 * kRows * kDim * samples * state.iterations(), benchmark::Counter::kIsRate,
      benchmark::Counter::kIs1000);
}
BENCHMARK(BM_TokenPasses)
    ->ArgNames({"samples", "threads"})
    ->Args({1, 1})
    ->Args({16, 1})
    ->Args({1024, 1})
    ->Args({1024, 2})
    ->UseRealTime();

}  // namespace
}  // namespace attnlab
