package llvmtest

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// OracleEnv names the environment variable that picks the LLVM release
// whose tools the cross-checks run as the oracle, by major version: unset
// or "22", Debian 12's LLVM 22.1.8, which the drop-ins follow; "23", LLVM
// 23 (Debian sid's llvm-23, run in scripts/sid.sh's chroot). The tools are
// found by their Debian names, name-<major>, on PATH.
const OracleEnv = "OFFLOAD_LLVM_ORACLE"

// DefaultOracleMajor is the LLVM release the drop-ins follow.
const DefaultOracleMajor = 22

// oracleMajor is OracleEnv's value, read once: every test of a binary runs
// against one release.
var oracleMajor = readOracleMajor()

func readOracleMajor() int {
	v := os.Getenv(OracleEnv)
	if v == "" {
		return DefaultOracleMajor
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < DefaultOracleMajor || n > 99 {
		// A typo must not run the cross-checks against another release
		// while the suite reports them.
		fmt.Fprintf(os.Stderr, "%s=%q: want a major version of LLVM from %d, e.g. 23\n", OracleEnv, v, DefaultOracleMajor)
		os.Exit(2)
	}
	return n
}

// OracleMajor is the major version of the oracle LLVM (OracleEnv).
func OracleMajor() int { return oracleMajor }

// Oracle is name as Debian installs the oracle LLVM's copy of it:
// Oracle("clang-offload-bundler") is "clang-offload-bundler-22", or
// "clang-offload-bundler-23" with OFFLOAD_LLVM_ORACLE=23.
func Oracle(name string) string {
	return fmt.Sprintf("%s-%d", name, oracleMajor)
}

// Difference ends a cross-check whose oracle answers otherwise from LLVM
// release since on than the release the drop-ins follow: it skips, naming
// the difference and the test that pins the newer release's answer
// (docs/compatibility.md lists them). With the default oracle it does
// nothing.
func Difference(t testing.TB, since int, what, pinnedBy string) {
	t.Helper()
	if oracleMajor >= since && oracleMajor > DefaultOracleMajor {
		t.Skipf("LLVM %d answers otherwise than LLVM %d here: %s (pinned by %s; docs/compatibility.md, \"LLVM 23\")", oracleMajor, DefaultOracleMajor, what, pinnedBy)
	}
}

// NeedOracleFrom skips a test that pins the answer of LLVM release major
// or later unless the oracle is such a release (OFFLOAD_LLVM_ORACLE).
func NeedOracleFrom(t testing.TB, major int) {
	t.Helper()
	if oracleMajor < major {
		t.Skipf("pins LLVM %d's tools: runs with %s=%d (scripts/sid.sh's chroot has them)", major, OracleEnv, major)
	}
}
