#include "experiments/trials/benchmark_products.h"

#include <string>
#include <vector>

#include "attention/kernels/library_product.h"
#include "attention/kernels/product_choices.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

class BenchmarkProductsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    SetProductBackend(ProductBackend::kChosen);
    SetProductChoices(AllTiled());
  }
  // argv as main() gets it, over `args`.
  std::vector<char*> Argv(std::vector<std::string>& args) {
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    return argv;
  }
};

TEST_F(BenchmarkProductsTest, TakesItsFlagOutAndAppliesIt) {
  std::vector<std::string> args = {"bench", "--benchmark_filter=x", "--product_backend=onednn",
                                   "--benchmark_repetitions=3"};
  std::vector<char*> argv = Argv(args);
  int argc = int(args.size());
  absl::StatusOr<std::string> products = ApplyBenchmarkProducts(&argc, argv.data());
  ASSERT_TRUE(products.ok()) << products.status();
  EXPECT_EQ(*products, "forced onednn");
  EXPECT_EQ(GetProductBackend(), ProductBackend::kOneDnn);
  ASSERT_EQ(argc, 3);  // Google Benchmark's flags stay, in order
  EXPECT_STREQ(argv[1], "--benchmark_filter=x");
  EXPECT_STREQ(argv[2], "--benchmark_repetitions=3");
}

TEST_F(BenchmarkProductsTest, ABadValueIsAnErrorNamingTheFlag) {
  std::vector<std::string> args = {"bench", "--product_backend=fastest"};
  std::vector<char*> argv = Argv(args);
  int argc = int(args.size());
  absl::StatusOr<std::string> products = ApplyBenchmarkProducts(&argc, argv.data());
  ASSERT_FALSE(products.ok());
  EXPECT_NE(products.status().message().find("--product_backend"), absl::string_view::npos)
      << products.status();
  EXPECT_NE(products.status().message().find("'fastest'"), absl::string_view::npos)
      << products.status();
}

}  // namespace
}  // namespace attnlab
