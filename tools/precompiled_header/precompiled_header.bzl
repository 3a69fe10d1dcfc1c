"""precompiled_header: a header compiled once (GCC's <name>.h.gch) for the C++ files that start
with `-include <package>/<name>.h`, in place of parsing its third-party headers (Eigen, Abseil,
Protocol Buffers, oneTBB, GoogleTest) again in every file. A dependent's flags must equal the
rule's (the build's copts plus `copts`, which mirror the dependent's own): GCC ignores a .gch
made with other macros or target options, but takes one made at another -O level and compiles
the header's functions at that level (cc_rules.bzl gives each set of copts its own). Under clang
(--config=fuzz) the header is parsed as any other.

The header and its .gch are generated into the output tree: GCC takes a .gch only from the
directory where it finds the header, and the source tree would shadow it."""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "CPP_COMPILE_ACTION_NAME")
load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _precompiled_header_impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    deps = cc_common.merge_cc_infos(cc_infos = [dep[CcInfo] for dep in ctx.attr.deps])
    context = deps.compilation_context

    header = ctx.actions.declare_file(ctx.label.name + ".h")
    ctx.actions.symlink(output = header, target_file = ctx.files.hdrs[0])
    headers = [header] + ctx.files.hdrs
    if cc_toolchain.compiler != "clang":  # clang (--config=fuzz) reads no .gch: the header alone
        headers.append(_compile(ctx, cc_toolchain, features, context, header))
    own = cc_common.create_compilation_context(headers = depset(headers))
    return [cc_common.merge_cc_infos(
        direct_cc_infos = [CcInfo(compilation_context = own)],
        cc_infos = [deps],
    )]

def _compile(ctx, cc_toolchain, features, context, header):
    """header.gch, compiled with the toolchain's command for C++ and the build's flags."""
    compiled = ctx.actions.declare_file(ctx.label.name + ".h.gch")
    variables = cc_common.create_compile_variables(
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts +
                             ctx.attr.copts + ["-x", "c++-header"],
        source_file = header.path,
        output_file = compiled.path,
        include_directories = context.includes,
        quote_include_directories = depset(["."], transitive = [context.quote_includes]),
        system_include_directories = context.system_includes,
        preprocessor_defines = context.defines,
    )
    tool = cc_common.get_tool_for_action(
        feature_configuration = features,
        action_name = CPP_COMPILE_ACTION_NAME,
    )
    ctx.actions.run(
        executable = tool,
        arguments = cc_common.get_memory_inefficient_command_line(
            feature_configuration = features,
            action_name = CPP_COMPILE_ACTION_NAME,
            variables = variables,
        ),
        env = cc_common.get_environment_variables(
            feature_configuration = features,
            action_name = CPP_COMPILE_ACTION_NAME,
            variables = variables,
        ),
        inputs = depset(
            [header] + ctx.files.hdrs,
            transitive = [context.headers, cc_toolchain.all_files],
        ),
        outputs = [compiled],
        mnemonic = "CppPrecompileHeader",
        progress_message = "Precompiling %s" % header.short_path,
    )
    return compiled

precompiled_header = rule(
    implementation = _precompiled_header_impl,
    attrs = {
        # The header to compile, then those it includes of our own (a list named hdrs, as
        # code_version's source walk reads them).
        "hdrs": attr.label_list(allow_files = [".h"], allow_empty = False),
        "copts": attr.string_list(),
        "deps": attr.label_list(providers = [CcInfo]),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)

# What libraries.h includes, and testing.h with it.
_LIBRARIES = [
    "@com_google_absl//:status",
    "@com_google_absl//:statusor",
    "@com_google_absl//:strings",
    "@com_google_protobuf//:protobuf",
    "@eigen",
    "@tbb",
]

def libraries_header(name, copts = []):
    """libraries.h precompiled for libraries and binaries compiled with `copts`."""
    precompiled_header(
        name = name,
        hdrs = ["//tools/precompiled_header:libraries.h"],
        copts = copts,
        deps = _LIBRARIES,
    )

def testing_header(name, copts = []):
    """testing.h (libraries.h and GoogleTest) precompiled for tests compiled with `copts`."""
    precompiled_header(
        name = name,
        hdrs = [
            "//tools/precompiled_header:testing.h",
            "//tools/precompiled_header:libraries.h",
        ],
        copts = copts,
        deps = _LIBRARIES + ["@com_google_googletest//:gtest"],
    )
