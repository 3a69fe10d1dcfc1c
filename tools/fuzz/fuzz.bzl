"""attnlab_fuzzer: a libFuzzer target and the short fuzz run that tests it."""

def attnlab_fuzzer(name, srcs, deps, corpus, data = [], seconds = 4):
    """A fuzz target `name` (LLVMFuzzerTestOneInput in srcs) and `name`_test.

    With --config=fuzz, `name` is a libFuzzer binary (clang, ASan, UBSan); otherwise it links
    //tools/fuzz:replay_main. `name`_test replays `corpus` (a list of files: seeds and kept
    regressions) and fuzzes from it for `seconds`; `data` are files the target reads.
    """
    native.cc_binary(
        name = name,
        testonly = True,
        srcs = srcs,
        deps = deps + select({
            "//tools/fuzz:libfuzzer": [],
            "//conditions:default": ["//tools/fuzz:replay_main"],
        }),
        linkopts = select({
            "//tools/fuzz:libfuzzer": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
    )
    native.sh_test(
        name = name + "_test",
        size = "small",
        srcs = ["//tools/fuzz:run_fuzzer.sh"],
        args = ["$(location :%s)" % name, str(seconds)] + ["$(location %s)" % f for f in corpus],
        data = [":" + name] + corpus + data,
    )
