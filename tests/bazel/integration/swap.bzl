"""The swap test's one set of cc_library attributes, given to several rules."""

def swap_library(name, rule, implementation_deps = True, **kwargs):
    """Declares name with rule, the swap attributes and kwargs (targets, kind).

    Bazel 4.2's cc_library has no implementation_deps (implementation_deps =
    False): its swap_impl is a dep.
    """
    if implementation_deps:
        kwargs["implementation_deps"] = [":swap_impl"]
        deps = [":swap_base"]
    else:
        deps = [":swap_base", ":swap_impl"]
    rule(
        name = name,
        srcs = ["swap/swap.cc"],
        hdrs = [
            "swap/api/api.h",
            "swap/api/inc/inc_header.h",
            ":swap_generated",
        ],
        defines = ["API_DEFINE=5"],
        include_prefix = "swap",
        includes = ["swap/api/inc"],
        local_defines = ["LOCAL_ONLY=1"],
        strip_include_prefix = "swap/api",
        textual_hdrs = ["swap/api/table.inc"],
        deps = deps,
        **kwargs
    )
