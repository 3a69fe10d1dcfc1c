// Which token of each sequence paper 1's analyses take as selected: given ones, the highest
// score y_i v^T x_it under the value head, or the one the attention weights most.
#ifndef ATTNLAB_ATTENTION_ANALYSIS_TOKEN_SELECTION_H_
#define ATTNLAB_ATTENTION_ANALYSIS_TOKEN_SELECTION_H_

#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/status/statusor.h"
#include "google/protobuf/repeated_field.h"

namespace attnlab {

class TokenSelection {
 public:
  // `given`: none (by score), one token for every sequence, or one per sequence; a bad count or
  // token is an error at `field`.
  static absl::StatusOr<TokenSelection> Create(
      const google::protobuf::RepeatedField<int32_t>& given, int sequences, int seq_len,
      const std::string& field);

  bool by_score() const { return given_.empty(); }

  // Sequence i's selected token: given, or argmax_t y_i v^T x_it (tokens[i] is T x d).
  std::vector<int> Select(const std::vector<Eigen::MatrixXd>& tokens, const Eigen::VectorXd& labels,
                          const Eigen::VectorXd& v) const;

 private:
  std::vector<int> given_;
};

// The token of each sequence with the largest score x_it^T W z_i, z_i = row i of `queries`: the
// one its attention weights most (weights grow with scores).
std::vector<int> AttendedTokens(const std::vector<Eigen::MatrixXd>& tokens,
                                const Eigen::MatrixXd& w, const Eigen::MatrixXd& queries);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_ANALYSIS_TOKEN_SELECTION_H_
