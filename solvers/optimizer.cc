#include "solvers/optimizer.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "attention/base/field_error.h"
#include "attention/base/status_macros.h"
#include "solvers/optimizer_registry.h"

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
  return schedule_ == nullptr ? lr_ : lr_ * schedule_->Factor(step);
}

template <typename T>
absl::StatusOr<std::unique_ptr<Optimizer<T>>> CreateOptimizer(const OptimizerSpec& spec) {
  if (spec.plugin().empty()) {
    return FieldError("plugin",
                      absl::StrCat("missing: name an optimizer plugin (",
                                   absl::StrJoin(OptimizerRegistry<T>().Names(), ", "), ")"));
  }
  if (!(spec.lr() > 0) || !std::isfinite(spec.lr())) {
    return FieldError("lr", "missing or invalid: the learning rate must be > 0");
  }
  absl::StatusOr<std::unique_ptr<Schedule>> schedule = CreateSchedule(spec.schedule());
  if (!schedule.ok()) return PrefixErrorField("schedule", schedule.status());
  ASSIGN_OR_RETURN(std::unique_ptr<Optimizer<T>> optimizer,
                   OptimizerRegistry<T>().CreateAt(spec.plugin(), spec.config()));
  optimizer->UseRate(spec.lr(), std::move(*schedule));
  return optimizer;
}

template class Optimizer<float>;
template class Optimizer<double>;
template absl::StatusOr<std::unique_ptr<Optimizer<float>>> CreateOptimizer(const OptimizerSpec&);
template absl::StatusOr<std::unique_ptr<Optimizer<double>>> CreateOptimizer(const OptimizerSpec&);

}  // namespace attnlab
