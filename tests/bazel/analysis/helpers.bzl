"""Helpers shared by the analysis tests: actions by mnemonic, argument checks."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")

def actions(env, mnemonic):
    """The target under test's actions with this mnemonic."""
    return [a for a in analysistest.target_actions(env) if a.mnemonic == mnemonic]

def count(env, mnemonic, want):
    """Asserts the number of actions with this mnemonic."""
    asserts.equals(env, want, len(actions(env, mnemonic)), "number of %s actions" % mnemonic)

def has(env, argv, arg, what):
    """Asserts that arg is one of argv."""
    if arg not in argv:
        analysistest.fail(env, "%s: %r missing from %r" % (what, arg, argv))
