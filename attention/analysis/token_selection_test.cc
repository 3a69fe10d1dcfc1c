#include "attention/analysis/token_selection.h"

#include "gtest/gtest.h"

namespace attnlab {
namespace {

google::protobuf::RepeatedField<int32_t> Tokens(std::initializer_list<int32_t> tokens) {
  return google::protobuf::RepeatedField<int32_t>(tokens.begin(), tokens.end());
}

// Two sequences of three 2-d tokens.
std::vector<Eigen::MatrixXd> Sequences() {
  Eigen::MatrixXd a(3, 2), b(3, 2);
  a << 1, 0, 0, 2, -1, 1;
  b << 0, 1, 3, 0, 1, 1;
  return {a, b};
}

TEST(TokenSelectionTest, GivenTokensForAllOrEachSequence) {
  const Eigen::VectorXd labels = Eigen::VectorXd::Ones(2), v = Eigen::VectorXd::Zero(2);
  auto one = TokenSelection::Create(Tokens({2}), 2, 3, "f");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_FALSE(one->by_score());
  EXPECT_EQ(one->Select(Sequences(), labels, v), (std::vector<int>{2, 2}));
  auto each = TokenSelection::Create(Tokens({1, 0}), 2, 3, "f");
  ASSERT_TRUE(each.ok()) << each.status();
  EXPECT_EQ(each->Select(Sequences(), labels, v), (std::vector<int>{1, 0}));
}

TEST(TokenSelectionTest, ByScoreTakesTheLargestLabelledValue) {
  // v = (1, 1): scores (1, 2, 0) and (1, 3, 2); label -1 flips the second: argmax of (-1, -3, -2).
  auto selection = TokenSelection::Create(Tokens({}), 2, 3, "f");
  ASSERT_TRUE(selection.ok()) << selection.status();
  EXPECT_TRUE(selection->by_score());
  Eigen::VectorXd labels(2), v(2);
  labels << 1, -1;
  v << 1, 1;
  EXPECT_EQ(selection->Select(Sequences(), labels, v), (std::vector<int>{1, 0}));
}

TEST(TokenSelectionTest, BadCountsAndTokensNameTheField) {
  auto count = TokenSelection::Create(Tokens({0, 1, 2}), 2, 3, "max_margin.selected_token");
  ASSERT_FALSE(count.ok());
  EXPECT_NE(count.status().message().find("max_margin.selected_token"), std::string::npos);
  EXPECT_NE(count.status().message().find("one per sequence (2), not 3"), std::string::npos);
  auto token = TokenSelection::Create(Tokens({3}), 2, 3, "f");
  ASSERT_FALSE(token.ok());
  EXPECT_NE(token.status().message().find("token 3 is not in 0..2"), std::string::npos);
}

TEST(TokenSelectionTest, AttendedTokensHaveTheLargestScore) {
  // W = diag(1, -1): x^T W z with z_1 = (1, 0) scores (1, 0, -1); z_2 = (0, 1): (-1, 0, -1).
  Eigen::MatrixXd w(2, 2), queries(2, 2);
  w << 1, 0, 0, -1;
  queries << 1, 0, 0, 1;
  EXPECT_EQ(AttendedTokens(Sequences(), w, queries), (std::vector<int>{0, 1}));
}

}  // namespace
}  // namespace attnlab
