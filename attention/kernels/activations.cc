#include "attention/kernels/activations.h"

#include <cmath>

#include "attention/kernels/packet.h"
#include "attention/kernels/parallel.h"
#include "unsupported/Eigen/SpecialFunctions"

namespace attnlab {

// GELU's derivative took erf and exp again (3% of a ViT step) and a per-element std::erf call
// once made GELU a fifth of a ViT step: hence the derivative kept, and the packets.
template <typename T>
void ActivateKeepingDerivative(ExecContext& ctx, Activation f, Matrix<T>* x, Matrix<T>* out) {
  using namespace Eigen::internal;
  using P = Packet<T>;
  constexpr int L = kPacketSize<T>;
  out->resize(x->rows(), x->cols());
  const int cols = static_cast<int>(x->cols());
  ParallelFor(ctx, static_cast<int>(x->rows()), [&](int begin, int end) {
    auto xs = x->middleRows(begin, end - begin).array();
    auto ys = out->middleRows(begin, end - begin).array();
    switch (f) {
      case Activation::kGelu:
        for (int i = begin; i < end; ++i) {
          // Phi(x) = (1 + erf(x / sqrt 2)) / 2; GELU = x Phi(x), its derivative Phi(x) + x phi(x).
          T* in = x->row(i).data();
          T* y = out->row(i).data();
          int k = 0;
          if constexpr (packet_traits<T>::HasErf) {  // float; std::erf for the rest
            for (; k + L <= cols; k += L) {
              const P v = ploadu<P>(in + k);
              const P erf = scalar_erf_op<T>().packetOp(pmul(v, pset1<P>(T(M_SQRT1_2))));
              const P cdf = pmul(pset1<P>(T(0.5)), padd(pset1<P>(T(1)), erf));
              const P density = pmul(pexp(pmul(pset1<P>(T(-0.5)), pmul(v, v))),
                                     pset1<P>(T(0.3989422804014327)));
              pstoreu(y + k, pmul(v, cdf));
              pstoreu(in + k, pmadd(v, density, cdf));
            }
          }
          for (; k < cols; ++k) {
            const T v = in[k], cdf = T(0.5) * (1 + std::erf(v * T(M_SQRT1_2)));
            y[k] = v * cdf;
            in[k] = cdf + v * std::exp(T(-0.5) * v * v) * T(0.3989422804014327);
          }
        }
        return;
      case Activation::kTanh:
        ys = xs.tanh();
        xs = 1 - ys.square();
        return;
      case Activation::kRelu:
        ys = xs.max(T(0));
        xs = (xs > T(0)).template cast<T>();
        return;
    }
  });
}

template void ActivateKeepingDerivative(ExecContext&, Activation, Matrix<float>*, Matrix<float>*);
template void ActivateKeepingDerivative(ExecContext&, Activation, Matrix<double>*,
                                        Matrix<double>*);

}  // namespace attnlab
