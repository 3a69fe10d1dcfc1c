#include "solvers/att_svm.h"

#include "absl/strings/str_cat.h"
#include "attention/base/status_macros.h"

namespace attnlab {
namespace {

// The number of constraints (every token but the selected one, of every sequence), or an error
// `what` names when a sequence's tokens are not d wide or its selection is not one of them.
absl::StatusOr<Eigen::Index> CountConstraints(const std::vector<Eigen::MatrixXd>& tokens,
                                              const std::vector<int>& selected, Eigen::Index d,
                                              const char* what) {
  Eigen::Index rows = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].cols() != d) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": sequence ", i,
                                                     " has tokens of dimension ",
                                                     tokens[i].cols(), ", expected ", d));
    }
    if (selected[i] < 0 || selected[i] >= tokens[i].rows()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": sequence ", i, " selects token ",
                                                     selected[i], " of ", tokens[i].rows()));
    }
    rows += tokens[i].rows() - 1;
  }
  return rows;
}

}  // namespace

absl::StatusOr<QpSolution> SolveAttSvm(const std::vector<Eigen::MatrixXd>& tokens,
                                       const Eigen::MatrixXd& w, const std::vector<int>& selected,
                                       const Eigen::VectorXd& margins) {
  const size_t n = tokens.size();
  if (selected.size() != n || static_cast<size_t>(margins.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("ATT-SVM: ", n, " sequences but ",
                                                   selected.size(), " selections and ",
                                                   margins.size(), " margins"));
  }
  const Eigen::Index d = w.rows();
  if (w.cols() != d) return absl::InvalidArgumentError("ATT-SVM: W must be square");
  ASSIGN_OR_RETURN(const Eigen::Index rows, CountConstraints(tokens, selected, d, "ATT-SVM"));
  Eigen::MatrixXd a(rows, d);
  Eigen::VectorXd b(rows);
  Eigen::Index row = 0;
  for (size_t i = 0; i < n; ++i) {
    for (Eigen::Index t = 0; t < tokens[i].rows(); ++t) {
      if (t == selected[i]) continue;
      a.row(row) = (tokens[i].row(selected[i]) - tokens[i].row(t)) * w;
      b[row] = margins[i];
      ++row;
    }
  }
  absl::StatusOr<QpSolution> solution = SolveMinNormQp(a, b);
  if (absl::IsFailedPrecondition(solution.status())) {
    return absl::FailedPreconditionError(
        "ATT-SVM infeasible: no p scores every selected token above the other tokens of its "
        "sequence by the margin (is a selected token's W-projection equal to another token's?)");
  }
  return solution;
}

absl::StatusOr<QpSolution> SolveWSvm(const std::vector<Eigen::MatrixXd>& tokens,
                                     const Eigen::MatrixXd& queries,
                                     const std::vector<int>& selected) {
  const size_t n = tokens.size();
  if (selected.size() != n || static_cast<size_t>(queries.rows()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("W-SVM: ", n, " sequences but ",
                                                   selected.size(), " selections and ",
                                                   queries.rows(), " queries"));
  }
  const Eigen::Index d = queries.cols();
  ASSIGN_OR_RETURN(const Eigen::Index rows, CountConstraints(tokens, selected, d, "W-SVM"));
  // <W, u z^T>_F = u^T W z: each constraint's row is (x_s - x_t) z^T, row-major.
  Eigen::MatrixXd a(rows, d * d);
  Eigen::Index row = 0;
  for (size_t i = 0; i < n; ++i) {
    for (Eigen::Index t = 0; t < tokens[i].rows(); ++t) {
      if (t == selected[i]) continue;
      const Eigen::VectorXd u = (tokens[i].row(selected[i]) - tokens[i].row(t)).transpose();
      for (Eigen::Index j = 0; j < d; ++j) a.row(row).segment(j * d, d) = u[j] * queries.row(i);
      ++row;
    }
  }
  absl::StatusOr<QpSolution> solution = SolveMinNormQp(a, Eigen::VectorXd::Ones(rows));
  if (absl::IsFailedPrecondition(solution.status())) {
    return absl::FailedPreconditionError(
        "W-SVM infeasible: no W scores every selected token above the other tokens of its "
        "sequence (is a query 0, or a selected token equal to another token?)");
  }
  return solution;
}

absl::StatusOr<QpSolution> SolveHardMarginSvm(const Eigen::MatrixXd& points,
                                              const Eigen::VectorXd& labels) {
  if (points.rows() != labels.size()) {
    return absl::InvalidArgumentError(absl::StrCat("SVM: ", points.rows(), " points but ",
                                                   labels.size(), " labels"));
  }
  const Eigen::MatrixXd a = labels.asDiagonal() * points;
  absl::StatusOr<QpSolution> solution = SolveMinNormQp(a, Eigen::VectorXd::Ones(labels.size()));
  if (absl::IsFailedPrecondition(solution.status())) {
    return absl::FailedPreconditionError(
        "SVM infeasible: the labeled points are not linearly separable through the origin");
  }
  return solution;
}

}  // namespace attnlab
