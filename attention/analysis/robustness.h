// Classification accuracy, clean and under input perturbations: Gaussian noise, FGSM and PGD
// (L-infinity), the attacks through the model's input gradient (Model::InputGradient).
// Predictions are class scores [n, 1, classes] (or [n, rows, classes], one class per row);
// targets class ids [n, rows, 1]. Perturbations act on the inputs the model sees (for images:
// the normalized pixels), and are not clipped to a pixel range.
#ifndef ATTNLAB_ATTENTION_ANALYSIS_ROBUSTNESS_H_
#define ATTNLAB_ATTENTION_ANALYSIS_ROBUSTNESS_H_

#include <cstdint>

#include "attention/model.h"

namespace attnlab {

struct Perturbation {
  enum Kind { kNone, kGaussian, kFgsm, kPgd };
  Kind kind = kNone;
  // Gaussian: the noise's standard deviation; FGSM and PGD: the L-infinity radius epsilon.
  double size = 0;
  // PGD: the number of steps and their size (0: Madry et al.'s 2.5 epsilon / steps), from
  // the clean input or from a uniform draw in the epsilon-ball.
  int steps = 20;
  double step_size = 0;
  // Gaussian noise and PGD's random start: the random stream.
  uint64_t seed = 0;
  bool random_start = false;
  // FGSM and PGD: raise the loss of the model's own predictions on the clean input instead of
  // the targets'.
  bool predicted_labels = false;
};

// x + the perturbation, for targets y (the attacks maximize the model's data loss).
template <typename T>
void Perturb(Model<T>& model, const Tensor<T>& x, const Tensor<T>& y, const Perturbation& p,
             Tensor<T>* out, ExecContext& ctx);

// The fraction of rows whose highest score is the target class, over the first `samples` of
// `x` (0: all) perturbed, in chunks of `chunk` samples (memory stays bounded on large sets).
template <typename T>
double Accuracy(Model<T>& model, const Tensor<T>& x, const Tensor<T>& y, const Perturbation& p,
                ExecContext& ctx, int samples = 0, int chunk = 250);

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_ANALYSIS_ROBUSTNESS_H_
