// Benchmarks of the core: bazel run -c opt //attention:bench
#include <random>
#include <vector>

#include "attention/kernels/gaussian.h"
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

}  // namespace
}  // namespace attnlab

BENCHMARK_MAIN();
