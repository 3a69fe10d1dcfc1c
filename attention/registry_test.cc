#include "attention/registry.h"

#include "attention/base/field_error.h"
#include "attention/plugin_registry.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "gtest/gtest.h"

namespace attnlab {
namespace {

struct Widget {
  int64_t seconds = 0;
};

Registry<Widget>& Widgets() { return Registry<Widget>::Global("widget"); }

const bool kRegistered = [] {
  Registry<Widget>::Entry entry;
  entry.name = "timed";
  entry.config_type = google::protobuf::Duration::descriptor();
  entry.factory = TypedFactory<Widget, google::protobuf::Duration>(
      [](const google::protobuf::Duration& d) -> absl::StatusOr<std::unique_ptr<Widget>> {
        if (d.seconds() < 0) return FieldError("seconds", "must be >= 0");
        auto w = std::make_unique<Widget>();
        w->seconds = d.seconds();
        return w;
      });
  return Widgets().Register(entry);
}();

TEST(RegistryTest, CreatesWithTypedConfig) {
  ASSERT_TRUE(kRegistered);
  google::protobuf::Duration d;
  d.set_seconds(7);
  google::protobuf::Any any;
  any.PackFrom(d);
  auto widget = Widgets().Create("timed", any);
  ASSERT_TRUE(widget.ok()) << widget.status();
  EXPECT_EQ((*widget)->seconds, 7);
}

TEST(RegistryTest, EmptyConfigMeansDefaults) {
  auto widget = Widgets().Create("timed", google::protobuf::Any());
  ASSERT_TRUE(widget.ok());
  EXPECT_EQ((*widget)->seconds, 0);
}

TEST(RegistryTest, UnknownNameListsKnownNames) {
  auto widget = Widgets().Create("timd", google::protobuf::Any());
  EXPECT_EQ(widget.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(widget.status().message(), "unknown widget plugin 'timd'; known: timed");
}

TEST(RegistryTest, WrongConfigTypeIsAnError) {
  google::protobuf::Any any;
  any.PackFrom(google::protobuf::Timestamp());
  auto widget = Widgets().Create("timed", any);
  EXPECT_EQ(widget.status().message(),
            "widget plugin 'timed' takes config google.protobuf.Duration, got "
            "google.protobuf.Timestamp");
}

TEST(RegistryTest, FactoryErrorsKeepTheirField) {
  google::protobuf::Duration d;
  d.set_seconds(-1);
  google::protobuf::Any any;
  any.PackFrom(d);
  auto widget = Widgets().Create("timed", any);
  EXPECT_EQ(ErrorField(widget.status()), "seconds");
}

TEST(RegistryDeathTest, DuplicateNameAbortsAtStartup) {
  Registry<Widget>::Entry entry;
  entry.name = "timed";
  EXPECT_DEATH(Widgets().Register(entry), "widget plugin 'timed' registered twice");
}

TEST(FieldErrorTest, PrefixesPaths) {
  absl::Status inner = FieldError("p.value", "has 2 entries");
  absl::Status outer = PrefixErrorField("model.layer[0].config", inner);
  EXPECT_EQ(ErrorField(outer), "model.layer[0].config.p.value");
  EXPECT_EQ(outer.message(), "model.layer[0].config.p.value: has 2 entries");
  EXPECT_EQ(ErrorMessageWithoutField(outer), "has 2 entries");
  EXPECT_EQ(ErrorField(PrefixErrorField("model", FieldError("[2].x", "bad"))), "model[2].x");
  // A plain error gets the prefix as its field.
  EXPECT_EQ(ErrorField(PrefixErrorField("optimizer", absl::InvalidArgumentError("bad"))),
            "optimizer");
}

}  // namespace
}  // namespace attnlab
