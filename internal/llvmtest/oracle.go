package llvmtest

import (
	"fmt"
	"os"
	"strconv"
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
