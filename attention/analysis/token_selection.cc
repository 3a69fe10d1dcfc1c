#include "attention/analysis/token_selection.h"

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"

namespace attnlab {

absl::StatusOr<TokenSelection> TokenSelection::Create(
    const google::protobuf::RepeatedField<int32_t>& given, int sequences, int seq_len,
    const std::string& field) {
  if (given.size() != 0 && given.size() != 1 && given.size() != sequences) {
    return FieldError(field, absl::StrCat("give one token for all sequences or one per sequence (",
                                          sequences, "), not ", given.size()));
  }
  for (int t : given) {
    if (t < 0 || t >= seq_len) {
      return FieldError(field, absl::StrCat("token ", t, " is not in 0..", seq_len - 1));
    }
  }
  TokenSelection selection;
  selection.given_.assign(given.begin(), given.end());
  return selection;
}

std::vector<int> TokenSelection::Select(const std::vector<Eigen::MatrixXd>& tokens,
                                        const Eigen::VectorXd& labels,
                                        const Eigen::VectorXd& v) const {
  std::vector<int> selected(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (!given_.empty()) {
      selected[i] = given_[given_.size() == 1 ? 0 : i];
    } else {
      Eigen::Index best;
      (labels[i] * (tokens[i] * v)).maxCoeff(&best);
      selected[i] = static_cast<int>(best);
    }
  }
  return selected;
}

std::vector<int> AttendedTokens(const std::vector<Eigen::MatrixXd>& tokens,
                                const Eigen::MatrixXd& w, const Eigen::MatrixXd& queries) {
  std::vector<int> selected(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    Eigen::Index best;
    (tokens[i] * (w * queries.row(i).transpose())).maxCoeff(&best);
    selected[i] = static_cast<int>(best);
  }
  return selected;
}

}  // namespace attnlab
