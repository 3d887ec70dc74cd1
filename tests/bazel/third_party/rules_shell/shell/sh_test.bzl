"""rules_shell's sh_test for Bazel 4.2: the native rule (offline stand-in)."""

def sh_test(**kwargs):
    native.sh_test(**kwargs)  # buildifier: disable=native-sh-test
