#include "attention/model.h"

#include <functional>
#include <set>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "attention/attention_layer.h"
#include "attention/kernels/cuda/device.h"
#include "attention/base/field_error.h"
#include "attention/plugin_registry.h"
#include "attention/base/status_macros.h"

namespace attnlab {

template <typename T>
absl::StatusOr<std::unique_ptr<Model<T>>> Model<T>::Create(const ModelSpec& spec,
                                                           const Shape& input_shape,
                                                           const Shape& target_shape,
                                                           ExecContext& ctx) {
  if (spec.layer_size() == 0) return FieldError("layer", "a model needs at least one layer");
  if (spec.device() == ModelSpec::CUDA) {
    if (absl::Status status = CudaAvailable(); !status.ok()) {
      return FieldError("device", std::string(status.message()));
    }
    if (!std::is_same_v<T, float>) {
      return FieldError("device", "the CUDA kernels are float32: set dtype: FLOAT");
    }
  }
  ctx.set_cuda(spec.device() == ModelSpec::CUDA);
  std::unique_ptr<Model<T>> model(new Model<T>());
  std::set<std::string> names;
  Shape shape = input_shape;
  for (int i = 0; i < spec.layer_size(); ++i) {
    const LayerSpec& layer_spec = spec.layer(i);
    const std::string path = absl::StrCat("layer[", i, "]");
    if (layer_spec.plugin().empty()) {
      return FieldError(absl::StrCat(path, ".plugin"), "missing required field 'plugin'");
    }
    const std::string name = layer_spec.name().empty() ? layer_spec.plugin() : layer_spec.name();
    if (!names.insert(name).second) {
      return FieldError(absl::StrCat(path, ".name"),
                        absl::StrCat("layer name '", name, "' is used twice; give each a `name`"));
    }
    auto layer = LayerRegistry<T>().CreateAt(layer_spec.plugin(), layer_spec.config(),
                                             absl::StrCat(path, ".plugin"),
                                             absl::StrCat(path, ".config"));
    if (!layer.ok()) return layer.status();
    auto out_shape = (*layer)->Setup(shape, ctx);
    if (!out_shape.ok()) return PrefixErrorField(absl::StrCat(path, ".config"), out_shape.status());
    for (Parameter<T>* param : (*layer)->parameters()) {
      param->name = absl::StrCat(name, "/", param->name);
      model->parameters_.push_back(param);
    }
    model->layer_names_.push_back(name);
    model->layers_.push_back(std::move(*layer));
    shape = *out_shape;
  }
  if (spec.loss().plugin().empty()) {
    return FieldError("loss.plugin", "missing required field 'plugin'");
  }
  auto loss = LossRegistry<T>().CreateAt(spec.loss().plugin(), spec.loss().config(),
                                         "loss.plugin", "loss.config");
  if (!loss.ok()) return loss.status();
  if (absl::Status status = (*loss)->Setup(shape, target_shape, ctx); !status.ok()) {
    if (!ErrorField(status).empty()) return PrefixErrorField("loss.config", status);
    return FieldError("loss.plugin", absl::StrCat("the last layer's output ", shape.ToString(),
                                                  " does not fit targets ",
                                                  target_shape.ToString(), ": ",
                                                  status.message()));
  }
  for (Parameter<T>* param : (*loss)->parameters()) {
    param->name = absl::StrCat("loss/", param->name);
    model->parameters_.push_back(param);
  }
  model->loss_ = std::move(*loss);
  for (int r = 0; r < spec.regularizer_size(); ++r) {
    const RegularizerSpec& reg = spec.regularizer(r);
    const std::string path = absl::StrCat("regularizer[", r, "]");
    auto regularizer = RegularizerRegistry<T>().CreateAt(reg.plugin(), reg.config(),
                                                         absl::StrCat(path, ".plugin"),
                                                         absl::StrCat(path, ".config"));
    if (!regularizer.ok()) return regularizer.status();
    std::shared_ptr<Regularizer<T>> shared = std::move(*regularizer);
    std::vector<std::string> targets(reg.layer().begin(), reg.layer().end());
    if (targets.empty()) {
      for (const std::string& layer : model->LayerPaths()) {
        if (model->FindLayer(layer)->AsAttention() != nullptr) targets.push_back(layer);
      }
      if (targets.empty()) {
        return FieldError(absl::StrCat(path, ".plugin"), "the model has no attention layer");
      }
    }
    for (const std::string& name : targets) {
      Layer<T>* layer = model->FindLayer(name);
      if (layer == nullptr || layer->AsAttention() == nullptr) {
        return FieldError(absl::StrCat(path, ".layer"),
                          absl::StrCat("'", name, "' is not an attention layer; layers: ",
                                       absl::StrJoin(model->LayerPaths(), ", ")));
      }
      model->penalties_.push_back({shared, layer->AsAttention(), {}});
    }
  }
  model->activations_.resize(model->layers_.size());
  model->grads_.resize(model->layers_.size());
  return model;
}

template <typename T>
const Tensor<T>& Model<T>::Forward(const Tensor<T>& input, ExecContext& ctx) {
  const Tensor<T>* in = &input;
  for (size_t i = 0; i < layers_.size(); ++i) {
    layers_[i]->Forward(*in, &activations_[i], ctx);
    in = &activations_[i];
  }
  return activations_.back();
}

template <typename T>
T Model<T>::ComputeLoss(const Tensor<T>& target, ExecContext& ctx) {
  const T loss = loss_->Compute(activations_.back(), target, &grads_.back(), ctx);
  last_penalty_ = 0;
  for (Penalty& penalty : penalties_) {
    penalty.grads.resize(penalty.layer->heads());
    for (int h = 0; h < penalty.layer->heads(); ++h) {
      last_penalty_ +=
          penalty.regularizer->Penalty(penalty.layer->QueryKeyMatrix(h), &penalty.grads[h]);
    }
  }
  return loss + last_penalty_;
}

template <typename T>
T Model<T>::EvaluateLoss(const Tensor<T>& target, ExecContext& ctx) {
  return loss_->Compute(activations_.back(), target, nullptr, ctx);
}

template <typename T>
void Model<T>::Backward(ExecContext& ctx) {
  for (size_t i = layers_.size(); i-- > 0;) {
    layers_[i]->Backward(grads_[i], i == 0 ? nullptr : &grads_[i - 1], ctx);
  }
  // Layers set their gradients; the penalties add theirs.
  for (Penalty& penalty : penalties_) {
    for (int h = 0; h < penalty.layer->heads(); ++h) {
      penalty.layer->AddQueryKeyGradient(h, penalty.grads[h]);
    }
  }
}

template <typename T>
void Model<T>::InputGradient(const Tensor<T>& input, const Tensor<T>& target, Tensor<T>* grad,
                             ExecContext& ctx) {
  std::vector<Matrix<T>> saved;
  saved.reserve(parameters_.size());
  for (const Parameter<T>* param : parameters_) saved.push_back(param->grad);
  Forward(input, ctx);
  loss_->Compute(activations_.back(), target, &grads_.back(), ctx);
  for (size_t i = layers_.size(); i-- > 0;) {
    layers_[i]->Backward(grads_[i], i == 0 ? grad : &grads_[i - 1], ctx);
  }
  for (size_t k = 0; k < parameters_.size(); ++k) parameters_[k]->grad = std::move(saved[k]);
}

template <typename T>
T Model<T>::TrainStep(const Tensor<T>& input, const Tensor<T>& target, ExecContext& ctx) {
  Forward(input, ctx);
  const T loss = ComputeLoss(target, ctx);
  Backward(ctx);
  return loss;
}

template <typename T>
absl::Status Model<T>::CheckShapes(const Shape& input, const Shape& target) const {
  Shape shape = input;
  for (size_t i = 0; i < layers_.size(); ++i) {
    absl::StatusOr<Shape> out = layers_[i]->OutputShape(shape);
    if (!out.ok()) {
      return absl::Status(out.status().code(),
                          absl::StrCat("layer '", layer_names_[i], "': ", out.status().message()));
    }
    shape = *out;
  }
  return loss_->Check(shape, target);
}

template <typename T>
absl::Status Model<T>::CheckValues(const Tensor<T>& input, const Tensor<T>& target) const {
  if (absl::Status s = layers_[0]->CheckInputValues(input); !s.ok()) {
    return PrefixErrorField("layer[0].config", s);
  }
  if (absl::Status s = loss_->CheckTargetValues(target); !s.ok()) {
    return PrefixErrorField("loss.config", s);
  }
  return absl::OkStatus();
}

template <typename T>
int64_t Model<T>::parameter_count() const {
  int64_t count = 0;
  for (const Parameter<T>* p : parameters_) {
    if (!p->frozen) count += p->value.size();
  }
  return count;
}

template <typename T>
Parameter<T>* Model<T>::FindParameter(const std::string& name) const {
  for (Parameter<T>* param : parameters_) {
    if (param->name == name) return param;
  }
  return nullptr;
}

template <typename T>
Layer<T>* Model<T>::FindLayer(const std::string& name) const {
  // "block0/attn": a layer, then sublayers by name.
  const std::vector<std::string> parts = absl::StrSplit(name, '/');
  Layer<T>* layer = nullptr;
  for (size_t i = 0; i < layers_.size(); ++i) {
    if (layer_names_[i] == parts[0]) layer = layers_[i].get();
  }
  for (size_t k = 1; k < parts.size() && layer != nullptr; ++k) {
    Layer<T>* next = nullptr;
    for (auto& [sub_name, sub] : layer->sublayers()) {
      if (sub_name == parts[k]) next = sub;
    }
    layer = next;
  }
  return layer;
}

template <typename T>
std::vector<std::string> Model<T>::LayerPaths() const {
  std::vector<std::string> paths;
  std::function<void(const std::string&, Layer<T>*)> visit = [&](const std::string& path,
                                                                  Layer<T>* layer) {
    paths.push_back(path);
    for (auto& [name, sub] : layer->sublayers()) visit(path + "/" + name, sub);
  };
  for (size_t i = 0; i < layers_.size(); ++i) visit(layer_names_[i], layers_[i].get());
  return paths;
}

template <typename T>
std::string Model<T>::NonFiniteSource() const {
  for (const Parameter<T>* param : parameters_) {
    if (!param->value.allFinite()) return absl::StrCat("parameter '", param->name, "'");
  }
  for (size_t i = 0; i < layers_.size() && i < activations_.size(); ++i) {
    if (!activations_[i].flat().allFinite()) {
      return absl::StrCat("output of layer '", layer_names_[i], "'");
    }
  }
  for (const Parameter<T>* param : parameters_) {
    if (!param->grad.allFinite()) return absl::StrCat("gradient of '", param->name, "'");
  }
  return "";
}

template class Model<float>;
template class Model<double>;

}  // namespace attnlab
