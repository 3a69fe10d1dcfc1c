#include "plugins/mechanisms/linear/linear_mechanism.h"

#include "attention/kernels/product.h"

namespace attnlab {
namespace {

// phi(x) = elu(x) + 1: x + 1 for x > 0, e^x otherwise; positive everywhere.
template <typename T>
void Phi(ConstHeadBlock<T> x, Matrix<T>& out) {
  out = (x.array() > T(0)).select(x.array() + T(1), x.array().exp());
}

// dL/dx from dL/dphi, in place: phi'(x) is 1 for x > 0 and e^x otherwise.
template <typename T>
void PhiBackward(ConstHeadBlock<T> x, Matrix<T>& grad) {
  grad.array() *=
      (x.array() > T(0)).select(Matrix<T>::Ones(x.rows(), x.cols()).array(), x.array().exp());
}

}  // namespace

template <typename T>
void LinearMechanism<T>::Forward(int, ConstHeadBlock<T> q, ConstHeadBlock<T> k, ConstHeadBlock<T> v,
                                 T, HeadBlock<T> a, HeadBlock<T> h) {
  Scratch& s = scratch_.Local();
  Phi<T>(q, s.phi_q);
  Phi<T>(k, s.phi_k);
  const Eigen::Index queries = q.rows(), keys = k.rows();
  if (!this->shape_.causal) {
    s.state.resize(k.cols(), v.cols());
    Product(s.phi_k.transpose(), v, s.state, /*accumulate=*/false);  // sum_j phi(k_j) v_j^T
    s.normalizer.noalias() = s.phi_k.colwise().sum().transpose();    // sum_j phi(k_j)
    s.denominators.noalias() = s.phi_q * s.normalizer;
    Product(s.phi_q, s.state, h, /*accumulate=*/false);
    h.array().colwise() /= s.denominators.array();
  } else {  // running sums over the keys j <= i
    s.state.setZero(k.cols(), v.cols());
    s.normalizer.setZero(k.cols());
    s.denominators.resize(queries);
    for (Eigen::Index i = 0; i < queries; ++i) {
      s.state.noalias() += s.phi_k.row(i).transpose() * v.row(i);
      s.normalizer += s.phi_k.row(i).transpose();
      s.denominators(i) = s.phi_q.row(i).dot(s.normalizer);
      h.row(i).noalias() = s.phi_q.row(i) * s.state / s.denominators(i);
    }
  }
  // The weights the layer shows: phi(q_i)^T phi(k_j) / denominator_i (masked: 0).
  Product(s.phi_q, s.phi_k.transpose(), a, /*accumulate=*/false);
  a.array().colwise() /= s.denominators.array();
  if (this->shape_.causal) {
    for (Eigen::Index i = 0; i + 1 < keys; ++i) a.row(i).tail(keys - i - 1).setZero();
  }
}

template <typename T>
void LinearMechanism<T>::Backward(int, ConstHeadBlock<T> q, ConstHeadBlock<T> k,
                                  ConstHeadBlock<T> v, T, ConstHeadBlock<T>, ConstHeadBlock<T> dh,
                                  HeadBlock<T>* dq, HeadBlock<T> dk, HeadBlock<T> dv) {
  Scratch& s = scratch_.Local();
  Phi<T>(q, s.phi_q);
  Phi<T>(k, s.phi_k);
  const Eigen::Index queries = q.rows();
  // With h_i = n_i / d_i: dL/dn_i = dh_i / d_i and dL/dd_i = -dh_i . h_i / d_i.
  s.grad_phi_q.resize(q.rows(), q.cols());
  s.grad_phi_k.resize(k.rows(), k.cols());
  if (!this->shape_.causal) {
    s.state.resize(k.cols(), v.cols());
    Product(s.phi_k.transpose(), v, s.state, /*accumulate=*/false);
    s.normalizer.noalias() = s.phi_k.colwise().sum().transpose();
    s.denominators.noalias() = s.phi_q * s.normalizer;
    Matrix<T>& grad_numerators = s.grad_numerators;
    grad_numerators = dh;  // rows dh_i / d_i
    grad_numerators.array().colwise() /= s.denominators.array();
    s.outputs.resize(queries, v.cols());
    Product(s.phi_q, s.state, s.outputs, /*accumulate=*/false);  // rows n_i; h_i = n_i / d_i
    // dL/dd_i = -dh_i . n_i / d_i^2 = -(dL/dn_i) . h_i.
    Vector<T>& grad_denominators = s.grad_denominators;
    grad_denominators =
        -(grad_numerators.cwiseProduct(s.outputs).rowwise().sum().array() / s.denominators.array())
             .matrix();
    Product(grad_numerators, s.state.transpose(), s.grad_phi_q, /*accumulate=*/false);
    Product(grad_denominators, s.normalizer.transpose(), s.grad_phi_q, /*accumulate=*/true);
    s.state_grad.resize(q.cols(), v.cols());
    Product(s.phi_q.transpose(), grad_numerators, s.state_grad, /*accumulate=*/false);  // dL/dstate
    s.normalizer_grad.noalias() = s.phi_q.transpose() * grad_denominators;
    Product(v, s.state_grad.transpose(), s.grad_phi_k, /*accumulate=*/false);
    s.grad_phi_k.rowwise() += s.normalizer_grad.transpose();
    Product(s.phi_k, s.state_grad, dv, /*accumulate=*/false);
  } else {
    // Forward again for the running sums at each i: dL/dphi(q_i) = state_i g_i + z_i dL/dd_i.
    Matrix<T>& grad_numerators = s.grad_numerators;
    Vector<T>& grad_denominators = s.grad_denominators;
    grad_numerators.resize(queries, v.cols());
    grad_denominators.resize(queries);
    s.state.setZero(k.cols(), v.cols());
    s.normalizer.setZero(k.cols());
    for (Eigen::Index i = 0; i < queries; ++i) {
      s.state.noalias() += s.phi_k.row(i).transpose() * v.row(i);
      s.normalizer += s.phi_k.row(i).transpose();
      const T denominator = s.phi_q.row(i).dot(s.normalizer);
      grad_numerators.row(i) = dh.row(i) / denominator;
      grad_denominators(i) = -grad_numerators.row(i).dot(s.phi_q.row(i) * s.state) / denominator;
      s.grad_phi_q.row(i).noalias() = grad_numerators.row(i) * s.state.transpose();
      s.grad_phi_q.row(i) += grad_denominators(i) * s.normalizer.transpose();
    }
    // Then backwards: key j feeds the sums of every query i >= j.
    s.state_grad.setZero(k.cols(), v.cols());
    s.normalizer_grad.setZero(k.cols());
    for (Eigen::Index j = queries - 1; j >= 0; --j) {
      s.state_grad.noalias() += s.phi_q.row(j).transpose() * grad_numerators.row(j);
      s.normalizer_grad += grad_denominators(j) * s.phi_q.row(j).transpose();
      s.grad_phi_k.row(j).noalias() = v.row(j) * s.state_grad.transpose();
      s.grad_phi_k.row(j) += s.normalizer_grad.transpose();
      dv.row(j).noalias() = s.phi_k.row(j) * s.state_grad;
    }
  }
  PhiBackward<T>(k, s.grad_phi_k);
  PhiBackward<T>(q, s.grad_phi_q);
  dk = s.grad_phi_k;
  if (dq != nullptr) {
    *dq = s.grad_phi_q;
  } else {
    dk += s.grad_phi_q;  // symmetric: the queries are the keys
  }
}

template class LinearMechanism<float>;
template class LinearMechanism<double>;

ATTNLAB_REGISTER_MECHANISM("linear", plugins::LinearConfig, LinearMechanism,
                           "linear attention, phi = elu + 1 (Katharopoulos et al. 2020): O(T) "
                           "outputs from key sums, running sums when causal",
                           {});

}  // namespace attnlab
