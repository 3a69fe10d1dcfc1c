// Datasets of paper 1: sequences written out in the spec, and planted random sequences.
#ifndef ATTNLAB_DATASETS_TOKEN_SEQUENCES_H_
#define ATTNLAB_DATASETS_TOKEN_SEQUENCES_H_

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "datasets/dataset.h"

namespace attnlab {

// Errors are FieldErrors relative to the TokenSequences message.
template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> CreateTokenSequences(const TokenSequences& spec);

// Errors are FieldErrors relative to the PlantedTokens message.
template <typename T>
absl::StatusOr<std::unique_ptr<Dataset<T>>> CreatePlantedTokens(const PlantedTokens& spec,
                                                                uint64_t seed);

}  // namespace attnlab

#endif  // ATTNLAB_DATASETS_TOKEN_SEQUENCES_H_
