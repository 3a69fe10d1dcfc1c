#include "attention/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"

namespace attnlab {
namespace {

// Tracks the worst relative error over all checked entries.
class Worst {
 public:
  explicit Worst(double tolerance) : tolerance_(tolerance) {}
  void Add(const std::string& what, double analytic, double numeric) {
    double error = std::abs(analytic - numeric) /
                   std::max({1.0, std::abs(analytic), std::abs(numeric)});
    if (std::isnan(error)) error = INFINITY;
    if (worst_.empty() || error > worst_error_) {
      worst_error_ = error;
      worst_ = absl::StrCat(what, ": analytic ", analytic, ", numeric ", numeric, ", rel error ",
                            error);
    }
  }
  absl::Status Result() const {
    if (worst_error_ <= tolerance_) return absl::OkStatus();
    return absl::InternalError(
        absl::StrCat("gradient check failed (tolerance ", tolerance_, "); worst ", worst_));
  }

 private:
  double tolerance_;
  double worst_error_ = 0;
  std::string worst_;
};

// Central difference of f with respect to *x.
double CentralDifference(double* x, double step, const std::function<double()>& f) {
  const double saved = *x;
  *x = saved + step;
  const double plus = f();
  *x = saved - step;
  const double minus = f();
  *x = saved;
  return (plus - minus) / (2 * step);
}

}  // namespace

absl::Status CheckLayerGradients(Layer<double>& layer, const Tensor<double>& input,
                                 const GradientCheckOptions& options) {
  ExecContext ctx(options.seed);
  Tensor<double> x = input;
  Tensor<double> out;
  ctx.Reseed(options.seed);
  layer.Forward(x, &out, ctx);
  std::mt19937_64 rng(options.seed + 1);
  std::normal_distribution<double> normal;
  Matrix<double> weights(out.flat().rows(), out.flat().cols());
  for (Eigen::Index i = 0; i < weights.size(); ++i) weights.data()[i] = normal(rng);

  Tensor<double> grad_out(out.shape());
  grad_out.flat() = weights;
  Tensor<double> grad_in;
  ctx.Reseed(options.seed);
  layer.Forward(x, &out, ctx);
  layer.Backward(grad_out, &grad_in, ctx);
  // Copy analytic gradients before the finite-difference forwards overwrite caches.
  const Matrix<double> analytic_input = grad_in.flat();
  std::vector<Matrix<double>> analytic_params;
  for (Parameter<double>* p : layer.parameters()) analytic_params.push_back(p->grad);
  // A first layer is asked for no input gradient, and may take another path for it.
  ctx.Reseed(options.seed);
  layer.Forward(x, &out, ctx);
  layer.Backward(grad_out, nullptr, ctx);
  std::vector<Matrix<double>> first_layer_params;
  for (Parameter<double>* p : layer.parameters()) first_layer_params.push_back(p->grad);

  auto loss = [&] {
    ctx.Reseed(options.seed);
    layer.Forward(x, &out, ctx);
    return out.flat().cwiseProduct(weights).sum();
  };
  Worst worst(options.tolerance);
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    worst.Add(absl::StrCat("input[", i, "]"), analytic_input.data()[i],
              CentralDifference(x.data() + i, options.step, loss));
  }
  std::vector<Parameter<double>*> params = layer.parameters();
  for (size_t k = 0; k < params.size(); ++k) {
    if (params[k]->frozen) continue;  // no gradient owed (Parameter::grad)
    for (Eigen::Index i = 0; i < params[k]->value.size(); ++i) {
      const double numeric = CentralDifference(params[k]->value.data() + i, options.step, loss);
      worst.Add(absl::StrCat(params[k]->name, "[", i, "]"), analytic_params[k].data()[i],
                numeric);
      worst.Add(absl::StrCat(params[k]->name, "[", i, "] (no input gradient asked)"),
                first_layer_params[k].data()[i], numeric);
    }
  }
  return worst.Result();
}

absl::Status CheckLossGradient(Loss<double>& loss, const Tensor<double>& prediction,
                               const Tensor<double>& target, const GradientCheckOptions& options) {
  ExecContext ctx(options.seed);
  Tensor<double> p = prediction;
  Tensor<double> grad;
  loss.Compute(p, target, &grad, ctx);
  std::vector<Matrix<double>> analytic_params;
  for (Parameter<double>* param : loss.parameters()) analytic_params.push_back(param->grad);
  auto value = [&] { return loss.Compute(p, target, nullptr, ctx); };
  Worst worst(options.tolerance);
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    worst.Add(absl::StrCat("prediction[", i, "]"), grad.data()[i],
              CentralDifference(p.data() + i, options.step, value));
  }
  std::vector<Parameter<double>*> params = loss.parameters();
  for (size_t k = 0; k < params.size(); ++k) {
    for (Eigen::Index i = 0; i < params[k]->value.size(); ++i) {
      worst.Add(absl::StrCat(params[k]->name, "[", i, "]"), analytic_params[k].data()[i],
                CentralDifference(params[k]->value.data() + i, options.step, value));
    }
  }
  return worst.Result();
}

absl::Status CheckModelGradients(Model<double>& model, const Tensor<double>& input,
                                 const Tensor<double>& target,
                                 const GradientCheckOptions& options) {
  ExecContext ctx(options.seed);
  model.TrainStep(input, target, ctx);
  std::vector<Matrix<double>> analytic;
  for (Parameter<double>* p : model.parameters()) analytic.push_back(p->grad);
  auto loss = [&] {
    ctx.Reseed(options.seed);
    model.Forward(input, ctx);
    return model.ComputeLoss(target, ctx);
  };
  Worst worst(options.tolerance);
  for (size_t k = 0; k < model.parameters().size(); ++k) {
    Parameter<double>* p = model.parameters()[k];
    if (p->frozen) continue;
    for (Eigen::Index i = 0; i < p->value.size(); ++i) {
      worst.Add(absl::StrCat(p->name, "[", i, "]"), analytic[k].data()[i],
                CentralDifference(p->value.data() + i, options.step, loss));
    }
  }
  return worst.Result();
}

}  // namespace attnlab
