// Optimizer plugins: an Optimizer (optimizer.h) built from its config message, then given the
// spec's learning rate and schedule. A spec names one as
//   optimizer { plugin: "sign_gd" config { momentum: 0.9 } lr: 0.01 }
// and a plugin folder registers it with ATTNLAB_REGISTER_OPTIMIZER (plugins/sign_gd is the
// template): a class deriving from Optimizer<T> with a static Create(const Config&), Apply, and
// SaveState / RestoreState for whatever state it keeps (checkpoints resume bit for bit).
#ifndef ATTNLAB_SOLVERS_OPTIMIZER_REGISTRY_H_
#define ATTNLAB_SOLVERS_OPTIMIZER_REGISTRY_H_

#include "attention/plugin_registry.h"
#include "attention/registry.h"
#include "solvers/optimizer.h"

namespace attnlab {

template <typename T>
Registry<Optimizer<T>>& OptimizerRegistry() {
  return Registry<Optimizer<T>>::Global("optimizer");
}

}  // namespace attnlab

#define ATTNLAB_REGISTER_OPTIMIZER(name, Config, Plugin, summary, ...)                             \
  static const bool ATTNLAB_CONCAT(attnlab_registered_optimizer_, __LINE__) =                      \
      ::attnlab::RegisterTyped<Config, Plugin, ::attnlab::Optimizer>(                              \
          __FILE__, ::attnlab::OptimizerRegistry<float>(), ::attnlab::OptimizerRegistry<double>(), \
          name, summary, __VA_ARGS__)

#endif  // ATTNLAB_SOLVERS_OPTIMIZER_REGISTRY_H_
