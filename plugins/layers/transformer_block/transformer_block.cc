#include "plugins/layers/transformer_block/transformer_block.h"

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "attention/plugin_registry.h"
#include "plugins/layers/fc_net/fc_net.pb.h"
#include "plugins/layers/layer_norm/layer_norm.pb.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<TransformerBlock<T>>> TransformerBlock<T>::Create(
    const Config& config) {
  if (config.attention().plugin().empty()) {
    return FieldError("attention.plugin", "missing required field: the attention plugin");
  }
  if (config.ffn_hidden() <= 0) return FieldError("ffn_hidden", "missing or not > 0");
  std::unique_ptr<TransformerBlock<T>> block(new TransformerBlock<T>(config));
  ASSIGN_OR_RETURN(block->attn_, LayerRegistry<T>().CreateAt(
                                     config.attention().plugin(), config.attention().config(),
                                     "attention.plugin", "attention.config"));
  plugins::LayerNormConfig norm;
  if (config.has_layer_norm_eps()) norm.set_eps(config.layer_norm_eps());
  google::protobuf::Any norm_config;
  norm_config.PackFrom(norm);
  ASSIGN_OR_RETURN(block->ln1_, LayerRegistry<T>().Create("layer_norm", norm_config));
  ASSIGN_OR_RETURN(block->ln2_, LayerRegistry<T>().Create("layer_norm", norm_config));
  return block;
}

template <typename T>
absl::StatusOr<Shape> TransformerBlock<T>::Setup(const Shape& input, ExecContext& ctx) {
  auto attn_shape = attn_->Setup(input, ctx);
  if (!attn_shape.ok()) return PrefixErrorField("attention.config", attn_shape.status());
  if (*attn_shape != input) {
    return FieldError(
        "attention.config",
        absl::StrCat("the attention maps ", input.ToString(), " to ", attn_shape->ToString(),
                     "; a residual block needs ", input.ToString(), " (output_dim: d)"));
  }
  plugins::FcNetConfig ffn;
  ffn.add_hidden(config_.ffn_hidden());
  ffn.set_output_dim(input.cols);
  ffn.set_activation(config_.activation());
  ffn.set_per_token(true);
  google::protobuf::Any ffn_config;
  ffn_config.PackFrom(ffn);
  ASSIGN_OR_RETURN(ffn_, LayerRegistry<T>().Create("fc_net", ffn_config));
  RETURN_IF_ERROR(ln1_->Setup(input, ctx).status());
  RETURN_IF_ERROR(ffn_->Setup(input, ctx).status());
  RETURN_IF_ERROR(ln2_->Setup(input, ctx).status());
  for (auto& [name, layer] : sublayers()) {
    for (Parameter<T>* p : layer->parameters()) p->name = absl::StrCat(name, "/", p->name);
  }
  return OutputShape(input);
}

template <typename T>
absl::StatusOr<Shape> TransformerBlock<T>::OutputShape(const Shape& input) const {
  ASSIGN_OR_RETURN(const Shape attn, attn_->OutputShape(input));
  if (attn != input) return absl::InvalidArgumentError("the attention changes the shape");
  return ffn_->OutputShape(input);
}

template <typename T>
std::vector<std::pair<std::string, Layer<T>*>> TransformerBlock<T>::sublayers() {
  return {{"attn", attn_.get()}, {"ln1", ln1_.get()}, {"ffn", ffn_.get()}, {"ln2", ln2_.get()}};
}

template <typename T>
std::vector<Parameter<T>*> TransformerBlock<T>::parameters() {
  std::vector<Parameter<T>*> params;
  for (auto& [name, layer] : sublayers()) {
    for (Parameter<T>* p : layer->parameters()) params.push_back(p);
  }
  return params;
}

template <typename T>
void TransformerBlock<T>::Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) {
  // The residual sums are written by the sublayers' last products (ForwardAdd).
  if (pre_ln()) {
    ln1_->Forward(in, &norm1_, ctx);
    attn_->ForwardAdd(norm1_, in, &h_, ctx);  // h = x + attn(LN1(x))
    ln2_->Forward(h_, &norm2_, ctx);
    ffn_->ForwardAdd(norm2_, h_, out, ctx);  // h + ffn(LN2(h))
    return;
  }
  attn_->ForwardAdd(in, in, &sum1_, ctx);
  ln1_->Forward(sum1_, &h_, ctx);
  ffn_->ForwardAdd(h_, h_, &sum2_, ctx);
  ln2_->Forward(sum2_, out, ctx);
}

template <typename T>
void TransformerBlock<T>::Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in,
                                   ExecContext& ctx) {
  // Every sublayer's Backward runs (their parameter gradients are needed) even when the block's
  // own input gradient is not.
  // The residual connections' gradient sums are written by the sublayers (BackwardAdd).
  if (pre_ln()) {
    ffn_->Backward(grad_out, &grad_a_, ctx);              // d/d norm2
    ln2_->BackwardAdd(grad_a_, grad_out, &grad_h_, ctx);  // d/dh: directly and through LN2
    attn_->Backward(grad_h_, &grad_a_, ctx);              // d/d norm1
    if (grad_in != nullptr) {
      ln1_->BackwardAdd(grad_a_, grad_h_, grad_in, ctx);  // d/dx: directly and through LN1
    } else {
      ln1_->Backward(grad_a_, nullptr, ctx);  // LN1's parameter gradients only
    }
    return;
  }
  ln2_->Backward(grad_out, &grad_a_, ctx);             // d/d sum2
  ffn_->BackwardAdd(grad_a_, grad_a_, &grad_h_, ctx);  // d/dh: directly and through the FFN
  ln1_->Backward(grad_h_, &grad_a_, ctx);              // d/d sum1
  if (grad_in != nullptr) {
    attn_->BackwardAdd(grad_a_, grad_a_, grad_in, ctx);  // d/dx: directly and through attention
  } else {
    attn_->Backward(grad_a_, nullptr, ctx);
  }
}

template class TransformerBlock<float>;
template class TransformerBlock<double>;

ATTNLAB_REGISTER_LAYER(
    "transformer_block", plugins::TransformerBlockConfig, TransformerBlock,
    "a Post-LN or Pre-LN transformer block around any attention plugin",
    {"ffn_hidden: 6 attention { plugin: 'attention' config { "
     "[type.googleapis.com/attnlab.plugins.AttentionConfig] { heads: 2 "
     "qk_dim: 3 value_dim: 2 bias: true output_dim: 4 causal: true } } }",
     "norm: PRE ffn_hidden: 5 activation: GELU attention { plugin: 'attention' config { "
     "[type.googleapis.com/attnlab.plugins.AttentionConfig] { qk_dim: 3 "
     "output_dim: 4 } } }"});
ATTNLAB_PLUGIN_USES("layer", "transformer_block", "layer/layer_norm", "layer/fc_net");

}  // namespace attnlab
