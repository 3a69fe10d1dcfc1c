// The RPC-ViT's attention layer alone (tools/bazel run -c opt //plugins/rpc:bench): one Forward
// and Backward over a batch of 128 images of 50 tokens of width 64, 4 heads of 16, as in
// experiments/workloads/vit_*.textproto; symmetric softmax attention (pap_iterations 0) and
// RPC-Attention (4 PAP iterations). Float, the calling thread only.
#include "attention/exec_context.h"
#include "benchmark/benchmark.h"
#include "plugins/rpc/rpc_attention.h"

namespace attnlab {
namespace {

void BM_RpcLayerStep(benchmark::State& state) {
  plugins::RpcAttentionConfig config;
  config.set_heads(4);
  config.set_head_dim(16);
  config.set_output_dim(64);
  config.set_bias(true);
  config.set_pap_iterations(static_cast<int>(state.range(0)));
  ExecContext ctx(/*seed=*/1, /*threads=*/1);
  auto layer = RpcAttention<float>::Create(config);
  const Shape shape{128, 50, 64};
  if (!layer.ok() || !(*layer)->Setup(shape, ctx).ok()) {
    state.SkipWithError("setting up the layer failed");
    return;
  }
  Tensor<float> in(shape), out, grad_out(shape), grad_in;
  in.flat().setRandom();
  grad_out.flat().setRandom();
  for (auto _ : state) {
    (*layer)->Forward(in, &out, ctx);
    (*layer)->Backward(grad_out, &grad_in, ctx);
    benchmark::DoNotOptimize(grad_in.flat().data());
  }
}
BENCHMARK(BM_RpcLayerStep)
    ->ArgName("pap_iterations")
    ->Arg(0)
    ->Arg(4)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace attnlab

BENCHMARK_MAIN();
