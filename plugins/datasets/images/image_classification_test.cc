#include "plugins/datasets/images/image_classification.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "attention/base/field_error.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

constexpr char kFashion[] = "datasets/testdata/fashion_mnist_tiny";

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string BigEndian(uint32_t x) {
  return {char(x >> 24), char(x >> 16), char(x >> 8), char(x)};
}

plugins::ImagesConfig ParseImages(const std::string& text) {
  plugins::ImagesConfig spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  return spec;
}

TEST(ImageClassificationTest, FashionFixtureIsNormalizedPerChannel) {
  auto data = ImageClassification<double>::Create(ParseImages(R"pb(
    format: IDX
    train { images: "train-images-idx3-ubyte.gz" labels: "train-labels-idx1-ubyte.gz" }
    validation { name: "test" images: "t10k-images-idx3-ubyte.gz"
                 labels: "t10k-labels-idx1-ubyte.gz" max_images: 200 })pb"), kFashion);
  ASSERT_TRUE(data.ok()) << data.status();
  const Batch<double>& train = *(*data)->train();
  EXPECT_EQ(train.inputs.shape(), (Shape{1000, 28, 28}));
  EXPECT_EQ(train.targets.shape(), (Shape{1000, 1, 1}));
  EXPECT_NEAR(train.inputs.flat().mean(), 0, 1e-12);
  const double variance = train.inputs.flat().array().square().mean();
  EXPECT_NEAR(variance, 1, 1e-9);
  EXPECT_EQ(train.targets.data()[0], 9);  // Fashion-MNIST's first training label: ankle boot
  EXPECT_EQ((*data)->validation()[0].batch.inputs.batch(), 200);
  EXPECT_NEAR((*data)->mean()[0], 0.286, 0.01);  // the full set's mean is 0.2860
}

TEST(ImageClassificationTest, CropPadsWithBlackAndFlipMirrors) {
  // One 2 x 3 image with pixels 0, 10, ..., 50.
  std::string bytes = BigEndian(0x803) + BigEndian(1) + BigEndian(2) + BigEndian(3);
  for (int v = 0; v < 6; ++v) bytes += char(10 * v);
  WriteFile(TempPath("one.idx"), bytes);
  WriteFile(TempPath("one_label.idx"), BigEndian(0x801) + BigEndian(1) + std::string(1, '\0'));
  const std::string files = "train { images: \"" + TempPath("one.idx") + "\" labels: \"" +
                            TempPath("one_label.idx") + "\" } mean: 0 std: 1 ";
  auto flipped =
      ImageClassification<double>::Create(ParseImages("format: IDX flip: true " + files), "");
  ASSERT_TRUE(flipped.ok()) << flipped.status();
  ExecContext ctx(1);
  int mirrored = 0;
  for (int draw = 0; draw < 40; ++draw) {
    Batch<double> batch;
    (*flipped)->Next(1, ctx, &batch);
    const double first = batch.inputs.data()[0] * 255;
    EXPECT_TRUE(std::abs(first - 0) < 1e-9 || std::abs(first - 20) < 1e-9) << first;
    if (std::abs(first - 20) < 1e-9) {
      ++mirrored;
      EXPECT_NEAR(batch.inputs.data()[2] * 255, 0, 1e-9);
      EXPECT_NEAR(batch.inputs.data()[3] * 255, 50, 1e-9);
    }
  }
  EXPECT_GT(mirrored, 5);
  EXPECT_LT(mirrored, 35);
  auto cropped = ImageClassification<double>::Create(
      ParseImages("format: IDX crop_padding: 1 " + files), "");
  ASSERT_TRUE(cropped.ok());
  int shifted = 0;
  for (int draw = 0; draw < 40; ++draw) {
    Batch<double> batch;
    (*cropped)->Next(1, ctx, &batch);
    const auto image = batch.inputs.sample(0);
    // Every value is an original pixel or black padding; the image's sum changes when shifted.
    if (std::abs(image.sum() * 255 - 150) > 1e-9) ++shifted;
    for (int i = 0; i < 6; ++i) EXPECT_EQ(std::fmod(std::round(image.data()[i] * 255), 10), 0);
  }
  EXPECT_GT(shifted, 20);  // 8 of 9 offsets move the image
}

TEST(ImageClassificationTest, BadSpecsNameTheField) {
  auto error = [](const std::string& text) {
    return ImageClassification<float>::Create(ParseImages(text), kFashion).status();
  };
  EXPECT_EQ(ErrorField(error("train { images: \"x\" }")), "format");
  EXPECT_EQ(ErrorField(error("format: IDX")), "train");
  EXPECT_EQ(ErrorField(error("format: IDX train { images: \"train-images-idx3-ubyte.gz\" }")),
            "train.labels");
  absl::Status status = error(
      "format: IDX train { images: \"nope.gz\" labels: \"train-labels-idx1-ubyte.gz\" }");
  EXPECT_EQ(ErrorField(status), "train.images");
  EXPECT_NE(status.message().find("nope.gz: cannot read"), std::string::npos) << status;
  EXPECT_EQ(ErrorField(error("format: CIFAR10 train { images: \"train-images-idx3-ubyte.gz\" "
                             "labels: \"y\" }")), "train.labels");
  // Directories are said to be directories (CIFAR-10's reader threw std::ios_failure), and an
  // IDX label file's problems name `labels`, not `images`.
  status = error("format: CIFAR10 train { images: \".\" }");
  EXPECT_EQ(ErrorField(status), "train.images");
  EXPECT_NE(status.message().find("/.: is a directory, not a file"), std::string::npos) << status;
  status = error("format: IDX train { images: \"train-images-idx3-ubyte.gz\" labels: \".\" }");
  EXPECT_EQ(ErrorField(status), "train.labels");
  EXPECT_NE(status.message().find("is a directory"), std::string::npos) << status;
  status = error("format: IDX train { images: \"train-images-idx3-ubyte.gz\" "
                 "labels: \"train-images-idx3-ubyte.gz\" }");
  EXPECT_EQ(ErrorField(status), "train.labels");
  EXPECT_NE(status.message().find("not an IDX label file"), std::string::npos) << status;
  EXPECT_EQ(ErrorField(error("format: IDX mean: [0.5, 0.5] std: [1, 1] train { images: "
                             "\"train-images-idx3-ubyte.gz\" labels: "
                             "\"train-labels-idx1-ubyte.gz\" }")), "mean");
  EXPECT_EQ(ErrorField(error("format: IDX train { images: \"train-images-idx3-ubyte.gz\" "
                             "labels: \"train-labels-idx1-ubyte.gz\" } validation { images: "
                             "\"t10k-images-idx3-ubyte.gz\" labels: "
                             "\"t10k-labels-idx1-ubyte.gz\" }")), "validation[0].name");
}

}  // namespace
}  // namespace attnlab
