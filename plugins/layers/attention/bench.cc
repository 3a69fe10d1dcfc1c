// The softmax attention layer's step (Forward and Backward) on the CPU and under device: CUDA
// (tools/bazel run -c opt //plugins:attention_bench; the CUDA rows need a --config=cuda build and
// a GPU, and skip saying why elsewhere). Float, subnormals flushed as a trial does, at the
// shapes in kShapes.
// The CUDA path moves Q, K, V, the attention map and the gradients across the bus at every call
// (the map stays on the host for the metrics), so these rows time that round trip too.
#include <iterator>
#include <string>
#include <thread>

#include "attention/exec_context.h"
#include "attention/kernels/cuda/device.h"
#include "attention/kernels/subnormal_mode.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "plugins/layers/attention/multi_head_attention.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

struct LayerShape {
  const char* name;
  const char* config;
  Shape input;
};

// The ViT workloads' (experiments/workloads/vit_*), paper 2's LM (experiments/qk_spectrum/2c) and a
// long causal sequence.
const LayerShape kShapes[] = {
    {"vit",
     "symmetric: true heads: 4 qk_dim: 16 value_dim: 16 output_dim: 64 bias: true",
     {128, 50, 64}},
    {"lm", "qk_dim: 128 bias: true output_dim: 128 causal: true", {16, 64, 128}},
    {"long",
     "heads: 4 qk_dim: 32 value_dim: 32 output_dim: 128 bias: true causal: true",
     {8, 1024, 128}},
};

// Arguments: shape (an index into kShapes), cuda (0 or 1), CPU threads.
void BM_AttentionLayerStep(benchmark::State& state) {
  const LayerShape& shape = kShapes[state.range(0)];
  const bool cuda = state.range(1) != 0;
  const int threads = int(state.range(2));
  state.SetLabel(shape.name);
  if (cuda) {
    if (absl::Status status = CudaAvailable(); !status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      return;
    }
  }
  plugins::AttentionConfig config;
  google::protobuf::TextFormat::ParseFromString(shape.config, &config);
  ExecContext ctx(/*seed=*/1, threads);
  ctx.set_cuda(cuda);
  auto layer = MultiHeadAttention<float>::Create(config);
  if (!layer.ok() || !(*layer)->Setup(shape.input, ctx).ok()) {
    state.SkipWithError("setting up the layer failed");
    return;
  }
  Tensor<float> in(shape.input), out, grad_out, grad_in;
  in.flat().setRandom();
  tbb::task_arena arena(threads);
  arena.execute([&] { (*layer)->Forward(in, &out, ctx); });
  grad_out.Resize(out.shape());
  grad_out.flat().setRandom();
  const ScopedSubnormalMode subnormals(true);  // as a trial runs (ModelSpec.subnormals)
  for (auto _ : state) {
    arena.execute([&] {
      (*layer)->Forward(in, &out, ctx);
      (*layer)->Backward(grad_out, &grad_in, ctx);
    });
    benchmark::DoNotOptimize(grad_in.flat().data());
  }
}

void Arguments(benchmark::internal::Benchmark* bench) {
  const int cores = int(std::thread::hardware_concurrency());
  for (int shape = 0; shape < int(std::size(kShapes)); ++shape) {
    for (int cuda : {0, 1}) {
      bench->Args({shape, cuda, 1});
      if (cores > 1) bench->Args({shape, cuda, cores});  // the projections and maps stay on the CPU
    }
  }
}
BENCHMARK(BM_AttentionLayerStep)
    ->ArgNames({"shape", "cuda", "threads"})
    ->Apply(Arguments)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace attnlab
