// Summary statistics for reports: mean and spread over seeds, rank correlations over trials.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_STATISTICS_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_STATISTICS_H_

#include <vector>

namespace attnlab {

struct MeanAndSpread {
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 for one value
};
MeanAndSpread Summarize(const std::vector<double>& values);

// Spearman's rank correlation: Pearson's of the ranks, ties sharing their average rank. NaN
// with fewer than 2 pairs or a constant variable.
double SpearmanCorrelation(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_STATISTICS_H_
