// The max-margin directions paper 1 predicts GD converges to (its Theorems 2-5), for the
// selected tokens of a training set: what the max-margin correlations compare p and v with.
#ifndef ATTNLAB_SOLVERS_MAX_MARGIN_REFERENCE_H_
#define ATTNLAB_SOLVERS_MAX_MARGIN_REFERENCE_H_

#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "solvers/min_norm_qp.h"

namespace attnlab {

enum class MaxMarginKind {
  kAttSvm,         // p_mm: the ATT-SVM, margin 1 for every sequence (W and v fixed)
  kRelaxedAttSvm,  // joint (v, p): v_mm, then the ATT-SVM with margin 1 only where the
                   // selected token is a support vector of v_mm, 0 elsewhere
  kValueSvm,       // v_mm: the hard-margin SVM of the selected tokens
};

struct MaxMarginReference {
  QpSolution v_mm;          // kRelaxedAttSvm and kValueSvm
  QpSolution p;             // kAttSvm and kRelaxedAttSvm: the ATT-SVM or its relaxation
  Eigen::VectorXd margins;  // per sequence, the ATT-SVM's margin (1 or 0)
};

// tokens[i]: sequence i's tokens as rows; labels: +-1; w: the key-first form (token x scores
// x^T W p); selected[i]: sequence i's selected token.
absl::StatusOr<MaxMarginReference> SolveMaxMarginReference(
    MaxMarginKind kind, const std::vector<Eigen::MatrixXd>& tokens, const Eigen::VectorXd& labels,
    const Eigen::MatrixXd& w, const std::vector<int>& selected);

}  // namespace attnlab

#endif  // ATTNLAB_SOLVERS_MAX_MARGIN_REFERENCE_H_
