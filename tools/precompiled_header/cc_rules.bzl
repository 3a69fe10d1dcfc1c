"""cc_library, cc_test and cc_binary as Bazel's, each C++ file starting with a precompiled
header (precompiled_header.bzl): libraries.h for libraries and binaries, testing.h for tests.
A package's BUILD loads them in place of the native rules; each distinct set of a target's copts
gets its own precompiled header in the package, as a .gch serves only files compiled with its
flags."""

load(
    ":precompiled_header.bzl",
    "libraries_header",
    "precompiled_header_copts",
    "testing_header",
)

def _with_header(kind, kwargs):
    if not kwargs.get("srcs"):
        return kwargs  # nothing to compile
    copts = kwargs.get("copts", [])
    name = "_".join(["precompiled", kind] + [
        "".join([c if c.isalnum() else "_" for c in copt.elems()]).strip("_")
        for copt in copts
    ])
    if native.existing_rule(name) == None:
        make = testing_header if kind == "testing" else libraries_header
        make(name = name, copts = copts)
    kwargs["copts"] = copts + precompiled_header_copts(":" + name)
    kwargs["deps"] = kwargs.get("deps", []) + [":" + name]
    return kwargs

def cc_library(**kwargs):
    native.cc_library(**_with_header("libraries", kwargs))

def cc_binary(**kwargs):
    native.cc_binary(**_with_header("libraries", kwargs))

def cc_test(**kwargs):
    native.cc_test(**_with_header("testing", kwargs))
