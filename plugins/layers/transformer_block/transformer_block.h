// The `transformer_block` plugin (config: transformer_block.proto).
#ifndef ATTNLAB_PLUGINS_TRANSFORMER_BLOCK_TRANSFORMER_BLOCK_H_
#define ATTNLAB_PLUGINS_TRANSFORMER_BLOCK_TRANSFORMER_BLOCK_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/layer.h"
#include "plugins/layers/transformer_block/transformer_block.pb.h"

namespace attnlab {

template <typename T>
class TransformerBlock : public Layer<T> {
 public:
  using Config = plugins::TransformerBlockConfig;

  static absl::StatusOr<std::unique_ptr<TransformerBlock<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override;
  std::vector<std::pair<std::string, Layer<T>*>> sublayers() override;

 private:
  explicit TransformerBlock(const Config& config) : config_(config) {}

  bool pre_ln() const { return config_.norm() == Config::PRE; }

  Config config_;
  std::unique_ptr<Layer<T>> attn_, ln1_, ffn_, ln2_;
  // Intermediates of the last Forward (see the formulas in the .proto):
  // POST: sum1_ = x + Attn(x), h_ = LN1(sum1_), sum2_ = h_ + FFN(h_), y = LN2(sum2_).
  // PRE:  norm1_ = LN1(x), h_ = x + Attn(norm1_), norm2_ = LN2(h_), y = h_ + FFN(norm2_).
  Tensor<T> sum1_, h_, sum2_, norm1_, norm2_;
  Tensor<T> grad_a_, grad_h_;  // backward scratch
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_TRANSFORMER_BLOCK_TRANSFORMER_BLOCK_H_
