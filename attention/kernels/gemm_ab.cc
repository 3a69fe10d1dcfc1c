// The GEMM libraries against our own products, on the products our workloads run, one thread,
// float: bazel run -c opt //attention/kernels:gemm_ab
//
// "ours/<backend>" is ParallelProduct as the layers call it (blocks of 128 to 512 columns, or of
// 256 rows where the output is narrow, a small transposed rhs copied row-major, Eigen's GEMM for a
// large one), each block multiplied by one ProductBackend: tiled (TiledProduct), libxsmm (its JIT
// kernel, TiledProduct where it has none), onednn (dnnl_sgemm), chosen (each class's choice, timed
// first: product_choices.h). The others multiply the whole shape in one call: BLIS (bli_sgemm, any
// strides), libxsmm (libxsmm_smmdispatch; n/a where it generates none), oneDNN (dnnl_sgemm) and
// OpenBLAS (cblas_sgemm, loaded with its own kernel choice: the A/B runs with OPENBLAS_CORETYPE and
// OPENBLAS_L2_SIZE removed). Each reports GFLOP/s; run with
// --benchmark_enable_random_interleaving=true --benchmark_repetitions=3 for alternating runs.
// The kernels each library runs are printed first.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "attention/exec_context.h"
#include "attention/kernels/library_product.h"
#include "attention/kernels/parallel_product.h"
#include "attention/kernels/product_choices.h"
#include "attention/kernels/product_timing.h"
#include "benchmark/benchmark.h"
#include "blis/blis.h"
#include "dnnl.h"
#include "libxsmm.h"

namespace attnlab {
namespace {

// C (M x N, row-major) (+)= op(A) op(B), op(A) M x K and op(B) K x N, as a layer computes it.
struct Shape {
  const char* name;  // workload_product
  int m, n, k;
  bool trans_a;      // A stored K x M (a weight gradient's X^T G)
  bool trans_b;      // B stored N x K (a transposed weight, K^T in a head's scores)
  bool accumulate;
  int lda = 0, ldb = 0;  // row strides where not dense: a head's blocks in 64-wide token rows
};

const Shape kShapes[] = {
    {"peak_2048", 2048, 2048, 2048, false, false, false},  // the machine's GEMM peak, this run
    {"vit_projection", 6400, 64, 64, false, false, false},
    {"vit_mlp_up", 6400, 128, 64, false, false, false},
    {"vit_mlp_down", 6400, 64, 128, false, false, false},
    {"vit_input_grad", 6400, 64, 64, false, true, false},
    {"vit_weight_grad", 64, 64, 256, true, false, true},
    {"vit_head_scores", 50, 50, 16, false, true, false, 64, 64},
    {"vit_head_weighted_sum", 50, 16, 50, false, false, false, 0, 64},
    {"vit_head_dv", 50, 16, 50, true, false, false, 0, 64},
    {"lm_projection", 4096, 128, 128, false, false, false},
    {"lm_logits", 512, 33278, 128, false, false, false},
    {"lm_head_weight_grad", 128, 33278, 512, true, false, true},
    {"lm_head_input_grad", 512, 128, 33278, false, false, false},  // W^T copied row-major
    // The LM head's products since it works in vocabulary blocks of 128 words (contiguous).
    {"lm_logits_block", 512, 128, 128, false, false, false},
    {"lm_head_weight_grad_block", 128, 128, 512, true, false, true},
    {"lm_head_input_grad_block", 512, 128, 128, false, false, true},
    {"p3_queries", 256, 170, 200, false, false, false},
    {"p3_keys", 256, 170, 170, false, true, false},
    {"p3_scores", 256, 200, 170, false, true, false},
    {"fc1024_forward", 256, 1024, 1200, false, false, false},
    {"fc1024_weight_grad", 1200, 1024, 256, true, false, true},
};

// The operands of a shape, filled with small values; row strides as the layers have them.
struct Operands {
  explicit Operands(const Shape& s)
      : a_rows(s.trans_a ? s.k : s.m),
        a_cols(s.trans_a ? s.m : s.k),
        b_rows(s.trans_b ? s.n : s.k),
        b_cols(s.trans_b ? s.k : s.n),
        lda(s.lda > 0 ? s.lda : a_cols),
        // TiledProduct reads whole packets.
        ldb(s.ldb > 0 ? s.ldb : int(PaddedColumns<float>(b_cols))),
        a(int64_t(a_rows) * lda),
        b(int64_t(b_rows) * ldb),
        c(int64_t(s.m) * s.n) {
    for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) * 0.125f - 0.375f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) * 0.25f - 0.5f;
  }
  int a_rows, a_cols, b_rows, b_cols;
  int lda, ldb;
  std::vector<float> a, b, c;
};

using RowMap = Eigen::Map<const Matrix<float>, 0, Eigen::OuterStride<>>;

void Ours(const Shape& s, Operands& o, ProductBackend backend) {
  static ExecContext ctx(1, 1);
  SetProductBackend(backend);
  const RowMap a(o.a.data(), o.a_rows, o.a_cols, Eigen::OuterStride<>(o.lda));
  const RowMap b(o.b.data(), o.b_rows, o.b_cols, Eigen::OuterStride<>(o.ldb));
  Eigen::Map<Matrix<float>> c(o.c.data(), s.m, s.n);
  if (s.trans_a && s.trans_b) {
    ParallelProduct(ctx, a.transpose(), b.transpose(), c, s.accumulate);
  } else if (s.trans_a) {
    ParallelProduct(ctx, a.transpose(), b, c, s.accumulate);
  } else if (s.trans_b) {
    ParallelProduct(ctx, a, b.transpose(), c, s.accumulate);
  } else {
    ParallelProduct(ctx, a, b, c, s.accumulate);
  }
}

void Blis(const Shape& s, Operands& o) {
  float one = 1, beta = s.accumulate ? 1 : 0;
  // Row-major storage as BLIS strides: element (i, j) of A at i * lda + j.
  bli_sgemm(s.trans_a ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE,
            s.trans_b ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, s.m, s.n, s.k, &one, o.a.data(), o.lda,
            1, o.b.data(), o.ldb, 1, &beta, o.c.data(), s.n, 1);
}

void OneDnn(const Shape& s, Operands& o) {
  dnnl_sgemm(s.trans_a ? 'T' : 'N', s.trans_b ? 'T' : 'N', s.m, s.n, s.k, 1.0f, o.a.data(), o.lda,
             o.b.data(), o.ldb, s.accumulate ? 1.0f : 0.0f, o.c.data(), s.n);
}

// libxsmm is column-major: row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
libxsmm_smmfunction XsmmKernel(const Shape& s, const Operands& o) {
  const libxsmm_blasint m = s.n, n = s.m, k = s.k, lda = o.ldb, ldb = o.lda, ldc = s.n;
  const float alpha = 1, beta = s.accumulate ? 1 : 0;
  const int flags = (s.trans_b ? LIBXSMM_GEMM_FLAG_TRANS_A : 0) |
                    (s.trans_a ? LIBXSMM_GEMM_FLAG_TRANS_B : 0);
  return libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, nullptr);
}

using CblasSgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*,
                            int, float, float*, int);
CblasSgemm openblas_sgemm = nullptr;
const char* openblas_core = "not loaded";

void OpenBlas(const Shape& s, Operands& o) {
  constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
  openblas_sgemm(kRowMajor, s.trans_a ? kTrans : kNoTrans, s.trans_b ? kTrans : kNoTrans, s.m, s.n,
                 s.k, 1.0f, o.a.data(), o.lda, o.b.data(), o.ldb, s.accumulate ? 1.0f : 0.0f,
                 o.c.data(), s.n);
}

void BM_Gemm(benchmark::State& state, const Shape& s,
             const std::function<void(const Shape&, Operands&)>& product) {
  Operands o(s);
  product(s, o);
  for (auto _ : state) {
    product(s, o);
    benchmark::DoNotOptimize(o.c.data());
    benchmark::ClobberMemory();
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * s.m * s.n * s.k * state.iterations(),
                                                 benchmark::Counter::kIsRate,
                                                 benchmark::Counter::kIs1000);
}

void Register() {
  for (const Shape& s : kShapes) {
    auto add = [&](const char* library, std::function<void(const Shape&, Operands&)> product) {
      benchmark::RegisterBenchmark(absl::StrCat("BM_Gemm/", s.name, "/", library).c_str(),
                                   [&s, product](benchmark::State& st) { BM_Gemm(st, s, product); })
          ->Unit(benchmark::kMicrosecond);
    };
    for (ProductBackend backend : {ProductBackend::kTiled, ProductBackend::kLibxsmm,
                                   ProductBackend::kOneDnn, ProductBackend::kChosen}) {
      add(absl::StrCat("ours/", ProductBackendName(backend)).c_str(),
          [backend](const Shape& shape, Operands& ops) { Ours(shape, ops, backend); });
    }
    add("blis", Blis);
    add("onednn", OneDnn);
    if (openblas_sgemm != nullptr) add("openblas", OpenBlas);
    Operands o(s);
    if (libxsmm_smmfunction kernel = XsmmKernel(s, o)) {
      add("libxsmm", [kernel](const Shape& shape, Operands& ops) {
        kernel(ops.b.data(), ops.a.data(), ops.c.data());
      });
    } else {
      std::fprintf(stderr, "libxsmm: no kernel for %s\n", s.name);
    }
  }
}

void LoadOpenBlas() {
  // OpenBLAS picks its kernels when it loads: without the environment's Haswell override.
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv("OPENBLAS_L2_SIZE");
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  void* handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (handle == nullptr) return;
  openblas_sgemm = reinterpret_cast<CblasSgemm>(dlsym(handle, "cblas_sgemm"));
  auto corename = reinterpret_cast<const char* (*)()>(dlsym(handle, "openblas_get_corename"));
  if (corename != nullptr) openblas_core = corename();
}

const char* OneDnnIsa() {
  switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return "other";
  }
}

}  // namespace
}  // namespace attnlab

int main(int argc, char** argv) {
  // oneDNN's and BLIS's OpenMP runtime reads its thread count when it loads, before main: run
  // again with one thread set.
  const char* omp_threads = getenv("OMP_NUM_THREADS");
  if (omp_threads == nullptr || std::string(omp_threads) != "1") {
    setenv("OMP_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
    std::perror("gemm_ab: cannot run itself again with OMP_NUM_THREADS=1");
    return 1;
  }
  bli_thread_set_num_threads(1);
  libxsmm_init();
  attnlab::LoadOpenBlas();
  std::fprintf(stderr, "kernels: BLIS %s, libxsmm %s, oneDNN %s, OpenBLAS %s, ours packets of %d "
               "floats\n",
               bli_arch_string(bli_arch_query_id()), libxsmm_get_target_arch(),
               attnlab::OneDnnIsa(), attnlab::openblas_core, attnlab::kPacketSize<float>);
  // ours/chosen: the classes' choices timed here, as a program's first run on this CPU would.
  const std::vector<attnlab::ProductClassTiming> timings = attnlab::TimeProductClasses(5);
  std::fprintf(stderr, "%s", attnlab::ProductTimingsTable(timings).c_str());
  attnlab::SetProductChoices(attnlab::ChoicesOf(timings));
  attnlab::Register();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  libxsmm_finalize();
  return 0;
}
