#include "attention/parameter.h"

#include "absl/strings/str_cat.h"
#include "attention/base/field_error.h"

namespace attnlab {

template <typename T>
absl::Status InitParameter(const ParamSpec& spec, DefaultInit default_init, int rows, int cols,
                           absl::string_view field, ExecContext& ctx, Parameter<T>* param) {
  param->value.resize(rows, cols);
  param->grad.setZero(rows, cols);
  param->frozen = spec.frozen();
  if (spec.value_size() > 0) {
    if (spec.init() != ParamSpec::DEFAULT) {
      return FieldError(absl::StrCat(field, ".init"), "give either `value` or `init`, not both");
    }
    if (spec.value_size() != rows * cols) {
      return FieldError(absl::StrCat(field, ".value"),
                        absl::StrCat("has ", spec.value_size(), " entries, expected ", rows * cols,
                                     " (a ", rows, " x ", cols, " parameter, row-major)"));
    }
    for (int i = 0; i < rows * cols; ++i) param->value.data()[i] = static_cast<T>(spec.value(i));
    return absl::OkStatus();
  }
  ParamSpec::Init init = spec.init();
  double std = spec.std();
  if (init == ParamSpec::DEFAULT) {
    init = default_init.init;
    std = default_init.std;
  } else if (spec.std() != 0.0 && init != ParamSpec::NORMAL) {
    return FieldError(absl::StrCat(field, ".std"), "only used with init: NORMAL");
  }
  if (spec.has_scale() && init != ParamSpec::IDENTITY && init != ParamSpec::ONES) {
    return FieldError(absl::StrCat(field, ".scale"), "only used with init: IDENTITY or ONES");
  }
  const T scale = static_cast<T>(spec.has_scale() ? spec.scale() : 1.0);
  switch (init) {
    case ParamSpec::ZEROS:
      param->value.setZero();
      return absl::OkStatus();
    case ParamSpec::ONES:
      param->value.setConstant(scale);
      return absl::OkStatus();
    case ParamSpec::IDENTITY:
      if (rows != cols) {
        return FieldError(absl::StrCat(field, ".init"),
                          absl::StrCat("IDENTITY needs a square parameter, this one is ", rows,
                                       " x ", cols));
      }
      param->value.setIdentity();
      param->value *= scale;
      return absl::OkStatus();
    case ParamSpec::NORMAL:
      if (!(std > 0.0)) {
        return FieldError(absl::StrCat(field, ".std"), "init: NORMAL needs std > 0");
      }
      for (int i = 0; i < rows * cols; ++i) {
        param->value.data()[i] = static_cast<T>(std * ctx.Normal());
      }
      return absl::OkStatus();
    default:
      return FieldError(absl::StrCat(field, ".init"), "unknown init");
  }
}

template absl::Status InitParameter<float>(const ParamSpec&, DefaultInit, int, int,
                                           absl::string_view, ExecContext&, Parameter<float>*);
template absl::Status InitParameter<double>(const ParamSpec&, DefaultInit, int, int,
                                            absl::string_view, ExecContext&, Parameter<double>*);

}  // namespace attnlab
