// The zoo on the two tasks that need no data files (paper 1c's inline data, paper 3's
// generated stream), shortened: every mechanism gets a cell, with a value or the model's reason.
#include "experiments/zoo.h"

#include <cmath>
#include <fstream>
#include <iterator>

#include "attention/mechanism.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

constexpr char kZoo[] = R"pb(
  task {
    label: "1c"
    spec: "max_margin/1c.textproto"
    set: "training.log_step=[]"
    mechanism_config: "model.layer[0].config"
    metric: "p_opt"
  }
  task {
    label: "3a"
    spec: "sparse_selection/3a.textproto"
    set: "optimizer={ plugin: 'gd' lr: 10 }"
    set: "training.log_every=0"
    set: "training.log_step=[]"
    set: "sweep.seed=[0, 1]"
    mechanism_config: "model.layer[0].config"
    metric: "err_T200"
    metric: "mass_on_y"
  }
)pb";

ZooSpec Zoo(const std::string& text = kZoo) {
  ZooSpec zoo;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &zoo));
  return zoo;
}

ZooOptions Options(const std::string& name) {
  ZooOptions options;
  options.out_dir = ::testing::TempDir() + "/" + name;
  options.steps = 60;
  options.progress = false;
  return options;
}

const ZooCell& Find(const std::vector<ZooCell>& cells, const std::string& task,
                    const std::string& metric, const std::string& mechanism) {
  for (const ZooCell& cell : cells) {
    if (cell.task == task && cell.metric == metric && cell.mechanism == mechanism) return cell;
  }
  ADD_FAILURE() << "no cell " << task << " " << metric << " " << mechanism;
  static const ZooCell kNone;
  return kNone;
}

TEST(ZooTest, EveryMechanismGetsAValueOrTheModelsReason) {
  auto cells = RunZoo(Zoo(), "experiments/zoo.textproto", Options("all"));
  ASSERT_TRUE(cells.ok()) << cells.status();
  const std::vector<std::string> mechanisms = MechanismRegistry<double>().Names();
  EXPECT_EQ(cells->size(), 3 * mechanisms.size());
  for (const ZooCell& cell : *cells) {
    SCOPED_TRACE(cell.task + " " + cell.metric + " " + cell.mechanism + ": " + cell.note);
    if (!cell.note.empty()) {
      EXPECT_EQ(cell.note.rfind("n/a: ", 0), 0u);  // no trial failed
      continue;
    }
    EXPECT_TRUE(std::isfinite(cell.mean));
    EXPECT_EQ(cell.seeds, cell.task == "3a" ? 2 : 1);
  }
  // Softmax selects the optimal token of 1c within 60 normalized-GD steps (0.997 at 50).
  EXPECT_GT(Find(*cells, "1c", "p_opt", "softmax").mean, 0.95);
  // The models' reasons, from their spec errors, without the file location.
  const std::string rpc = Find(*cells, "1c", "p_opt", "rpc").note;
  EXPECT_NE(rpc.find("symmetric"), std::string::npos) << rpc;
  EXPECT_EQ(rpc.find(".textproto"), std::string::npos) << rpc;
  const std::string linear = Find(*cells, "3a", "err_T200", "linear").note;
  EXPECT_NE(linear.find("map from scores to weights"), std::string::npos) << linear;
  EXPECT_TRUE(Find(*cells, "3a", "err_T200", "sigmoid").note.empty());

  const std::string table = ZooTable(*cells);
  for (const std::string& name : mechanisms) {
    EXPECT_NE(table.find("\n" + name + " "), std::string::npos) << table;
  }
  EXPECT_NE(table.find("rpc on 1c: n/a: "), std::string::npos) << table;

  const std::string csv = ::testing::TempDir() + "/zoo.csv";
  ASSERT_TRUE(WriteZooCsv(*cells, csv).ok());
  std::ifstream in(csv);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + static_cast<long>(cells->size()));
}

TEST(ZooTest, ZooSpecErrorsNameTheTask) {
  ZooSpec zoo = Zoo();
  zoo.mutable_task(1)->add_metric("no_such_metric");
  auto cells = RunZoo(zoo, "experiments/zoo.textproto", Options("bad_metric"));
  ASSERT_FALSE(cells.ok());
  EXPECT_EQ(cells.status().message().rfind("task 1c", 0), std::string::npos);
  EXPECT_NE(cells.status().message().find("task 3a: metric 'no_such_metric'"), std::string::npos)
      << cells.status();

  zoo = Zoo();
  zoo.add_mechanism("softmx");
  cells = RunZoo(zoo, "experiments/zoo.textproto", Options("bad_mechanism"));
  ASSERT_FALSE(cells.ok());
  EXPECT_NE(cells.status().message().find("unknown 'softmx'"), std::string::npos) << cells.status();

  zoo = Zoo();
  zoo.mutable_task(0)->add_set("training.stepz=3");
  cells = RunZoo(zoo, "experiments/zoo.textproto", Options("bad_set"));
  ASSERT_FALSE(cells.ok());
  EXPECT_NE(cells.status().message().find("task 1c: set training.stepz=3"), std::string::npos)
      << cells.status();
}

TEST(ZooTest, KeepTasksPicksByLabelAndNamesTheKnownOnes) {
  ZooSpec zoo = Zoo();
  ASSERT_TRUE(KeepTasks("3a", &zoo).ok());
  ASSERT_EQ(zoo.task_size(), 1);
  EXPECT_EQ(zoo.task(0).label(), "3a");

  zoo = Zoo();
  ASSERT_TRUE(KeepTasks("", &zoo).ok());
  EXPECT_EQ(zoo.task_size(), 2);

  const absl::Status status = KeepTasks("3a,lm", &zoo);
  EXPECT_EQ(status.message(), "no task 'lm' in the zoo; its tasks: 1c, 3a") << status;
  EXPECT_EQ(zoo.task_size(), 2);  // unchanged on error
  EXPECT_EQ(KeepTasks(",", &zoo).message(), "names no task");
}

}  // namespace
}  // namespace attnlab
