#include <cmath>

#include "attention/gradient_check.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "plugins/layers/vision/classifier.h"
#include "plugins/layers/vision/patch_embedding.h"

namespace attnlab {
namespace {

template <typename Config>
Config Parse(const std::string& text) {
  Config config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

// One 4 x 4 image with 2 channels (pixel (r, c) channel k = 10 r + c + 100 k), patch 2, dim 2,
// w = [1 0; 1 0; ...] summing channel 0 into dim 0 and channel 1 into dim 1.
TEST(PatchEmbeddingTest, ForwardByHand) {
  std::string w = "w { ";
  for (int i = 0; i < 8; ++i) w += i % 2 == 0 ? "value: 1 value: 0 " : "value: 0 value: 1 ";
  w += "}";
  auto layer = PatchEmbedding<double>::Create(
      Parse<PatchEmbedding<double>::Config>("channels: 2 patch: 2 dim: 2 class_token: true " + w));
  ASSERT_TRUE(layer.ok()) << layer.status();
  Tensor<double> image({1, 4, 8}), out;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c)
      for (int k = 0; k < 2; ++k) image.sample(0)(r, 2 * c + k) = 10 * r + c + 100 * k;
  ExecContext ctx(1);
  auto shape = (*layer)->Setup(image.shape(), ctx);
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(*shape, (Shape{1, 5, 2}));
  (*layer)->Forward(image, &out, ctx);
  const Matrix<double> class_token = (*layer)->parameters()[2]->value;
  EXPECT_EQ(out.sample(0).row(0), class_token.row(0));
  // Patches in reading order; top-left holds (0,0),(0,1),(1,0),(1,1): channel 0 sum 22.
  const double top_left = 0 + 1 + 10 + 11;
  const double sums[4] = {top_left, top_left + 8, top_left + 80, top_left + 88};
  for (int p = 0; p < 4; ++p) {
    EXPECT_DOUBLE_EQ(out.sample(0)(1 + p, 0), sums[p]) << p;
    EXPECT_DOUBLE_EQ(out.sample(0)(1 + p, 1), sums[p] + 400) << p;
  }
}

TEST(PatchEmbeddingTest, GradientsMatchFiniteDifferences) {
  for (const std::string text : {"channels: 3 patch: 2 dim: 3 class_token: true positions: true",
                                 "channels: 1 patch: 3 dim: 2"}) {
    auto layer = PatchEmbedding<double>::Create(Parse<PatchEmbedding<double>::Config>(text));
    ASSERT_TRUE(layer.ok());
    const int c = text[10] - '0';
    Tensor<double> images({2, 6, 6 * c});
    images.flat().setRandom();
    ExecContext ctx(2);
    ASSERT_TRUE((*layer)->Setup(images.shape(), ctx).ok());
    const absl::Status status = CheckLayerGradients(**layer, images);
    EXPECT_TRUE(status.ok()) << text << ": " << status;
  }
}

TEST(PatchEmbeddingTest, ShapesThatDoNotSplitNameTheField) {
  auto layer = PatchEmbedding<double>::Create(
      Parse<PatchEmbedding<double>::Config>("channels: 3 patch: 4 dim: 2"));
  ExecContext ctx(1);
  absl::StatusOr<Shape> bad = (*layer)->Setup({1, 6, 18}, ctx);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("patch"), std::string::npos) << bad.status();
  bad = (*layer)->Setup({1, 8, 10}, ctx);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("channels"), std::string::npos) << bad.status();
  EXPECT_FALSE(
      PatchEmbedding<double>::Create(Parse<PatchEmbedding<double>::Config>("channels: 3 dim: 2"))
          .ok());
}

// Class scores of tokens [[1, 2], [3, 4]] with w = [1 0 1; 0 1 1], b = 0.
TEST(ClassifierTest, ForwardByHand) {
  for (const bool mean : {false, true}) {
    auto layer = Classifier<double>::Create(Parse<Classifier<double>::Config>(
        std::string("classes: 3 w { value: [1, 0, 1, 0, 1, 1] }") +
        (mean ? " pooling: MEAN" : "")));
    ASSERT_TRUE(layer.ok());
    Tensor<double> tokens({1, 2, 2}), out;
    tokens.flat() << 1, 2, 3, 4;
    ExecContext ctx(1);
    ASSERT_TRUE((*layer)->Setup(tokens.shape(), ctx).ok());
    (*layer)->Forward(tokens, &out, ctx);
    ASSERT_EQ(out.shape(), (Shape{1, 1, 3}));
    const double x = mean ? 2 : 1, y = mean ? 3 : 2;
    EXPECT_DOUBLE_EQ(out.data()[0], x);
    EXPECT_DOUBLE_EQ(out.data()[1], y);
    EXPECT_DOUBLE_EQ(out.data()[2], x + y);
  }
}

TEST(ClassifierTest, GradientsMatchFiniteDifferences) {
  for (const std::string text : {"classes: 4", "classes: 2 pooling: MEAN"}) {
    auto layer = Classifier<double>::Create(Parse<Classifier<double>::Config>(text));
    Tensor<double> tokens({3, 5, 4});
    tokens.flat().setRandom();
    ExecContext ctx(2);
    ASSERT_TRUE((*layer)->Setup(tokens.shape(), ctx).ok());
    const absl::Status status = CheckLayerGradients(**layer, tokens);
    EXPECT_TRUE(status.ok()) << text << ": " << status;
  }
}

}  // namespace
}  // namespace attnlab
