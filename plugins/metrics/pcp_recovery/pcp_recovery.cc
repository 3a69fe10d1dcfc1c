// The `pcp_recovery` metric (pcp_recovery.proto says what it measures).
#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"
#include "attention/metric.h"
#include "plugins/metrics/pcp_recovery/pcp_recovery.pb.h"
#include "solvers/pcp.h"

namespace attnlab {
namespace {

template <typename T>
class PcpRecovery : public Metric<T> {
 public:
  static absl::StatusOr<std::unique_ptr<PcpRecovery<T>>> Create(
      const plugins::PcpRecoveryConfig& config) {
    if (config.rows() < 1)
      return FieldError("rows", absl::StrCat("must be >= 1, got ", config.rows()));
    if (config.cols() < 1)
      return FieldError("cols", absl::StrCat("must be >= 1, got ", config.cols()));
    if (config.rank() < 1 || config.rank() > std::min(config.rows(), config.cols())) {
      return FieldError("rank",
                        absl::StrCat("must be in [1, min(rows, cols)], got ", config.rank()));
    }
    if (!(config.sparse_fraction() >= 0 && config.sparse_fraction() < 1)) {
      return FieldError("sparse_fraction",
                        absl::StrCat("must be in [0, 1), got ", config.sparse_fraction()));
    }
    return std::unique_ptr<PcpRecovery<T>>(new PcpRecovery<T>(config));
  }
  absl::Status Setup(const MetricContext<T>&) override { return absl::OkStatus(); }
  absl::StatusOr<double> Evaluate(Model<T>&, const Batch<T>&) override {
    std::mt19937_64 rng(config_.seed());
    std::normal_distribution<double> gaussian(0, 1 / std::sqrt(double(config_.rows())));
    std::uniform_real_distribution<double> uniform(0, 1);
    const auto draw = [&](int rows, int cols) {
      Eigen::MatrixXd m(rows, cols);
      for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = gaussian(rng);
      return m;
    };
    const Eigen::MatrixXd low_rank =
        draw(config_.rows(), config_.rank()) * draw(config_.cols(), config_.rank()).transpose();
    Eigen::MatrixXd sparse = Eigen::MatrixXd::Zero(config_.rows(), config_.cols());
    for (Eigen::Index i = 0; i < sparse.size(); ++i) {
      if (uniform(rng) < config_.sparse_fraction()) sparse.data()[i] = uniform(rng) < 0.5 ? -1 : 1;
    }
    ASSIGN_OR_RETURN(const PcpResult solved, SolvePcp(low_rank + sparse));
    return (solved.low_rank - low_rank).norm() / low_rank.norm();
  }

 private:
  explicit PcpRecovery(plugins::PcpRecoveryConfig config) : config_(std::move(config)) {}
  plugins::PcpRecoveryConfig config_;
};

}  // namespace

ATTNLAB_REGISTER_METRIC("pcp_recovery", plugins::PcpRecoveryConfig, PcpRecovery,
                        "relative error of principal component pursuit (paper 4's reference "
                        "solver) on a planted low-rank plus sparse matrix (TARGETS 4c)",
                        {"rows: 40 cols: 40 rank: 2 sparse_fraction: 0.05 seed: 1"});

}  // namespace attnlab
