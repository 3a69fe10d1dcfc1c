// Benchmarks of the runner: bazel run -c opt //experiments:bench
//
// Sweep throughput: the 8 independent trials of experiments/testdata/sweep.textproto with a
// budget of 1 and 2 threads (trials side by side, one TBB arena).
#include <unistd.h>

#include <atomic>
#include <string>

#include "benchmark/benchmark.h"
#include "experiments/runner.h"

namespace attnlab {
namespace {

void BM_SweepOfEightTrials(benchmark::State& state) {
  absl::StatusOr<ParsedSpec> spec = ReadSpecFile("experiments/testdata/sweep.textproto");
  if (!spec.ok()) {
    state.SkipWithError(std::string(spec.status().message()).c_str());
    return;
  }
  static std::atomic<int> run{0};
  for (auto _ : state) {
    RunOptions options;
    options.out_dir = "/tmp/attnlab_bench_" + std::to_string(getpid()) + "_" + std::to_string(run++);
    options.threads = static_cast<int>(state.range(0));
    options.progress = false;
    absl::StatusOr<ExperimentResult> result = RunExperiment(*spec, options);
    if (!result.ok() || result->failed > 0) state.SkipWithError("the sweep failed");
  }
  state.counters["trials/s"] =
      benchmark::Counter(8.0 * state.iterations(), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepOfEightTrials)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

}  // namespace
}  // namespace attnlab

BENCHMARK_MAIN();
