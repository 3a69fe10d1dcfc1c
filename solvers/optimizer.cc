#include "solvers/optimizer.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "solvers/adam.h"
#include "solvers/normalized_gd.h"
#include "solvers/optimizer_registry.h"
#include "solvers/schedule.h"
#include "solvers/sgd.h"

namespace attnlab {

template <typename T>
void Optimizer<T>::Step(const std::vector<Parameter<T>*>& params, int64_t step,
                        ExecContext& ctx) {
  Apply(params, static_cast<T>(LearningRate(step)), ctx);
}

template <typename T>
void Optimizer<T>::SaveMatrices(const std::vector<Matrix<T>>& state, StateWriter* out) {
  out->Int(static_cast<int64_t>(state.size()));
  for (const Matrix<T>& m : state) out->Write(m);
}

template <typename T>
absl::Status Optimizer<T>::RestoreMatrices(const std::vector<Parameter<T>*>& params,
                                           std::vector<Matrix<T>>* state, StateReader* in) {
  ASSIGN_OR_RETURN(const int64_t count, in->Int());
  state->clear();
  if (count == 0) return absl::OkStatus();  // saved before the first step
  if (count != static_cast<int64_t>(params.size())) {
    return in->Error(absl::StrCat("optimizer state for ", count, " parameters, the model has ",
                                  params.size()));
  }
  for (const Parameter<T>* p : params) {
    state->push_back(Matrix<T>::Zero(p->value.rows(), p->value.cols()));
    RETURN_IF_ERROR(in->Read(absl::StrCat("optimizer state of ", p->name), &state->back()));
  }
  return absl::OkStatus();
}

template <typename T>
double Optimizer<T>::LearningRate(int64_t step) const {
  return spec_.lr() * ScheduleFactor(spec_.schedule(), step);
}

template <typename T>
absl::StatusOr<std::unique_ptr<Optimizer<T>>> CreateOptimizer(const OptimizerSpec& spec) {
  if (!(spec.lr() > 0) || !std::isfinite(spec.lr())) {
    return FieldError("lr", "missing or invalid: the learning rate must be > 0");
  }
  if (absl::Status status = ValidateSchedule(spec.schedule()); !status.ok()) {
    return PrefixErrorField("schedule", status);
  }
  if (!spec.plugin().empty()) {
    if (spec.method_case() != OptimizerSpec::METHOD_NOT_SET) {
      return FieldError("plugin", "give an optimizer plugin or one of the built-in methods, not both");
    }
    ASSIGN_OR_RETURN(std::unique_ptr<Optimizer<T>> optimizer,
                     OptimizerRegistry<T>().CreateAt(spec.plugin(), spec.config()));
    optimizer->UseRate(spec);
    return optimizer;
  }
  switch (spec.method_case()) {
    case OptimizerSpec::kGd:
      return std::unique_ptr<Optimizer<T>>(new SgdOptimizer<T>(spec, Sgd()));
    case OptimizerSpec::kNormalizedGd:
      if (spec.normalized_gd().eps() < 0) return FieldError("normalized_gd.eps", "must be >= 0");
      return std::unique_ptr<Optimizer<T>>(new NormalizedGdOptimizer<T>(spec, spec.normalized_gd()));
    case OptimizerSpec::kSgd:
      if (spec.sgd().momentum() < 0 || spec.sgd().momentum() >= 1) {
        return FieldError("sgd.momentum", "must be in [0, 1)");
      }
      if (spec.sgd().nesterov() && spec.sgd().momentum() == 0) {
        return FieldError("sgd.nesterov", "needs momentum > 0");
      }
      return std::unique_ptr<Optimizer<T>>(new SgdOptimizer<T>(spec, spec.sgd()));
    case OptimizerSpec::kAdam:
    case OptimizerSpec::kAdamw: {
      const bool decoupled = spec.method_case() == OptimizerSpec::kAdamw;
      const Adam& adam = decoupled ? spec.adamw() : spec.adam();
      const char* field = decoupled ? "adamw" : "adam";
      for (auto [name, has, value] : {std::tuple{"beta1", adam.has_beta1(), adam.beta1()},
                                      std::tuple{"beta2", adam.has_beta2(), adam.beta2()}}) {
        if (has && (value < 0 || value >= 1)) {
          return FieldError(std::string(field) + "." + name, "must be in [0, 1)");
        }
      }
      if (adam.has_eps() && !(adam.eps() > 0)) {
        return FieldError(std::string(field) + ".eps", "must be > 0");
      }
      return std::unique_ptr<Optimizer<T>>(new AdamOptimizer<T>(spec, adam, decoupled));
    }
    case OptimizerSpec::METHOD_NOT_SET:
      break;
  }
  return FieldError("method", "missing required field: one of gd, normalized_gd, sgd, adam, adamw, "
                              "or an optimizer plugin (plugin)");
}

template class Optimizer<float>;
template class Optimizer<double>;
template absl::StatusOr<std::unique_ptr<Optimizer<float>>> CreateOptimizer(const OptimizerSpec&);
template absl::StatusOr<std::unique_ptr<Optimizer<double>>> CreateOptimizer(const OptimizerSpec&);

}  // namespace attnlab
