// The `classifier` plugin (config: ClassifierConfig in vision.proto).
#ifndef ATTNLAB_PLUGINS_VISION_CLASSIFIER_H_
#define ATTNLAB_PLUGINS_VISION_CLASSIFIER_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "attention/layer.h"
#include "plugins/layers/vision/vision.pb.h"

namespace attnlab {

template <typename T>
class Classifier : public Layer<T> {
 public:
  using Config = plugins::ClassifierConfig;

  static absl::StatusOr<std::unique_ptr<Classifier<T>>> Create(const Config& config);

  absl::StatusOr<Shape> Setup(const Shape& input, ExecContext& ctx) override;
  absl::StatusOr<Shape> OutputShape(const Shape& input) const override;
  void Forward(const Tensor<T>& in, Tensor<T>* out, ExecContext& ctx) override;
  void Backward(const Tensor<T>& grad_out, Tensor<T>* grad_in, ExecContext& ctx) override;
  std::vector<Parameter<T>*> parameters() override { return {&w_, &b_}; }

 private:
  explicit Classifier(const Config& config) : config_(config) {}

  Config config_;
  int dim_ = 0;
  Parameter<T> w_, b_;
  Shape input_shape_;
  Matrix<T> pooled_;  // batch x dim
};

}  // namespace attnlab

#endif  // ATTNLAB_PLUGINS_VISION_CLASSIFIER_H_
