#include "plugins/losses/lm_head/lm_cross_entropy.h"

#include <cmath>
#include <vector>

#include "attention/base/field_error.h"
#include "attention/gradient_check.h"
#include "gtest/gtest.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

template <typename T = double>
std::unique_ptr<LmCrossEntropy<T>> Make(const plugins::LmHeadConfig& config, const Shape& pred) {
  auto loss = std::move(*LmCrossEntropy<T>::Create(config));
  ExecContext ctx(1);
  EXPECT_TRUE(loss->Setup(pred, {pred.batch, pred.rows, 1}, ctx).ok());
  return loss;
}

TEST(LmCrossEntropyTest, ByHand) {
  plugins::LmHeadConfig config;
  config.set_vocab_size(3);
  auto loss = Make(config, {1, 2, 2});
  loss->parameters()[0]->value << 1, 0, 0, 0, 1, 0;  // logits = (h1, h2, 0)
  Tensor<double> h({1, 2, 2}), y({1, 2, 1});
  h.flat() << 2, 0, 0, 1;
  y.flat() << 0, 2;
  ExecContext ctx(1);
  const double l0 = std::log(std::exp(2.0) + 2) - 2;      // token 0: logits (2, 0, 0), label 0
  const double l1 = std::log(1 + std::exp(1.0) + 1) - 0;  // token 1: logits (0, 1, 0), label 2
  EXPECT_NEAR(loss->Compute(h, y, nullptr, ctx), (l0 + l1) / 2, 1e-14);
}

// The gradient check with a bias over `vocab` words, labels `ids` (shape's tokens), in each
// chunk size.
void CheckGradientInChunks(int vocab, const Shape& shape, const std::vector<double>& ids,
                           const std::vector<int>& chunks) {
  for (int chunk : chunks) {
    plugins::LmHeadConfig config;
    config.set_vocab_size(vocab);
    config.set_bias(true);
    config.set_chunk_tokens(chunk);
    auto loss = Make(config, shape);
    loss->parameters()[1]->value.setRandom();
    Tensor<double> h(shape), y({shape.batch, shape.rows, 1});
    h.flat().setRandom();
    for (size_t i = 0; i < ids.size(); ++i) y.data()[i] = ids[i];
    absl::Status status = CheckLossGradient(*loss, h, y);
    EXPECT_TRUE(status.ok()) << "vocab " << vocab << ", chunk " << chunk << ": " << status;
  }
}

TEST(LmCrossEntropyTest, GradientCheckAcrossChunks) {
  CheckGradientInChunks(7, {2, 3, 4}, {0, 6, 3, 3, 1, 5}, {0, 1, 3});
}

// 1157 words are 10 blocks of the vocabulary (the last of 5 words) in 5 groups; the labels fall
// in the first, a middle and the last block.
constexpr int kManyWords = 1157;

TEST(LmCrossEntropyTest, GradientCheckAcrossVocabularyBlocks) {
  CheckGradientInChunks(kManyWords, {2, 2, 3}, {0, 130, 1156, 640}, {0, 3});
}

// Float through the GEMM libraries against the whole softmax written out in double.
TEST(LmCrossEntropyTest, FloatMatchesTheWholeSoftmaxInDouble) {
  plugins::LmHeadConfig config;
  config.set_vocab_size(kManyWords);
  config.set_bias(true);
  config.set_chunk_tokens(16);
  const int tokens = 40, dim = 24;
  auto loss = Make<float>(config, {2, tokens / 2, dim});
  Parameter<float>& w = *loss->parameters()[0];
  Parameter<float>& b = *loss->parameters()[1];
  b.value.setRandom();
  Tensor<float> h({2, tokens / 2, dim}), y({2, tokens / 2, 1}), grad;
  h.flat().setRandom();
  for (int i = 0; i < tokens; ++i) y.data()[i] = float((i * 97) % kManyWords);
  ExecContext ctx(1);
  const float value = loss->Compute(h, y, &grad, ctx);

  const Eigen::MatrixXd hd = h.flat().cast<double>(), wd = w.value.cast<double>();
  Eigen::MatrixXd probs = hd * wd;
  probs.rowwise() += b.value.cast<double>().row(0);
  double expected = 0;
  for (int i = 0; i < tokens; ++i) {
    const double max = probs.row(i).maxCoeff();
    const double sum = (probs.row(i).array() - max).exp().sum();
    const int label = int(y.data()[i]);
    expected += max + std::log(sum) - probs(i, label);
    probs.row(i) = (probs.row(i).array() - max).exp() / sum;
    probs(i, label) -= 1;
  }
  probs /= tokens;  // dL/dlogits
  EXPECT_NEAR(value, expected / tokens, 1e-5 * std::abs(expected / tokens));
  auto relative = [](const Eigen::MatrixXd& got, const Eigen::MatrixXd& want) {
    return (got - want).cwiseAbs().maxCoeff() / want.cwiseAbs().maxCoeff();
  };
  EXPECT_LT(relative(grad.flat().cast<double>(), probs * wd.transpose()), 1e-5);
  EXPECT_LT(relative(w.grad.cast<double>(), hd.transpose() * probs), 1e-5);
  EXPECT_LT(relative(b.grad.cast<double>(), probs.colwise().sum()), 1e-5);
}

// The vocabulary blocks run on the threads: 2 threads give the same bits as 1.
TEST(LmCrossEntropyTest, TwoThreadsGiveTheSameBits) {
  plugins::LmHeadConfig config;
  config.set_vocab_size(kManyWords);
  config.set_bias(true);
  Tensor<float> h({3, 40, 16}), y({3, 40, 1});
  h.flat().setRandom();
  for (int i = 0; i < 120; ++i) y.data()[i] = float((i * 31) % kManyWords);
  std::vector<Matrix<float>> results[2];
  for (int threads : {1, 2}) {
    auto loss = Make<float>(config, h.shape());
    loss->parameters()[1]->value.setConstant(0.25f);
    ExecContext ctx(1, threads);
    tbb::task_arena arena(threads);
    arena.execute([&] {
      Tensor<float> grad;
      const float value = loss->Compute(h, y, &grad, ctx);
      results[threads - 1].push_back(Matrix<float>::Constant(1, 1, value));
      results[threads - 1].push_back(grad.flat());
      for (Parameter<float>* p : loss->parameters()) results[threads - 1].push_back(p->grad);
    });
  }
  for (size_t i = 0; i < results[0].size(); ++i) EXPECT_EQ(results[0][i], results[1][i]) << i;
}

TEST(LmCrossEntropyTest, StableForHugeLogitsInFloat) {
  plugins::LmHeadConfig config;
  config.set_vocab_size(4);
  auto loss = Make<float>(config, {1, 1, 1});
  loss->parameters()[0]->value << 1000, -1000, 0, 500;
  Tensor<float> h({1, 1, 1}), y({1, 1, 1}), grad;
  h.flat() << 1;
  y.flat() << 3;
  ExecContext ctx(1);
  EXPECT_NEAR(loss->Compute(h, y, &grad, ctx), 500.0f, 1e-3);  // log-sum-exp, not exp overflow
  EXPECT_TRUE(grad.flat().allFinite());
}

TEST(LmCrossEntropyTest, OutOfRangeIdsAreCaught) {
  plugins::LmHeadConfig config;
  config.set_vocab_size(4);
  auto loss = Make(config, {1, 2, 3});
  Tensor<double> y({1, 2, 1});
  y.flat() << 1, 4;
  EXPECT_EQ(ErrorField(loss->CheckTargetValues(y)), "vocab_size");
  EXPECT_FALSE(loss->Check({1, 2, 3}, {1, 3, 1}).ok());
}

}  // namespace
}  // namespace attnlab
