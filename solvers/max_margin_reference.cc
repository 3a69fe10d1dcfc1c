#include "solvers/max_margin_reference.h"

#include <cmath>

#include "attention/base/status_macros.h"
#include "solvers/att_svm.h"

namespace attnlab {

absl::StatusOr<MaxMarginReference> SolveMaxMarginReference(
    MaxMarginKind kind, const std::vector<Eigen::MatrixXd>& tokens, const Eigen::VectorXd& labels,
    const Eigen::MatrixXd& w, const std::vector<int>& selected) {
  const int n = static_cast<int>(tokens.size());
  MaxMarginReference reference;
  reference.margins = Eigen::VectorXd::Ones(n);
  if (kind != MaxMarginKind::kAttSvm) {
    Eigen::MatrixXd points(n, w.rows());
    for (int i = 0; i < n; ++i) points.row(i) = tokens[i].row(selected[i]);
    ASSIGN_OR_RETURN(reference.v_mm, SolveHardMarginSvm(points, labels));
    if (kind == MaxMarginKind::kValueSvm) return reference;
    const Eigen::VectorXd margin_of_v = labels.cwiseProduct(points * reference.v_mm.x);
    for (int i = 0; i < n; ++i) {
      reference.margins[i] = std::abs(margin_of_v[i] - 1) <= 1e-7 ? 1.0 : 0.0;
    }
  }
  ASSIGN_OR_RETURN(reference.p, SolveAttSvm(tokens, w, selected, reference.margins));
  return reference;
}

}  // namespace attnlab
