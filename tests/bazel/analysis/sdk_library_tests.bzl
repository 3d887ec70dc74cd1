"""Analysis tests of the SDK repositories' additions to compiles: ROCm 5's fp16 declarations."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load(":helpers.bzl", _actions = "actions")

def _hip_fp16_compat_test(ctx):
    env = analysistest.begin(ctx)
    compiles = _actions(env, "OffloadCompile") + _actions(env, "OffloadHostCompile")
    asserts.true(env, len(compiles) > 1, "device and host compiles")
    for a in compiles:
        argv = a.argv
        header = [argv[i + 1] for i in range(len(argv) - 1) if argv[i] == "-include"]
        asserts.equals(
            env,
            1,
            len([h for h in header if h.endswith("offload_rocm/offload_compat/hip_fp16.h")]),
            "%s %s force-includes the ROCm repository's fp16 declarations: %s" % (a.mnemonic, argv[-1], header),
        )
        inputs = [f.path for f in a.inputs.to_list() if f.path.endswith("offload_compat/hip_fp16.h")]
        asserts.equals(env, 1, len(inputs), "%s declares the header as an input" % a.mnemonic)
    return analysistest.end(env)

# Clang 22 over ROCm 5.2's headers: every HIP compile (device and host halves)
# force-includes offload_compat/hip_fp16.h, an input of the action.
hip_fp16_compat_test = analysistest.make(_hip_fp16_compat_test)
