// The `cosine_to_identity` metric: cos(W, I) of a square parameter.
#include <cmath>

#include "attention/metric_lookups.h"
#include "plugins/metrics/cosine_to_identity/cosine_to_identity.pb.h"

namespace attnlab {
namespace {

template <typename T>
class CosineToIdentity : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<CosineToIdentity<T>>> Create(
      const plugins::CosineToIdentityConfig& config) {
    return std::unique_ptr<CosineToIdentity<T>>(new CosineToIdentity<T>(config));
  }
  absl::Status Setup(const MetricContext<T>& context) override {
    ASSIGN_OR_RETURN(param_, FindModelParameter(context.model, config_.param()));
    if (param_->value.rows() != param_->value.cols()) {
      return FieldError("param", absl::StrCat("'", param_->name, "' is not square"));
    }
    return absl::OkStatus();
  }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    const Matrix<T>& w = param_->value;
    const double norm = static_cast<double>(w.norm());
    return norm > 0 ? static_cast<double>(w.trace()) / (norm * std::sqrt(double(w.rows()))) : 0.0;
  }

 private:
  explicit CosineToIdentity(plugins::CosineToIdentityConfig config) : config_(std::move(config)) {}
  plugins::CosineToIdentityConfig config_;
  const Parameter<T>* param_ = nullptr;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("cosine_to_identity", plugins::CosineToIdentityConfig, CosineToIdentity,
                        "cos(W, I) = tr W / (||W||_F sqrt(n)) of a square parameter (paper 3)",
                        {"param: 'attn/q'"});

}  // namespace attnlab
