// The `ratio` metric: one metric of the trial over another, at the steps both are logged.
#include "absl/strings/str_join.h"
#include "attention/metric_lookups.h"
#include "plugins/metrics/ratio/ratio.pb.h"

namespace attnlab {
namespace {

template <typename T>
class Ratio : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<Ratio<T>>> Create(const plugins::RatioConfig& config) {
    return std::unique_ptr<Ratio<T>>(new Ratio<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    for (const auto& [field, name] : {std::pair{"numerator", config_.numerator()},
                                      std::pair{"denominator", config_.denominator()}}) {
      if (std::find(context.metrics.begin(), context.metrics.end(), name) ==
          context.metrics.end()) {
        return FieldError(field, absl::StrCat("no other metric '", name, "'; metrics: ",
                                              absl::StrJoin(context.metrics, ", ")));
      }
    }
    return absl::OkStatus();
  }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    return absl::InternalError("a ratio is computed from other metrics (Combine)");
  }
  std::vector<std::string> inputs() const override {
    return {config_.numerator(), config_.denominator()};
  }
  double Combine(const std::vector<double>& values) const override { return values[0] / values[1]; }

 private:
  explicit Ratio(plugins::RatioConfig config) : config_(std::move(config)) {}
  plugins::RatioConfig config_;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("ratio", plugins::RatioConfig, Ratio,
                        "one metric of the trial over another, where both are logged",
                        {"numerator: 'loss' denominator: 'loss'"});

}  // namespace attnlab
