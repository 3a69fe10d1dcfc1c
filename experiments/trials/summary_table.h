// The table a run prints on stdout: per trial (or per grid point, seeds aggregated), the report
// steps against the report metrics, and the report's rank correlations.
#ifndef ATTNLAB_EXPERIMENTS_TRIALS_SUMMARY_TABLE_H_
#define ATTNLAB_EXPERIMENTS_TRIALS_SUMMARY_TABLE_H_

#include <string>

#include "experiments/trials/runner.h"

namespace attnlab {

std::string SummaryTable(const ExperimentSpec& spec, const ExperimentResult& result);

}  // namespace attnlab

#endif  // ATTNLAB_EXPERIMENTS_TRIALS_SUMMARY_TABLE_H_
