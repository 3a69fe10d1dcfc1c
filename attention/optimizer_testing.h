// A parameter for optimizer tests: a column of values with its gradient.
#ifndef ATTNLAB_ATTENTION_OPTIMIZER_TESTING_H_
#define ATTNLAB_ATTENTION_OPTIMIZER_TESTING_H_

#include <initializer_list>

#include "attention/parameter.h"

namespace attnlab {

inline Parameter<double> ParameterWith(std::initializer_list<double> value,
                                       std::initializer_list<double> grad) {
  Parameter<double> p;
  p.value.resize(value.size(), 1);
  p.grad.resize(grad.size(), 1);
  int i = 0;
  for (double v : value) p.value(i++, 0) = v;
  i = 0;
  for (double g : grad) p.grad(i++, 0) = g;
  return p;
}

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_OPTIMIZER_TESTING_H_
