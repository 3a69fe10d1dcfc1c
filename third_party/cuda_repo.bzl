"""cuda_repo: the CUDA toolkit (nvcc, cudart, cuBLAS) for --config=cuda, found without download.

Looks in $CUDA_PATH, then /usr/local/cuda. Where there is none, the repo still loads (the
default build never uses it) and its nvcc is a script that fails with a message saying so.
"""

def _cuda_repo_impl(rctx):
    root = rctx.os.environ.get("CUDA_PATH", "/usr/local/cuda")
    nvcc = rctx.path(root + "/bin/nvcc")
    if nvcc.exists:
        rctx.symlink(root + "/include", "include")
        # A wrapper, not a symlink: nvcc finds its includes and tools next to its real path.
        rctx.file("bin/nvcc", '#!/bin/sh\nexec "%s" "$@"\n' % nvcc, executable = True)
        lib = root + "/lib64"
        build = rctx.read(rctx.attr.build_file).replace("%{lib}", lib)
    else:
        rctx.file("include/.none", "")
        rctx.file(
            "bin/nvcc",
            "#!/bin/sh\necho 'attnlab: --config=cuda needs the CUDA toolkit (nvcc) at %s or $CUDA_PATH; none found' >&2\nexit 1\n" % root,
            executable = True,
        )
        build = rctx.read(rctx.attr.build_file).replace("%{lib}", root + "/lib64")
    rctx.file("BUILD.bazel", build)
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)

cuda_repo = repository_rule(
    implementation = _cuda_repo_impl,
    local = True,
    environ = ["CUDA_PATH"],
    attrs = {"build_file": attr.label(mandatory = True, allow_single_file = True)},
)
