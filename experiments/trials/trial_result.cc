#include "experiments/trials/trial_result.h"

#include <limits>

namespace attnlab {

double TrialResult::At(int64_t step, const std::string& metric) const {
  for (const MetricPoint& point : points) {
    if (point.step == step && point.metric == metric) return point.value;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double TrialResult::Final(const std::string& metric) const {
  for (auto it = points.rbegin(); it != points.rend(); ++it) {
    if (it->metric == metric) return it->value;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace attnlab
