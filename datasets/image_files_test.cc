#include "datasets/image_files.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "attention/base/field_error.h"
#include "gtest/gtest.h"
#include "zlib.h"

namespace attnlab {
namespace {

constexpr char kFashion[] = "datasets/testdata/fashion_mnist_tiny";

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string BigEndian(uint32_t x) { return {char(x >> 24), char(x >> 16), char(x >> 8), char(x)}; }

// A CIFAR-10 record whose red plane holds i % 256, green 1, blue 2.
std::string CifarRecord(int label) {
  std::string record(1, char(label));
  for (int i = 0; i < 1024; ++i) record += char(i % 256);
  record += std::string(1024, char(1)) + std::string(1024, char(2));
  return record;
}

TEST(ImageFilesTest, Cifar10RecordsBecomeInterleavedPixels) {
  const std::string path = TempPath("batch.bin");
  WriteFile(path, CifarRecord(3) + CifarRecord(7) + CifarRecord(0));
  auto images = ReadCifar10({path, path}, 0);
  ASSERT_TRUE(images.ok()) << images.status();
  EXPECT_EQ(images->count(), 6);
  EXPECT_EQ(images->labels[1], 7);
  EXPECT_EQ(images->labels[3], 3);  // the second file follows the first
  // Image 1, pixel (0, 5): red 5, green 1, blue 2.
  const size_t pixel = (1 * 1024 + 5) * 3;
  EXPECT_EQ(images->pixels[pixel], 5);
  EXPECT_EQ(images->pixels[pixel + 1], 1);
  EXPECT_EQ(images->pixels[pixel + 2], 2);
  EXPECT_EQ(ReadCifar10({path}, 2)->count(), 2);
}

TEST(ImageFilesTest, Cifar10ErrorsNameTheFile) {
  const std::string path = TempPath("truncated.bin");
  WriteFile(path, CifarRecord(1) + CifarRecord(2).substr(0, 100));
  absl::Status status = ReadCifar10({path}, 0).status();
  EXPECT_NE(status.message().find("truncated.bin: 3173 bytes is not a whole number of 3073-byte"),
            std::string::npos)
      << status;
  WriteFile(path, CifarRecord(12));
  status = ReadCifar10({path}, 0).status();
  EXPECT_NE(status.message().find("record 0 has label 12"), std::string::npos) << status;
  status = ReadCifar10({TempPath("absent.bin")}, 0).status();
  EXPECT_NE(status.message().find("absent.bin: cannot read"), std::string::npos) << status;
}

// Findings of datasets/fuzz/idx_fuzzer, kept: sizes whose product wraps past 2^64 (4 x 2^31 x
// 2^31 "matched" an empty file) and images without pixels.
TEST(ImageFilesTest, IdxHeadersThatLieAboutSizes) {
  const std::string labels = BigEndian(0x801) + BigEndian(4) + std::string("\x01\x02\x03\x04", 4);
  WriteFile(TempPath("labels4.idx"), labels);
  WriteFile(TempPath("wrap.idx"),
            BigEndian(0x803) + BigEndian(4) + BigEndian(1u << 31) + BigEndian(1u << 31));
  absl::Status status = ReadIdx(TempPath("wrap.idx"), TempPath("labels4.idx"), 0).status();
  EXPECT_NE(status.message().find("wrap.idx: the header's sizes multiply past 2^64 bytes"),
            std::string::npos)
      << status;
  WriteFile(TempPath("flat.idx"), BigEndian(0x803) + BigEndian(4) + BigEndian(0) + BigEndian(5));
  status = ReadIdx(TempPath("flat.idx"), TempPath("labels4.idx"), 0).status();
  EXPECT_NE(status.message().find("flat.idx: images of 0 x 5 pixels (each side must be 1 to"),
            std::string::npos)
      << status;
}

TEST(ImageFilesTest, IdxPlainAndGzip) {
  // Two 2 x 3 images.
  const std::string pixels = BigEndian(0x803) + BigEndian(2) + BigEndian(2) + BigEndian(3) +
                             std::string("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b", 12);
  const std::string labels = BigEndian(0x801) + BigEndian(2) + std::string("\x04\x09", 2);
  WriteFile(TempPath("images.idx"), pixels);
  WriteFile(TempPath("labels.idx"), labels);
  gzFile gz = gzopen(TempPath("images.idx.gz").c_str(), "wb");
  gzwrite(gz, pixels.data(), pixels.size());
  gzclose(gz);
  for (const std::string name : {"images.idx", "images.idx.gz"}) {
    auto images = ReadIdx(TempPath(name), TempPath("labels.idx"), 0);
    ASSERT_TRUE(images.ok()) << images.status();
    EXPECT_EQ(images->height, 2);
    EXPECT_EQ(images->width, 3);
    EXPECT_EQ(images->channels, 1);
    EXPECT_EQ(images->labels, (std::vector<uint8_t>{4, 9}));
    EXPECT_EQ(images->pixels[7], 7);
  }
  EXPECT_EQ(ReadIdx(TempPath("images.idx"), TempPath("labels.idx"), 1)->pixels.size(), 6u);

  WriteFile(TempPath("short.idx"), pixels.substr(0, pixels.size() - 1));
  absl::Status status = ReadIdx(TempPath("short.idx"), TempPath("labels.idx"), 0).status();
  EXPECT_NE(status.message().find("short.idx: the header promises 12 bytes of data, the file "
                                  "holds 11 (truncated)"),
            std::string::npos)
      << status;
  status = ReadIdx(TempPath("labels.idx"), TempPath("labels.idx"), 0).status();
  EXPECT_NE(status.message().find("not an IDX image file (magic number 801, expected 803)"),
            std::string::npos)
      << status;
  WriteFile(TempPath("three.idx"),
            BigEndian(0x801) + BigEndian(3) + std::string("\x01\x02\x03", 3));
  status = ReadIdx(TempPath("images.idx"), TempPath("three.idx"), 0).status();
  EXPECT_NE(status.message().find("holds 3 labels for the 2 images"), std::string::npos) << status;
}

// The shared CIFAR-10 subset beside this checkout (skipped when absent).
TEST(ImageFilesTest, RealCifar10SubsetMatchesItsSourceNotes) {
  const std::filesystem::path fixture =
      std::filesystem::canonical(std::string(kFashion) + "/SOURCE.md");
  const std::filesystem::path data =
      fixture.parent_path().parent_path().parent_path().parent_path().parent_path() /
      "shared/data/cifar-10/data_batch_1_first4000.bin";
  if (!std::filesystem::exists(data)) GTEST_SKIP() << "no CIFAR-10 subset at " << data;
  auto images = ReadCifar10({data.string()}, 0);
  ASSERT_TRUE(images.ok()) << images.status();
  EXPECT_EQ(images->count(), 4000);
  EXPECT_EQ(std::vector<int>(images->labels.begin(), images->labels.begin() + 10),
            (std::vector<int>{6, 9, 9, 4, 1, 1, 2, 7, 8, 3}));
  EXPECT_EQ(images->pixels[0], 59);  // pixel (0, 0) of image 0: RGB (59, 62, 63)
  EXPECT_EQ(images->pixels[1], 62);
  EXPECT_EQ(images->pixels[2], 63);
}

// Debian's dataset-fashion-mnist, when installed (skipped otherwise).
TEST(ImageFilesTest, DebianFashionMnistHasTheOfficialCounts) {
  const std::string dir = "/usr/share/datasets/fashion-mnist/";
  if (!std::filesystem::exists(dir + "t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  }
  auto test = ReadIdx(dir + "t10k-images-idx3-ubyte.gz", dir + "t10k-labels-idx1-ubyte.gz", 0);
  ASSERT_TRUE(test.ok()) << test.status();
  EXPECT_EQ(test->count(), 10000);
  EXPECT_EQ(test->height, 28);
}

}  // namespace
}  // namespace attnlab
