// One dataset per distinct data, shared by the trials of a process that read it: a sweep's
// trials differ in model, optimizer or seed, rarely in data, and building the data (decoding
// and normalizing 60,000 images, counting a corpus's words) once per trial took longer than
// checking the whole spec. A dataset lives while a trial holds it.
#ifndef ATTNLAB_DATASETS_SHARED_DATASET_H_
#define ATTNLAB_DATASETS_SHARED_DATASET_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "datasets/dataset.h"
#include "datasets/dataset.pb.h"

namespace attnlab {

// CreateDataset's dataset, or the one a live trial already holds for the same spec and base
// directory. Datasets are read-only once built (Next is const), so trials may share one.
template <typename T>
absl::StatusOr<std::shared_ptr<const Dataset<T>>> SharedDataset(const DatasetSpec& spec,
                                                                const std::string& base_dir = "");

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_SHARED_DATASET_H_
