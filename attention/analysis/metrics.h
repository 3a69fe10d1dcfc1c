// Attention metrics shared by every experiment and every attention plugin.
#ifndef ATTNLAB_ATTENTION_ANALYSIS_METRICS_H_
#define ATTNLAB_ATTENTION_ANALYSIS_METRICS_H_

#include <vector>

#include "Eigen/Core"
#include "attention/tensor.h"

namespace attnlab {

// <a, b> / (||a|| ||b||) over the flattened entries; 0 when either is zero.
double Correlation(const Eigen::Ref<const Eigen::VectorXd>& a,
                   const Eigen::Ref<const Eigen::VectorXd>& b);

// The metrics below read attention weights [batch * heads, queries, keys] (see
// AttentionLayer::attention), each row divided by its sum (a distribution; softmax rows already
// are), and average over every sample, head and query row; a row of zeros (ReLU attention that
// attends to nothing) counts as 0.

// -sum_j a_j log a_j (with 0 log 0 = 0).
template <typename T>
double AttentionEntropy(const Tensor<T>& probs);

// max_j a_j.
template <typename T>
double MaxSoftmax(const Tensor<T>& probs);

// a_{selected[b]} for sample b (selected has one entry per sample of the batch).
template <typename T>
double SelectedTokenProbability(const Tensor<T>& probs, const std::vector<int>& selected,
                                int heads = 1);

// The eigenvalues lambda_i of a square (query-key) matrix, complex in general, summarized:
// mean = mean of the real parts (= tr / d), variance = mean |lambda_i - mean|^2, spread =
// max |lambda_i - mean| (paper 2's eigenspectrum scale).
struct Spectrum {
  double mean = 0;
  double variance = 0;
  double spread = 0;
};
Spectrum EigenSpectrum(const Eigen::MatrixXd& m);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_ANALYSIS_METRICS_H_
