// The RPC-ViT's attention layer alone (tools/bazel run -c opt //plugins:rpc_bench): one Forward
// and Backward over a batch of 128 images of 50 tokens of width 64, 4 symmetric heads of 16, as
// in experiments/workloads/vit_*.textproto; mechanism softmax (symmetric attention) and rpc with
// 4 PAP iterations. Float, the calling thread only, flushing subnormals as a trial does. Also
// over 8 images, whose activations and PAP traces stay in the caches: 16 times its time against
// the batch's is what the batch's trips to memory cost.
#include <string>

#include "attention/exec_context.h"
#include "attention/kernels/subnormal_mode.h"
#include "benchmark/benchmark.h"
#include "google/protobuf/text_format.h"
#include "plugins/layers/attention/multi_head_attention.h"

namespace attnlab {
namespace {

void BM_RpcLayerStep(benchmark::State& state) {
  std::string text = "symmetric: true heads: 4 qk_dim: 16 value_dim: 16 output_dim: 64 bias: true";
  if (state.range(0) > 0) {
    text +=
        " mechanism: 'rpc' mechanism_config { [type.googleapis.com/attnlab.plugins.RpcConfig] "
        "{ iterations: " +
        std::to_string(state.range(0)) + " } }";
  }
  plugins::AttentionConfig config;
  google::protobuf::TextFormat::ParseFromString(text, &config);
  ExecContext ctx(/*seed=*/1, /*threads=*/1);
  auto layer = MultiHeadAttention<float>::Create(config);
  const Shape shape{int(state.range(1)), 50, 64};
  if (!layer.ok() || !(*layer)->Setup(shape, ctx).ok()) {
    state.SkipWithError("setting up the layer failed");
    return;
  }
  Tensor<float> in(shape), out, grad_out(shape), grad_in;
  in.flat().setRandom();
  grad_out.flat().setRandom();
  const ScopedSubnormalMode subnormals(true);  // as a trial runs (ModelSpec.subnormals)
  for (auto _ : state) {
    (*layer)->Forward(in, &out, ctx);
    (*layer)->Backward(grad_out, &grad_in, ctx);
    benchmark::DoNotOptimize(grad_in.flat().data());
  }
}
BENCHMARK(BM_RpcLayerStep)
    ->ArgNames({"pap_iterations", "images"})
    ->ArgsProduct({{0, 4}, {8, 128}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace attnlab
