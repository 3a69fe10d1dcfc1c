// Tests of the image experiments train on the repository's tiny Fashion-MNIST fixture
// (1,000 training and 500 test images) instead of the Debian package's 70,000.
#ifndef ATTNLAB_EXPERIMENTS_FASHION_MNIST_FIXTURE_H_
#define ATTNLAB_EXPERIMENTS_FASHION_MNIST_FIXTURE_H_

#include "experiments/spec/experiment.pb.h"
#include "experiments/spec/field_path.h"
#include "gtest/gtest.h"

namespace attnlab {

// Replaces the spec's dataset; the paths are relative to a spec in experiments/<folder>/.
inline void UseFashionMnistFixture(ExperimentSpec* spec) {
  constexpr char kFixture[] = R"pb({
    format: IDX
    train {
      images: "../../datasets/testdata/fashion_mnist_tiny/train-images-idx3-ubyte.gz"
      labels: "../../datasets/testdata/fashion_mnist_tiny/train-labels-idx1-ubyte.gz"
    }
    validation {
      name: "test"
      images: "../../datasets/testdata/fashion_mnist_tiny/t10k-images-idx3-ubyte.gz"
      labels: "../../datasets/testdata/fashion_mnist_tiny/t10k-labels-idx1-ubyte.gz"
    }
  })pb";
  ASSERT_TRUE(SetFieldFromText(spec, "dataset.config", kFixture).ok());
}

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_FASHION_MNIST_FIXTURE_H_
