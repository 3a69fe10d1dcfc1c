#include "experiments/trials/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace attnlab {
namespace {

std::vector<double> Ranks(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    const double average = (i + j) / 2.0 + 1;  // ranks from 1
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = average;
    i = j + 1;
  }
  return ranks;
}

}  // namespace

MeanAndSpread Summarize(const std::vector<double>& values) {
  MeanAndSpread s;
  if (values.empty()) return s;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / values.size();
  if (values.size() > 1) {
    double sum_sq = 0;
    for (double v : values) sum_sq += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(sum_sq / (values.size() - 1));
  }
  return s;
}

double SpearmanCorrelation(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> rx = Ranks(x), ry = Ranks(y);
  const double mx = Summarize(rx).mean, my = Summarize(ry).mean;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (rx[i] - mx) * (ry[i] - my);
    sxx += (rx[i] - mx) * (rx[i] - mx);
    syy += (ry[i] - my) * (ry[i] - my);
  }
  if (sxx == 0 || syy == 0) return std::numeric_limits<double>::quiet_NaN();
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace attnlab
