"""A plugin is one folder plugins/<kind>/<f>/ (kinds: layers, mechanisms, losses, regularizers,
metrics, datasets, optimizers, schedules): its config .proto, its .h/.cc (ending in one
ATTNLAB_REGISTER_* line) and its *_test.cc, and optionally bench.cc. attnlab_plugins() in
plugins/BUILD finds every folder by glob and makes, per folder <f> (folder names are unique
across kinds):

  //plugins:<f>           the plugin's cc_library, always linked whole (its registration is a
                          static initializer nothing refers to: without alwayslink the linker
                          would drop it and the plugin would silently vanish from the registry)
  //plugins:<f>_proto, <f>_cc_proto   its config messages
  //plugins:<test>        one cc_test per <f>/<test>.cc
  //plugins:<f>_bench     from <f>/bench.cc, if there is one (bazel run -c opt): Google
                          Benchmark's BENCHMARK()s with experiments' main(), which applies the
                          float products as trials run them (--product_backend=)

and //plugins:all, every plugin. Nothing outside the folder lists it, unless it builds other
plugins from their configs (CONFIG_DEPS below).
"""

load("//tools/precompiled_header:cc_rules.bzl", "cc_binary", "cc_library", "cc_test")

# What a plugin's code may use: the interfaces, registry, kernels (the op-level API), base, the
# analysis library and the solvers.
PLUGIN_DEPS = [
    "//attention/analysis:metrics",
    "//attention/analysis:prompt_samples",
    "//attention/analysis:robustness",
    "//attention/analysis:token_selection",
    "//attention:layer",
    "//attention:mechanism",
    "//attention:metric",
    "//attention:registry",
    "//attention:tensor",
    "//attention/base:field_error",
    "//attention/base:status_macros",
    "//attention/kernels",
    "//attention/kernels/cuda:gpu_attention",
    "//datasets:dataset",
    "//datasets:image_files",
    "//datasets:wikitext_tokens",
    "//solvers:max_margin_reference",
    "//solvers:optimizer",
    "//solvers:pcp",
    "//solvers:svm",
    "@com_google_absl//:statusor",
    "@com_google_absl//:strings",
    "@eigen",
]

TEST_DEPS = [
    "//attention:gradient_check",
    "//attention:metric_testing",
    "//attention:layer_testing",
    "//attention:mechanism_check",
    "//attention:optimizer_testing",
    "//attention/kernels/cuda:device",
    "//datasets:dataset_testing",
    "@com_google_googletest//:gtest_main",
    "@com_google_protobuf//:protobuf",
    "@tbb",
]

# The plugin folders whose code builds other plugins from their config messages (a composite
# plugin creates its sublayers through the registry): folder -> those folders. Only their
# config messages are deps, so every folder's code compiles alone.
CONFIG_DEPS = {
    "transformer_block": ["fc_net", "layer_norm"],
}

PROTO_DEPS = [
    "//attention:model_proto",
    "//attention:plugin_field_proto",
    "//datasets:data_file_proto",
    "@com_google_protobuf//:any_proto",
]

def attnlab_plugins():
    """Every plugin folder's targets, and :all."""
    paths = sorted({"/".join(p.split("/")[:2]): True for p in native.glob(["*/*/*.cc"])}.keys())
    with_protos = {p.split("/")[1]: True for p in native.glob(["*/*/*.proto"])}
    path_of = {}
    for path in paths:
        name = path.split("/")[1]
        if name in path_of:
            fail("plugins/%s and plugins/%s: plugin folder names must be unique" %
                 (path_of[name], path))
        path_of[name] = path
    folders = sorted(path_of.keys())

    for folder in folders:
        path = path_of[folder]
        uses = CONFIG_DEPS.get(folder, [])
        own_protos = []
        if folder in with_protos:
            # <folder>_proto and <folder>_cc_proto: the folder's config messages alone.
            native.proto_library(
                name = folder + "_proto",
                srcs = native.glob([path + "/*.proto"]),
                deps = PROTO_DEPS + [":" + used + "_proto" for used in uses if used in with_protos],
            )
            native.cc_proto_library(
                name = folder + "_cc_proto",
                deps = [":" + folder + "_proto"],
            )
            own_protos = [":" + folder + "_cc_proto"]
        cc_library(
            name = folder,
            srcs = native.glob(
                [path + "/*.cc"],
                exclude = [path + "/*_test.cc", path + "/bench.cc"],
            ),
            hdrs = native.glob([path + "/*.h"]),
            # -O3: GCC 12 at -O2 leaves small arrays of Eigen packets on the stack.
            copts = ["-O3"],
            alwayslink = 1,
            deps = own_protos + [":" + used + "_cc_proto" for used in uses] + PLUGIN_DEPS,
        )

        # Tests and benchmarks link every plugin (a mechanism's checks run it in every layer
        # that hosts one), but compile against their folder's headers only: a new folder
        # recompiles nothing else.
        for test in native.glob([path + "/*_test.cc"]):
            cc_test(
                name = test[len(path) + 1:-len(".cc")],
                size = "small",
                srcs = [test],
                data = ["//datasets:testdata"],
                deps = [":all"] + PLUGIN_DEPS + TEST_DEPS,
            )
        if native.glob([path + "/bench.cc"]):
            cc_binary(
                name = folder + "_bench",
                srcs = [path + "/bench.cc"],
                deps = [
                    ":all",
                    "//attention/kernels/cuda:device",
                    "//experiments:benchmark_main",
                    "@com_github_google_benchmark//:benchmark",
                    "@tbb",
                ] + PLUGIN_DEPS,
            )

    cc_library(
        name = "all",
        deps = [":" + folder for folder in folders],
    )
