// The `param_count` metric: the number of trainable parameters.
#include "attention/metric.h"
#include "plugins/metrics/param_count/param_count.pb.h"

namespace attnlab {
namespace {

template <typename T>
class ParamCount : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<ParamCount<T>>> Create(const plugins::ParamCountConfig&) {
    return std::unique_ptr<ParamCount<T>>(new ParamCount<T>());
  }
  absl::Status Setup(const MetricContext<T>&) override { return absl::OkStatus(); }
  absl::StatusOr<double> Evaluate(Model<T>& model, const Batch<T>&) override {
    return static_cast<double>(model.parameter_count());
  }
};

}  // namespace

ATTNLAB_REGISTER_METRIC("param_count", plugins::ParamCountConfig, ParamCount,
                        "the number of trainable parameters", {""});

}  // namespace attnlab
