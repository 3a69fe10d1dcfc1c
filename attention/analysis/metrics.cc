#include "attention/analysis/metrics.h"

#include <algorithm>
#include <cmath>
#include <complex>

#include "Eigen/Eigenvalues"

namespace attnlab {

double Correlation(const Eigen::Ref<const Eigen::VectorXd>& a,
                   const Eigen::Ref<const Eigen::VectorXd>& b) {
  const double norms = a.norm() * b.norm();
  return norms > 0 ? a.dot(b) / norms : 0.0;
}

template <typename T>
double AttentionEntropy(const Tensor<T>& probs) {
  const Matrix<T>& a = probs.flat();
  double total = 0;
  for (Eigen::Index r = 0; r < a.rows(); ++r) {
    const double sum = a.row(r).template cast<double>().sum();
    if (!(sum > 0)) continue;  // a row that attends to nothing
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double p = a(r, j) / sum;
      if (p > 0) total -= p * std::log(p);
    }
  }
  return a.rows() ? total / static_cast<double>(a.rows()) : 0.0;
}

template <typename T>
double MaxSoftmax(const Tensor<T>& probs) {
  const Matrix<T>& a = probs.flat();
  double total = 0;
  for (Eigen::Index r = 0; r < a.rows(); ++r) {
    const double sum = a.row(r).template cast<double>().sum();
    if (sum > 0) total += a.row(r).maxCoeff() / sum;
  }
  return a.rows() ? total / static_cast<double>(a.rows()) : 0.0;
}

template <typename T>
double SelectedTokenProbability(const Tensor<T>& probs, const std::vector<int>& selected,
                                int heads) {
  double total = 0;
  for (int s = 0; s < probs.batch(); ++s) {
    const auto a = probs.sample(s);
    for (Eigen::Index r = 0; r < a.rows(); ++r) {
      const double sum = a.row(r).template cast<double>().sum();
      if (sum > 0) total += a(r, selected[s / heads]) / sum;
    }
  }
  const double rows = static_cast<double>(probs.batch()) * probs.rows();
  return rows > 0 ? total / rows : 0.0;
}

Spectrum EigenSpectrum(const Eigen::MatrixXd& m) {
  const Eigen::VectorXcd eigenvalues = Eigen::EigenSolver<Eigen::MatrixXd>(m, false).eigenvalues();
  Spectrum spectrum;
  const std::complex<double> mean = eigenvalues.mean();
  spectrum.mean = mean.real();
  for (Eigen::Index i = 0; i < eigenvalues.size(); ++i) {
    const double distance = std::abs(eigenvalues[i] - mean);
    spectrum.variance += distance * distance / static_cast<double>(eigenvalues.size());
    spectrum.spread = std::max(spectrum.spread, distance);
  }
  return spectrum;
}

template double AttentionEntropy(const Tensor<float>&);
template double AttentionEntropy(const Tensor<double>&);
template double MaxSoftmax(const Tensor<float>&);
template double MaxSoftmax(const Tensor<double>&);
template double SelectedTokenProbability(const Tensor<float>&, const std::vector<int>&, int);
template double SelectedTokenProbability(const Tensor<double>&, const std::vector<int>&, int);

}  // namespace attnlab
