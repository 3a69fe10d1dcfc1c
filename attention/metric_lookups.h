// What metrics look up by the names their configs give: layers, parameters and validation sets,
// with the error a spec's user reads at that config field.
#ifndef ATTNLAB_ATTENTION_METRIC_LOOKUPS_H_
#define ATTNLAB_ATTENTION_METRIC_LOOKUPS_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "attention/attention_layer.h"
#include "attention/base/field_error.h"
#include "attention/metric.h"

namespace attnlab {

// The attention layer called `name`, or a FieldError at `field`.
template <typename T>
absl::StatusOr<AttentionLayer<T>*> FindAttentionLayer(const Model<T>& model,
                                                      const std::string& name,
                                                      const std::string& field = "layer") {
  Layer<T>* layer = model.FindLayer(name);
  if (layer == nullptr) {
    return FieldError(field, absl::StrCat("no layer '", name,
                                          "'; layers: ", absl::StrJoin(model.LayerPaths(), ", ")));
  }
  if (layer->AsAttention() == nullptr) {
    return FieldError(field, absl::StrCat("layer '", name, "' is not an attention layer"));
  }
  return layer->AsAttention();
}

// The parameter called `name` ("attention/p"), or a FieldError at `field` listing them.
template <typename T>
absl::StatusOr<Parameter<T>*> FindModelParameter(const Model<T>& model, const std::string& name,
                                                 const std::string& field = "param") {
  Parameter<T>* param = model.FindParameter(name);
  if (param != nullptr) return param;
  std::string known;
  for (const Parameter<T>* p : model.parameters()) {
    absl::StrAppend(&known, known.empty() ? "" : ", ", p->name);
  }
  return FieldError(field, absl::StrCat("no parameter '", name, "'; parameters: ", known));
}

// The validation set called `name`, or a FieldError at `field` listing them.
template <typename T>
absl::StatusOr<const Batch<T>*> FindValidationSet(const MetricData<T>& data,
                                                  const std::string& name,
                                                  const std::string& field = "set") {
  std::string known;
  for (const NamedBatch<T>* set : data.validation) {
    if (set->name == name) return &set->batch;
    absl::StrAppend(&known, known.empty() ? "" : ", ", set->name);
  }
  return FieldError(field, absl::StrCat("the dataset has no validation set '", name,
                                        "'; sets: ", known.empty() ? "none" : known));
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_METRIC_LOOKUPS_H_
