// Benchmarks of the runner: bazel run -c opt //experiments:bench
//
// Sweep throughput: the 8 independent trials of experiments/testdata/sweep.textproto with a
// budget of 1 and 2 threads (trials side by side, one TBB arena).
// Training steps of the papers' workloads (experiments/workloads/*.textproto, and paper 2's
// language model), the ones tools/compare_pytorch/compare times against PyTorch; the ViTs also
// whole (vit_*_whole) and in micro-batches of 8, 16 and 64 (vit_*_micro8 ...).
// --product_backend=tuned|tiled|libxsmm|onednn: the float products as the runner takes them
// (experiments/product_setup.h; tuned, the default, prints this CPU model's kept choices first),
// or every block on one backend: the whole-workload A/B of the GEMM libraries.
// --subnormals=keep|flush runs every workload with that ModelSpec.subnormals (KEEP: IEEE 754's
// gradual underflow; FLUSH_TO_ZERO, the default): the A/B of that default.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "attention/kernels/library_product.h"
#include "attention/kernels/subnormal_mode.h"
#include "attention/model.h"
#include "datasets/shared_dataset.h"
#include "benchmark/benchmark.h"
#include "experiments/trials/benchmark_products.h"
#include "experiments/store/code_version.h"
#include "experiments/trials/runner.h"
#include "experiments/store/this_build.h"
#include "experiments/trials/trial_runner.h"
#include "google/protobuf/text_format.h"
#include "solvers/optimizer.h"
#include "tbb/parallel_for.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

// --subnormals: every model's mode, where given.
std::optional<ModelSpec::Subnormals> subnormals;

void BM_SweepOfEightTrials(benchmark::State& state) {
  absl::StatusOr<ParsedSpec> spec = ReadSpecFile("experiments/testdata/sweep.textproto");
  if (!spec.ok()) {
    state.SkipWithError(std::string(spec.status().message()).c_str());
    return;
  }
  if (subnormals) spec->spec.mutable_model()->set_subnormals(*subnormals);
  static std::atomic<int> run{0};
  for (auto _ : state) {
    RunOptions options;
    options.out_dir =
        "/tmp/attnlab_bench_" + std::to_string(getpid()) + "_" + std::to_string(run++);
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

// Paper 2's language model, one training step (forward, backward, AdamW): T = 64, batch 64,
// d = 128, one head, Post-LN, vocabulary 33,278 (WikiText-2's), float. Synthetic token ids.
constexpr char kLanguageModel[] = R"pb(
  dtype: FLOAT
  layer { name: "embed" plugin: "embedding" config {
    [type.googleapis.com/attnlab.plugins.EmbeddingConfig] {
      vocab_size: 33278 dim: 128 max_len: 64 } } }
  layer { name: "block0" plugin: "transformer_block" config {
    [type.googleapis.com/attnlab.plugins.TransformerBlockConfig] { ffn_hidden: 128
      attention { plugin: "attention" config {
        [type.googleapis.com/attnlab.plugins.AttentionConfig] {
          qk_dim: 128 bias: true output_dim: 128 causal: true } } } } } }
  loss { plugin: "lm_cross_entropy" config {
    [type.googleapis.com/attnlab.plugins.LmHeadConfig] { vocab_size: 33278 bias: true } } }
)pb";

void BM_LanguageModelStep(benchmark::State& state) {
  ModelSpec spec;
  google::protobuf::TextFormat::ParseFromString(kLanguageModel, &spec);
  if (subnormals) spec.set_subnormals(*subnormals);
  const int threads = static_cast<int>(state.range(0));
  ExecContext ctx(1, threads);
  auto model = Model<float>::Create(spec, {64, 64, 1}, {64, 64, 1}, ctx);
  OptimizerSpec adamw;
  google::protobuf::TextFormat::ParseFromString(
      R"pb(plugin: "adamw"
           config { [type.googleapis.com/attnlab.plugins.AdamConfig] { weight_decay: 0.01 } }
           lr: 1e-3)pb",
      &adamw);
  auto optimizer = CreateOptimizer<float>(adamw);
  if (!model.ok() || !optimizer.ok()) {
    state.SkipWithError("cannot build the model");
    return;
  }
  Tensor<float> ids({64, 64, 1}), next({64, 64, 1});
  std::mt19937 rng(1);
  for (Eigen::Index i = 0; i < ids.size(); ++i) {
    ids.data()[i] = static_cast<float>(rng() % 33278);
    next.data()[i] = static_cast<float>(rng() % 33278);
  }
  tbb::task_arena arena(threads);
  int64_t step = 0;
  auto train_step = [&] {
    arena.execute([&] {
      const ScopedSubnormalMode mode(spec.subnormals() == ModelSpec::FLUSH_TO_ZERO);
      (*model)->TrainStep(ids, next, ctx);
      (*optimizer)->Step((*model)->parameters(), step++, ctx);
    });
  };
  train_step();  // warm-up: the first step allocates and first touches the buffers
  for (auto _ : state) train_step();
  // The GEMM-bound part: the vocabulary head, 3 products of 4096 x 128 x 33278.
  state.counters["head_GFLOP/s"] = benchmark::Counter(
      3.0 * 2 * 4096 * 128 * 33278 * state.iterations(), benchmark::Counter::kIsRate,
      benchmark::Counter::kIs1000);
}
BENCHMARK(BM_LanguageModelStep)->ArgName("threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)
    ->UseRealTime()->MinTime(3);

// The middle value (the upper one of an even count); `values` is reordered.
double Median(std::vector<double>& values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Seconds to read `values` once, split evenly over the arena's threads: the memory floor of a
// step that must read them (median of 15 reads).
double StreamingReadSeconds(const std::vector<double>& values, tbb::task_arena& arena,
                            int threads) {
  std::vector<double> sums(threads), times;
  const size_t chunk = (values.size() + threads - 1) / threads;
  for (int read = 0; read < 15; ++read) {
    const auto start = std::chrono::steady_clock::now();
    arena.execute([&] {
      tbb::parallel_for(0, threads, [&](int t) {
        double acc[8] = {};  // independent sums: the loop runs at the memory's pace
        const size_t begin = t * chunk, end = std::min(values.size(), begin + chunk);
        size_t i = begin;
        for (; i + 8 <= end; i += 8) {
          for (int k = 0; k < 8; ++k) acc[k] += values[i + k];
        }
        for (; i < end; ++i) acc[0] += values[i];
        sums[t] = acc[0] + acc[1] + acc[2] + acc[3] + acc[4] + acc[5] + acc[6] + acc[7];
      }, tbb::static_partitioner());
    });
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    times.push_back(elapsed.count());
    benchmark::DoNotOptimize(sums.data());
  }
  return Median(times);
}

// One benchmark iteration is a whole run of the workload's training.steps steps, built once
// outside the timing (data loading is not a step). Reported: s/step, the median seconds of a
// step over every iteration's steps, as tools/compare_pytorch/workloads.py reports PyTorch's,
// where a step is a batch, forward, loss, backward and optimizer update (the time between the
// runner's calls of `stop`, made before each step; the final metrics pass is not a step).
// micro_batch: training.micro_batch_size to run with (0: the whole batch), or -1 for the file's.
void BM_Workload(benchmark::State& state, const std::string& path, int threads, int micro_batch) {
  absl::StatusOr<ParsedSpec> parsed = ReadSpecFile(path);
  if (!parsed.ok()) {
    state.SkipWithError(std::string(parsed.status().message()).c_str());
    return;
  }
  if (subnormals) parsed->spec.mutable_model()->set_subnormals(*subnormals);
  if (micro_batch >= 0) parsed->spec.mutable_training()->set_micro_batch_size(micro_batch);
  auto runner = TrialRunner::Create(parsed->spec, threads, parsed->directory);
  if (!runner.ok()) {
    state.SkipWithError(std::string(runner.status().message()).c_str());
    return;
  }
  tbb::task_arena arena(threads);
  absl::Status status;
  arena.execute([&] { status = (*runner)->Run(nullptr).status(); });  // warm-up
  std::vector<double> step_seconds;
  const size_t steps = parsed->spec.training().steps();
  for (auto _ : state) {
    // Grown before the run, so that no step's interval pays for the copy.
    if (step_seconds.capacity() < step_seconds.size() + steps) {
      step_seconds.reserve(2 * (step_seconds.size() + steps));
    }
    std::optional<std::chrono::steady_clock::time_point> step_start;
    const auto at_step = [&] {
      const auto now = std::chrono::steady_clock::now();
      if (step_start)
        step_seconds.push_back(std::chrono::duration<double>(now - *step_start).count());
      step_start = now;
      return false;
    };
    arena.execute([&] { status = (*runner)->Run({}, "", at_step).status(); });
    if (!status.ok()) state.SkipWithError(std::string(status.message()).c_str());
  }
  if (!step_seconds.empty()) state.counters["s/step"] = Median(step_seconds);
  // A full-batch step reads the whole training set (paper 1: n T d doubles): where that
  // outgrows a core's private caches (8 MiB covers every CPU we run on), its floor is one
  // streaming read.
  absl::StatusOr<std::shared_ptr<const Dataset<double>>> data =
      SharedDataset<double>(parsed->spec.dataset(), parsed->directory);
  if (parsed->spec.training().batch_size() == 0 && data.ok() && (*data)->train() != nullptr &&
      parsed->spec.model().dtype() == ModelSpec::DOUBLE) {
    const size_t count = static_cast<size_t>((*data)->train()->inputs.size());
    if (count * sizeof(double) > (size_t{8} << 20)) {
      const std::vector<double> tokens(count, 1.0);
      state.counters["read_s"] = StreamingReadSeconds(tokens, arena, threads);
    }
  }
}

void RegisterWorkload(const std::string& name, const std::string& path, int threads,
                      int micro_batch) {
  benchmark::RegisterBenchmark(absl::StrCat("BM_Workload/", name, "/threads:", threads).c_str(),
                               BM_Workload, path, threads, micro_batch)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

void RegisterWorkloads() {
  for (const char* name : {"p1_tiny", "p1_large", "p3_spe", "p3_spe_full", "p3_fixed", "p3_fc1024",
                           "vit_softmax", "vit_rpc"}) {
    for (int threads : {1, 2}) {
      const std::string path = absl::StrCat("experiments/workloads/", name, ".textproto");
      RegisterWorkload(name, path, threads, /*micro_batch=*/-1);
      if (!absl::StartsWith(name, "vit_")) continue;
      // The ViTs' best micro-batch depends on the core's L2 and the thread count, so they also
      // run whole and in other micro-batches than their files' 32 (compare keeps the fastest).
      RegisterWorkload(absl::StrCat(name, "_whole"), path, threads, 0);
      for (int micro_batch : {8, 16, 64}) {
        RegisterWorkload(absl::StrCat(name, "_micro", micro_batch), path, threads, micro_batch);
      }
    }
  }
}

}  // namespace
}  // namespace attnlab

int main(int argc, char** argv) {
  // Our flags, taken out of argv before Google Benchmark reads the rest.
  const std::string kSubnormalsFlag = "--subnormals=";
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind(kSubnormalsFlag, 0) != 0) {
      argv[kept++] = argv[i];
      continue;
    }
    const std::string mode = arg.substr(kSubnormalsFlag.size());
    if (mode != "keep" && mode != "flush") {
      std::fprintf(stderr, "bench: --subnormals: '%s' is not one of flush, keep\n", mode.c_str());
      return 2;
    }
    attnlab::subnormals =
        mode == "keep" ? attnlab::ModelSpec::KEEP : attnlab::ModelSpec::FLUSH_TO_ZERO;
  }
  argc = kept;
  if (absl::StatusOr<std::string> products = attnlab::ApplyBenchmarkProducts(&argc, argv);
      !products.ok()) {
    std::fprintf(stderr, "bench: %s\n", std::string(products.status().message()).c_str());
    return 2;
  }
  // In every report's context (compare_pytorch heads its tables with them): the code that ran.
  const attnlab::CodeVersion build = attnlab::ThisBuild();
  benchmark::AddCustomContext("attnlab_commit", build.ShortCommit());
  benchmark::AddCustomContext("attnlab_source", build.source);
  attnlab::RegisterWorkloads();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
