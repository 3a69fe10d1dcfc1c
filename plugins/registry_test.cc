// Walks the whole registry: the registered names are exactly those the plugin folders declare,
// and every plugin passes the same conformance and gradient suite with its default config and
// with each example config it registered.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "attention/attention_layer.h"
#include "attention/gradient_check.h"
#include "attention/mechanism_check.h"
#include "attention/metric.h"
#include "attention/metric_testing.h"
#include "attention/plugin_registry.h"
#include "datasets/dataset_plugin.h"
#include "datasets/fixed_dataset.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "solvers/optimizer_registry.h"
#include "solvers/schedule.h"
#include "tbb/task_arena.h"

namespace attnlab {
namespace {

// The names the plugin folders register: every ATTNLAB_REGISTER_<KIND>("name", ...) in
// plugins/<kind>/<folder>/*.cc (the test's data), per kind. A plugin that compiled but did not link
// (or registered under another name) shows as a difference.
std::map<std::string, std::set<std::string>> DeclaredNames() {
  static const std::set<std::string> kKinds = {"LAYER",       "LOSS",      "CONFIGURED_LOSS",
                                               "REGULARIZER", "MECHANISM", "METRIC",
                                               "DATASET",     "OPTIMIZER", "SCHEDULE"};
  const std::string prefix = "ATTNLAB_REGISTER_";
  std::map<std::string, std::set<std::string>> names;
  for (const auto& file : std::filesystem::recursive_directory_iterator("plugins")) {
    if (file.path().extension() != ".cc") continue;
    std::ifstream in(file.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // KIND("name": the kind up to the parenthesis, then blanks, then the quoted name.
    for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
      const size_t open = text.find('(', at);
      if (open == std::string::npos) break;
      const std::string kind = text.substr(at + prefix.size(), open - at - prefix.size());
      const size_t quote = text.find_first_not_of(" \t\n", open + 1);
      if (kKinds.count(kind) == 0 || quote == std::string::npos || text[quote] != '"') continue;
      const size_t end = text.find('"', quote + 1);
      if (end == std::string::npos) break;
      names[kind == "CONFIGURED_LOSS" ? "LOSS" : kind].insert(
          text.substr(quote + 1, end - quote - 1));
    }
  }
  return names;
}

template <typename Product>
std::set<std::string> Names(const Registry<Product>& registry) {
  const std::vector<std::string> names = registry.Names();
  return {names.begin(), names.end()};
}

TEST(PluginRegistryTest, RegisteredNamesEqualTheDeclaredOnes) {
  std::map<std::string, std::set<std::string>> declared = DeclaredNames();
  EXPECT_GE(declared["LAYER"].size(), 9u);  // the scan found the plugin sources
  EXPECT_EQ(Names(LayerRegistry<double>()), declared["LAYER"]);
  EXPECT_EQ(Names(LayerRegistry<float>()), declared["LAYER"]);
  EXPECT_EQ(Names(LossRegistry<double>()), declared["LOSS"]);
  EXPECT_EQ(Names(LossRegistry<float>()), declared["LOSS"]);
  EXPECT_EQ(Names(RegularizerRegistry<double>()), declared["REGULARIZER"]);
  EXPECT_EQ(Names(RegularizerRegistry<float>()), declared["REGULARIZER"]);
  EXPECT_EQ(Names(MechanismRegistry<double>()), declared["MECHANISM"]);
  EXPECT_EQ(Names(MechanismRegistry<float>()), declared["MECHANISM"]);
  EXPECT_EQ(Names(MetricRegistry<double>()), declared["METRIC"]);
  EXPECT_EQ(Names(MetricRegistry<float>()), declared["METRIC"]);
  EXPECT_EQ(Names(DatasetRegistry<double>()), declared["DATASET"]);
  EXPECT_EQ(Names(DatasetRegistry<float>()), declared["DATASET"]);
  EXPECT_EQ(Names(OptimizerRegistry<double>()), declared["OPTIMIZER"]);
  EXPECT_EQ(Names(OptimizerRegistry<float>()), declared["OPTIMIZER"]);
}

// The registered examples, packed as the spec would; the default config (empty Any) for a
// plugin without examples.
template <typename Entry>
std::vector<google::protobuf::Any> Configs(const Entry& entry) {
  std::vector<google::protobuf::Any> configs;
  if (entry.examples.empty()) configs.emplace_back();
  google::protobuf::DynamicMessageFactory factory;
  for (const std::string& text : entry.examples) {
    std::unique_ptr<google::protobuf::Message> message(
        factory.GetPrototype(entry.config_type)->New());
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, message.get()))
        << entry.name << ": example does not parse: " << text;
    google::protobuf::Any any;
    any.set_type_url("type.googleapis.com/" + entry.config_type->full_name());
    any.set_value(message->SerializeAsString());
    configs.push_back(any);
  }
  return configs;
}

// The input a layer takes: random reals [3, 5, 4], or, for layers that read token ids,
// [3, 5, 1] ids in 0..2; the first that Setup and CheckInputValues accept.
template <typename T>
absl::StatusOr<Tensor<double>> ConformanceInput(const std::string& name,
                                                const google::protobuf::Any& config) {
  Tensor<double> reals({3, 5, 4}), ids({3, 5, 1});
  reals.flat().setRandom();
  for (Eigen::Index i = 0; i < ids.size(); ++i) ids.data()[i] = static_cast<double>(i % 3);
  for (const Tensor<double>* input : {&reals, &ids}) {
    auto layer = LayerRegistry<double>().Create(name, config);
    if (!layer.ok()) return layer.status();
    ExecContext ctx(3);
    if ((*layer)->Setup(input->shape(), ctx).ok() && (*layer)->CheckInputValues(*input).ok()) {
      return *input;
    }
  }
  return absl::InvalidArgumentError("takes neither [3, 5, 4] reals nor [3, 5, 1] token ids");
}

// A layer whose output has its input's shape can sit in a residual connection: ForwardAdd is
// Forward plus the residual, BackwardAdd is Backward plus the residual's gradient, with the
// same parameter gradients (whether the layer fuses the sums or takes the defaults).
void CheckResidualVariants(Layer<double>& layer, const Tensor<double>& x, ExecContext& ctx) {
  SCOPED_TRACE("ForwardAdd and BackwardAdd");
  Tensor<double> residual(x.shape()), grad_out(x.shape()), grad_residual(x.shape());
  residual.flat().setRandom();
  grad_out.flat().setRandom();
  grad_residual.flat().setRandom();
  Tensor<double> out, grad_in;
  layer.Forward(x, &out, ctx);
  layer.Backward(grad_out, &grad_in, ctx);
  std::vector<Matrix<double>> grads;
  for (Parameter<double>* p : layer.parameters()) grads.push_back(p->grad);
  Tensor<double> out_add, grad_in_add;
  layer.ForwardAdd(x, residual, &out_add, ctx);
  layer.BackwardAdd(grad_out, grad_residual, &grad_in_add, ctx);
  EXPECT_LT((out_add.flat() - out.flat() - residual.flat()).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LT((grad_in_add.flat() - grad_in.flat() - grad_residual.flat()).cwiseAbs().maxCoeff(),
            1e-12);
  const std::vector<Parameter<double>*> params = layer.parameters();
  for (size_t k = 0; k < params.size(); ++k) {
    EXPECT_LT((params[k]->grad - grads[k]).cwiseAbs().maxCoeff(), 1e-12) << params[k]->name;
  }
}

TEST(PluginRegistryTest, EveryLayerPassesConformanceAndGradientChecks) {
  for (const std::string& name : LayerRegistry<double>().Names()) {
    const auto& entry = *LayerRegistry<double>().Find(name);
    for (const google::protobuf::Any& config : Configs(entry)) {
      SCOPED_TRACE(name + " " + config.ShortDebugString());
      auto input_or = ConformanceInput<double>(name, config);
      ASSERT_TRUE(input_or.ok()) << input_or.status();
      const Tensor<double>& x = *input_or;
      const Shape input = x.shape();
      auto layer = LayerRegistry<double>().Create(name, config);
      auto layer_f = LayerRegistry<float>().Create(name, config);
      ASSERT_TRUE(layer.ok()) << layer.status();
      ASSERT_TRUE(layer_f.ok()) << layer_f.status();
      ExecContext ctx(3), ctx_f(3);  // same seed: same random init, same draws
      auto shape = (*layer)->Setup(input, ctx);
      ASSERT_TRUE(shape.ok()) << shape.status();
      ASSERT_TRUE((*layer_f)->Setup(input, ctx_f).ok());
      EXPECT_EQ(shape->batch, input.batch);

      Tensor<double> out;
      (*layer)->Forward(x, &out, ctx);
      EXPECT_EQ(out.shape(), *shape);
      EXPECT_TRUE(out.flat().allFinite());
      // Same seed, same parameters: float agrees with double.
      Tensor<float> xf(input), out_f;
      xf.flat() = x.flat().cast<float>();
      (*layer_f)->Forward(xf, &out_f, ctx_f);
      EXPECT_LT((out.flat().cast<float>() - out_f.flat()).cwiseAbs().maxCoeff(), 1e-4);

      if (AttentionLayer<double>* attention = (*layer)->AsAttention()) {
        const Tensor<double>& probs = attention->attention();
        EXPECT_EQ(probs.batch(), input.batch * attention->heads());
        EXPECT_LT((probs.flat().rowwise().sum().array() - 1).abs().maxCoeff(), 1e-12);
        EXPECT_GE(probs.flat().minCoeff(), 0.0);
        const Matrix<double> m = attention->QueryKeyMatrix(0);
        EXPECT_EQ(m.rows(), m.cols());
      }
      absl::Status gradients = CheckLayerGradients(**layer, x);
      EXPECT_TRUE(gradients.ok()) << gradients;
      if (*shape == input) CheckResidualVariants(**layer, x, ctx);
    }
  }
}

// Every mechanism, with its default config and each registered example, in every layer form it
// accepts (attention/mechanism_check.h).
TEST(PluginRegistryTest, EveryMechanismPassesItsChecksInEveryLayer) {
  EXPECT_GE(MechanismRegistry<double>().Names().size(), 2u);
  for (const std::string& name : MechanismRegistry<double>().Names()) {
    std::vector<std::string> configs = MechanismRegistry<double>().Find(name)->examples;
    configs.push_back("");
    for (const std::string& config : configs) {
      absl::Status status = CheckMechanismInEveryLayer(name, config);
      EXPECT_TRUE(status.ok()) << name << " {" << config << "}: " << status;
    }
  }
}

// Losses take one score per sample with a +-1 label, or [batch, T, d] hidden states with token
// ids in 0..2 (language model heads); each is checked on what it accepts.
TEST(PluginRegistryTest, EveryLossPassesItsGradientCheck) {
  for (const std::string& name : LossRegistry<double>().Names()) {
    const auto& entry = *LossRegistry<double>().Find(name);
    for (const google::protobuf::Any& config : Configs(entry)) {
      SCOPED_TRACE(name + " " + config.ShortDebugString());
      Tensor<double> scores({4, 1, 1}), labels({4, 1, 1}), hidden({2, 3, 4}), ids({2, 3, 1});
      scores.flat().setRandom();
      labels.flat() << 1, -1, 1, -1;
      hidden.flat().setRandom();
      ids.flat() << 0, 2, 1, 1, 0, 2;
      bool checked = false;
      for (auto [prediction, target] : {std::pair{&scores, &labels}, std::pair{&hidden, &ids}}) {
        auto loss = LossRegistry<double>().Create(name, config);
        ASSERT_TRUE(loss.ok()) << loss.status();
        ExecContext ctx(1);
        if (!(*loss)->Setup(prediction->shape(), target->shape(), ctx).ok() ||
            !(*loss)->CheckTargetValues(*target).ok()) {
          continue;
        }
        absl::Status status = CheckLossGradient(**loss, *prediction, *target);
        EXPECT_TRUE(status.ok()) << status;
        checked = true;
      }
      EXPECT_TRUE(checked) << "takes neither scores with labels nor hidden states with ids";
    }
  }
}

// Calls check<double> and check<float> on every registered example of every plugin of a
// registry (at least one plugin).
template <template <typename> class Base, typename Check>
void CheckEveryExample(Registry<Base<double>>& registry, const Check& check) {
  EXPECT_GE(registry.Names().size(), 1u) << registry.kind();
  for (const std::string& name : registry.Names()) {
    for (const google::protobuf::Any& config : Configs(*registry.Find(name))) {
      SCOPED_TRACE(name + " " + config.ShortDebugString());
      check(name, config, double{});
      check(name, config, float{});
    }
  }
}

// Metrics are checked on three models, each after a training step on random data, each with an
// attention layer named "attn" that metric examples name: multi-head attention (2 heads) under
// the squared loss, with a validation set "valid" and a marked input column; paper 1's prompt
// layer under the logistic loss; and attention under a classifier (cross-entropy, class ids),
// with a validation set "valid".
// Entries in (-1, 1) from a fixed formula: the same data whatever ran before (Eigen's setRandom
// reads the process's rand() stream).
template <typename T>
void FillFixed(Tensor<T>* tensor, double phase) {
  for (Eigen::Index i = 0; i < tensor->size(); ++i) {
    tensor->data()[i] = static_cast<T>(std::sin(0.7 * double(i) + phase));
  }
}

template <typename T>
std::vector<MetricTestModel<T>> MetricConformanceModels() {
  std::vector<MetricTestModel<T>> models;
  Batch<T> train{Tensor<T>(Shape{3, 5, 4}), Tensor<T>(Shape{3, 5, 4})};
  FillFixed(&train.inputs, 0.1);
  FillFixed(&train.targets, 0.2);
  for (int s = 0; s < 3; ++s) {
    for (int t = 0; t < 5; ++t) train.inputs.sample(s)(t, 3) = (s + t) % 2;  // marks
  }
  models.push_back(BuildMetricTestModel<T>(R"pb(
    layer {
      name: "attn"
      plugin: "attention"
      config {
        [type.googleapis.com/attnlab.plugins.AttentionConfig] {
          heads: 2 qk_dim: 2 value_dim: 2 output_dim: 4
        }
      }
    }
    loss { plugin: "squared" })pb", train));
  models.back().validation.push_back({"valid", train});
  models.back().marked_column = 3;

  // Each sequence's first-scoring token under v leads on the first coordinate: an ATT-SVM
  // exists.
  Batch<T> sequences{Tensor<T>(Shape{4, 3, 3}), Tensor<T>(Shape{4, 1, 1})};
  sequences.inputs.flat() << 1.0, 0.1, 0.0, 0.0, 1.0, 0.2, 0.1, 0.0, 1.0,  //
      0.0, 1.0, 0.1, 1.2, 0.0, 0.3, 0.2, 0.1, 1.0,                        //
      0.1, 0.2, 1.0, 0.0, 1.1, 0.0, 0.9, 0.3, 0.1,                        //
      1.1, 0.0, 0.2, 0.2, 0.2, 1.1, 0.0, 0.9, 0.0;
  sequences.targets.flat() << 1, 1, 1, 1;
  models.push_back(BuildMetricTestModel<T>(R"pb(
    layer {
      name: "attn"
      plugin: "prompt"
      config {
        [type.googleapis.com/attnlab.plugins.PromptAttentionConfig] {
          p { value: [ 0.5, -0.2, 0.1 ] }
          v { value: [ 1, 0.5, -0.3 ] }
        }
      }
    }
    loss { plugin: "logistic" })pb", sequences));

  Batch<T> images{Tensor<T>(Shape{6, 5, 4}), Tensor<T>(Shape{6, 1, 1})};
  FillFixed(&images.inputs, 0.3);
  images.targets.flat() << 0, 1, 2, 0, 1, 2;
  models.push_back(BuildMetricTestModel<T>(R"pb(
    layer {
      name: "attn"
      plugin: "attention"
      config {
        [type.googleapis.com/attnlab.plugins.AttentionConfig] {
          heads: 2 output_dim: 4 symmetric: true  # for metrics of symmetric heads (PAP's)
        }
      }
    }
    layer {
      plugin: "classifier"
      config { [type.googleapis.com/attnlab.plugins.ClassifierConfig] { classes: 3 } }
    }
    loss { plugin: "cross_entropy" })pb", images));
  models.back().validation.push_back({"valid", images});

  // Paper 4's authors' attention, standardized queries and keys, for the metrics that read it.
  models.push_back(BuildMetricTestModel<T>(R"pb(
    layer {
      name: "attn"
      plugin: "attention"
      config {
        [type.googleapis.com/attnlab.plugins.AttentionConfig] {
          heads: 2 qk_dim: 2 value_dim: 2 output_dim: 4 mechanism: "standardized_softmax"
        }
      }
    }
    loss { plugin: "squared" })pb", train));
  for (MetricTestModel<T>& built : models) {
    ExecContext ctx(1);
    built.model->TrainStep(built.train.inputs, built.train.targets, ctx);
  }
  return models;
}

// Every example sets up on one of the conformance models, and evaluates there to a finite
// number that a second evaluation repeats (a metric reads the model, it does not change it),
// in float and double. A metric of metrics combines finite values into a finite one. A model
// refuses a metric at Setup, or at its first evaluation with FailedPrecondition (a layer whose
// weights are not the kind the metric reads).
template <typename T>
void CheckMetric(const std::string& name, const google::protobuf::Any& config) {
  std::vector<MetricTestModel<T>> models = MetricConformanceModels<T>();
  std::string refusals;
  for (MetricTestModel<T>& built : models) {
    auto metric = MetricRegistry<T>().Create(name, config);
    ASSERT_TRUE(metric.ok()) << metric.status();
    absl::Status setup = (*metric)->Setup(built.Context({"loss", "other"}));
    if (!setup.ok()) {
      absl::StrAppend(&refusals, "; ", setup.message());
      continue;
    }
    if (!(*metric)->inputs().empty()) {
      EXPECT_TRUE(std::isfinite((*metric)->Combine(std::vector<double>(
          (*metric)->inputs().size(), 2.0))));
      return;
    }
    absl::StatusOr<double> first = (*metric)->Evaluate(*built.model, built.train);
    if (absl::IsFailedPrecondition(first.status())) {
      absl::StrAppend(&refusals, "; ", first.status().message());
      continue;
    }
    absl::StatusOr<double> second = (*metric)->Evaluate(*built.model, built.train);
    ASSERT_TRUE(first.ok()) << first.status();
    ASSERT_TRUE(second.ok()) << second.status();
    EXPECT_TRUE(std::isfinite(*first)) << *first;
    EXPECT_EQ(*first, *second);
    return;
  }
  ADD_FAILURE() << "sets up on none of the conformance models" << refusals;
}

TEST(PluginRegistryTest, EveryMetricEvaluatesOnAConformanceModel) {
  for (const std::string& name : MetricRegistry<double>().Names()) {
    EXPECT_FALSE(MetricRegistry<double>().Find(name)->examples.empty())
        << name << ": register an example config for layer 'attn'";
  }
  CheckEveryExample<Metric>(MetricRegistry<double>(),
                            [](const auto& name, const auto& config, auto tag) {
                              CheckMetric<decltype(tag)>(name, config);
                            });
}

// A batch has the dataset's sample shape, finite entries, and depends on the random stream's
// seed, not on the thread count.
template <typename T>
void CheckDataset(const std::string& name, const google::protobuf::Any& config) {
  auto dataset = DatasetRegistry<T>().Create(name, config);
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  absl::Status setup = (*dataset)->Setup({"", /*seed=*/1});
  ASSERT_TRUE(setup.ok()) << setup;
  const Shape in = (*dataset)->input_shape(), target = (*dataset)->target_shape();
  ASSERT_GT(in.batch * in.rows * in.cols, 0);
  ASSERT_GT(target.batch * target.rows * target.cols, 0);
  Batch<T> one, two;
  ExecContext one_thread(7, 1), two_threads(7, 2);
  (*dataset)->Next(4, one_thread, &one);
  (*dataset)->Next(4, two_threads, &two);
  EXPECT_EQ(one.inputs.shape(),
            (Shape{std::min(4, (*dataset)->train() ? in.batch : 4), in.rows, in.cols}));
  EXPECT_EQ(one.targets.rows(), target.rows);
  EXPECT_EQ(one.targets.cols(), target.cols);
  EXPECT_TRUE(one.inputs.flat().allFinite());
  EXPECT_TRUE(one.targets.flat().allFinite());
  EXPECT_EQ(one.inputs.flat(), two.inputs.flat());
  EXPECT_EQ(one.targets.flat(), two.targets.flat());
  for (const NamedBatch<T>& set : (*dataset)->validation()) {
    EXPECT_EQ(set.batch.inputs.cols(), in.cols) << set.name;
    EXPECT_EQ(set.batch.targets.cols(), target.cols) << set.name;
  }
}

TEST(PluginRegistryTest, EveryDatasetDrawsBatchesOfItsShape) {
  CheckEveryExample<DatasetPlugin>(DatasetRegistry<double>(),
                                   [](const auto& name, const auto& config, auto tag) {
                                     CheckDataset<decltype(tag)>(name, config);
                                   });
}

// Steps on f(x) = 1/2 ||x||^2 (gradient x) from a fixed x0 with a small rate lower f, and a
// checkpoint taken after 3 steps continues as the uninterrupted optimizer does, bit for bit.
template <typename T>
void CheckOptimizer(const std::string& name, const google::protobuf::Any& config) {
  auto make = [&]() {
    auto optimizer = OptimizerRegistry<T>().Create(name, config);
    EXPECT_TRUE(optimizer.ok()) << optimizer.status();
    (*optimizer)->UseRate(0.01);
    return std::move(*optimizer);
  };
  Parameter<T> x;
  x.name = "x";
  x.value = Matrix<T>(3, 4);
  for (Eigen::Index i = 0; i < x.value.size(); ++i) x.value.data()[i] = static_cast<T>(i % 5) - 2;
  const T f0 = x.value.squaredNorm();
  ExecContext ctx(1);
  auto steps = [&](Optimizer<T>& optimizer, Parameter<T>& p, int from, int to) {
    for (int step = from; step < to; ++step) {
      p.grad = p.value;
      optimizer.Step({&p}, step, ctx);
    }
  };
  auto uninterrupted = make();
  steps(*uninterrupted, x, 0, 3);
  EXPECT_LT(x.value.squaredNorm(), f0);
  StateWriter writer;
  uninterrupted->SaveState(&writer);
  Parameter<T> resumed_x = x;
  auto resumed = make();
  StateReader reader(writer.bytes(), "optimizer state");
  absl::Status restored = resumed->RestoreState({&resumed_x}, &reader);
  ASSERT_TRUE(restored.ok()) << restored;
  steps(*uninterrupted, x, 3, 6);
  steps(*resumed, resumed_x, 3, 6);
  EXPECT_EQ(x.value, resumed_x.value);

  // Updates are element-wise in blocks split over the threads: two threads give one's bits, for
  // a parameter of many blocks with a partial last one.
  std::vector<Parameter<T>> runs(2);
  for (int threads = 1; threads <= 2; ++threads) {
    Parameter<T>& p = runs[threads - 1];
    p.name = "big";
    p.value = Matrix<T>(1024 * 70 + 3, 1);
    for (Eigen::Index i = 0; i < p.value.size(); ++i) {
      p.value.data()[i] = static_cast<T>(std::sin(0.37 * double(i)));
    }
    ExecContext threaded(1, threads);
    tbb::task_arena arena(threads);
    auto optimizer = make();
    arena.execute([&] {
      for (int step = 0; step < 3; ++step) {
        p.grad = p.value;
        optimizer->Step({&p}, step, threaded);
      }
    });
  }
  EXPECT_TRUE(runs[0].value == runs[1].value) << "1 and 2 threads differ";
}

TEST(PluginRegistryTest, EveryOptimizerDescendsResumesAndIgnoresThreads) {
  CheckEveryExample<Optimizer>(OptimizerRegistry<double>(),
                               [](const auto& name, const auto& config, auto tag) {
                                 CheckOptimizer<decltype(tag)>(name, config);
                               });
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// A schedule's factor is finite and positive at every step, under its default config or each
// example.
TEST(PluginRegistryTest, EveryScheduleGivesPositiveFactors) {
  Registry<Schedule>& registry = ScheduleRegistry();
  EXPECT_EQ(Names(registry), DeclaredNames()["SCHEDULE"]);
  for (const std::string& name : registry.Names()) {
    for (const google::protobuf::Any& config : Configs(*registry.Find(name))) {
      SCOPED_TRACE(name + " " + config.ShortDebugString());
      auto schedule = registry.Create(name, config);
      ASSERT_TRUE(schedule.ok()) << schedule.status();
      for (int64_t step = 0; step <= 100; ++step) {
        const double factor = (*schedule)->Factor(step);
        EXPECT_TRUE(std::isfinite(factor) && factor > 0) << "step " << step << ": " << factor;
      }
    }
  }
}

}  // namespace
}  // namespace attnlab
