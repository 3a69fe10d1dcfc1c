#include "attention/analysis/robustness.h"

#include <algorithm>
#include <random>

#include "attention/kernels/gaussian.h"

namespace attnlab {
namespace {

template <typename T>
void Slice(const Tensor<T>& all, int first, int count, Tensor<T>* out) {
  const Shape shape = all.shape();
  out->Resize({count, shape.rows, shape.cols});
  out->flat() = all.flat().middleRows(int64_t(first) * shape.rows, int64_t(count) * shape.rows);
}

// The class ids of the highest scores, one per row, shaped like the targets.
template <typename T>
void Predictions(const Tensor<T>& scores, const Shape& targets, Tensor<T>* out) {
  out->Resize(targets);
  const Matrix<T>& rows = scores.flat();
  for (Eigen::Index r = 0; r < rows.rows(); ++r) {
    Eigen::Index best;
    rows.row(r).maxCoeff(&best);
    out->data()[r] = static_cast<T>(best);
  }
}

}  // namespace

template <typename T>
void Perturb(Model<T>& model, const Tensor<T>& x, const Tensor<T>& y, const Perturbation& p,
             Tensor<T>* out, ExecContext& ctx) {
  *out = x;
  const T eps = static_cast<T>(p.size);
  switch (p.kind) {
    case Perturbation::kNone:
      return;
    case Perturbation::kGaussian: {
      Tensor<T> noise(x.shape());
      GaussianStream(p.seed).Fill(noise.data(), noise.size(), eps);
      out->flat() += noise.flat();
      return;
    }
    case Perturbation::kFgsm:
    case Perturbation::kPgd: {
      const bool fgsm = p.kind == Perturbation::kFgsm;
      const int steps = fgsm ? 1 : p.steps;
      const T step = fgsm ? eps
                          : static_cast<T>(p.step_size > 0 ? p.step_size
                                                           : 2.5 * p.size / std::max(p.steps, 1));
      Tensor<T> predicted;
      if (p.predicted_labels) Predictions(model.Forward(x, ctx), y.shape(), &predicted);
      const Tensor<T>& labels = p.predicted_labels ? predicted : y;
      if (!fgsm && p.random_start) {
        std::mt19937_64 random(p.seed);
        std::uniform_real_distribution<double> uniform(-p.size, p.size);
        for (int64_t i = 0; i < out->size(); ++i) out->data()[i] += static_cast<T>(uniform(random));
      }
      Tensor<T> grad;
      for (int s = 0; s < steps; ++s) {
        model.InputGradient(*out, labels, &grad, ctx);
        out->flat().array() += step * grad.flat().array().sign();
        // Back into the epsilon-ball around x.
        out->flat().array() =
            out->flat().array().max(x.flat().array() - eps).min(x.flat().array() + eps);
      }
      return;
    }
  }
}

template <typename T>
double Accuracy(Model<T>& model, const Tensor<T>& x, const Tensor<T>& y, const Perturbation& p,
                ExecContext& ctx, int samples, int chunk) {
  const int n = samples > 0 ? std::min(samples, x.batch()) : x.batch();
  const bool training = ctx.training();
  ctx.set_training(false);
  // Noise is drawn for the evaluated samples at once, so it does not depend on the chunking;
  // the attacks need the model, chunk by chunk.
  const bool noise = p.kind == Perturbation::kGaussian;
  Tensor<T> noisy;
  if (noise) {
    Tensor<T> clean, labels;
    Slice(x, 0, n, &clean);
    Slice(y, 0, n, &labels);
    Perturb(model, clean, labels, p, &noisy, ctx);
  }
  const Tensor<T>& inputs = noise ? noisy : x;
  Perturbation attack = p;
  if (noise) attack.kind = Perturbation::kNone;
  int64_t correct = 0, rows = 0;
  Tensor<T> xs, ys, perturbed, predicted;
  for (int first = 0; first < n; first += chunk) {
    const int count = std::min(chunk, n - first);
    Slice(inputs, first, count, &xs);
    Slice(y, first, count, &ys);
    attack.seed = StreamSeed(p.seed, first);  // each chunk its own random starts
    Perturb(model, xs, ys, attack, &perturbed, ctx);
    Predictions(model.Forward(perturbed, ctx), ys.shape(), &predicted);
    correct += (predicted.flat().array() == ys.flat().array()).count();
    rows += ys.size();
  }
  ctx.set_training(training);
  return rows > 0 ? static_cast<double>(correct) / rows : 0.0;
}

template void Perturb(Model<float>&, const Tensor<float>&, const Tensor<float>&,
                      const Perturbation&, Tensor<float>*, ExecContext&);
template void Perturb(Model<double>&, const Tensor<double>&, const Tensor<double>&,
                      const Perturbation&, Tensor<double>*, ExecContext&);
template double Accuracy(Model<float>&, const Tensor<float>&, const Tensor<float>&,
                         const Perturbation&, ExecContext&, int, int);
template double Accuracy(Model<double>&, const Tensor<double>&, const Tensor<double>&,
                         const Perturbation&, ExecContext&, int, int);

}  // namespace attnlab
