"""A plugin is one folder under plugins/: its config .proto, its .h/.cc (ending in one
ATTNLAB_REGISTER_* line) and its *_test.cc, and optionally bench.cc. attnlab_plugins() in
plugins/BUILD finds every folder by glob and makes, per folder <f>:

  //plugins:<f>           the plugin's cc_library, always linked whole (its registration is a
                          static initializer nothing refers to: without alwayslink the linker
                          would drop it and the plugin would silently vanish from the registry)
  //plugins:<test>        one cc_test per <f>/<test>.cc
  //plugins:<f>_bench     from <f>/bench.cc, if there is one (bazel run -c opt)

and //plugins:all, every plugin. Nothing outside the folder lists it.
"""

# What a plugin's code may use: the interfaces, registry, kernels (the op-level API) and base.
PLUGIN_DEPS = [
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
    "//solvers:optimizer",
    "@com_google_absl//:statusor",
    "@com_google_absl//:strings",
    "@eigen",
]

TEST_DEPS = [
    "//attention:gradient_check",
    "//attention:mechanism_check",
    "//attention/kernels/cuda:device",
    "@com_google_googletest//:gtest_main",
    "@com_google_protobuf//:protobuf",
    "@tbb",
]

def attnlab_plugins():
    """Every plugin folder's targets, and :all."""
    folders = sorted({path.split("/")[0]: True for path in native.glob(["*/*.cc"])}.keys())

    # One proto library for every plugin's config: a config may embed another plugin's.
    native.proto_library(
        name = "plugin_protos",
        srcs = native.glob(["*/*.proto"]),
        deps = [
            "//attention:model_proto",
            "//datasets:data_file_proto",
            "@com_google_protobuf//:any_proto",
        ],
    )
    native.cc_proto_library(
        name = "plugin_cc_protos",
        deps = [":plugin_protos"],
    )

    # Every plugin's headers, so that a plugin built from others (transformer_block) reaches them.
    native.cc_library(
        name = "plugin_headers",
        hdrs = native.glob(["*/*.h"]),
        deps = [":plugin_cc_protos"] + PLUGIN_DEPS,
    )

    for folder in folders:
        native.cc_library(
            name = folder,
            srcs = native.glob(
                [folder + "/*.cc"],
                exclude = [folder + "/*_test.cc", folder + "/bench.cc"],
            ),
            # -O3: GCC 12 at -O2 leaves small arrays of Eigen packets on the stack.
            copts = ["-O3"],
            alwayslink = 1,
            deps = [":plugin_headers"] + PLUGIN_DEPS,
        )
        for test in native.glob([folder + "/*_test.cc"]):
            native.cc_test(
                name = test[len(folder) + 1:-len(".cc")],
                size = "small",
                srcs = [test],
                deps = [":all", ":plugin_headers"] + PLUGIN_DEPS + TEST_DEPS,
            )
        if native.glob([folder + "/bench.cc"]):
            native.cc_binary(
                name = folder + "_bench",
                srcs = [folder + "/bench.cc"],
                deps = [
                    ":all",
                    ":plugin_headers",
                    "@com_github_google_benchmark//:benchmark",
                ] + PLUGIN_DEPS,
            )

    native.cc_library(
        name = "all",
        deps = [":" + folder for folder in folders],
    )
