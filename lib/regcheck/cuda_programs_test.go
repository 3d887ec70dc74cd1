package regcheck

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
)

// k1Kernels and k1Vars are what ../../shared/fixtures/cuda13/src/k1.cu's
// registration constructor registers (cudafe++ of CUDA 12.4 and 13).
var (
	k1Kernels = []string{"_Z7k1_fillIdEvPT_S0_i", "_Z7k1_fillIiEvPT_S0_i", "_Z8k1_scalePfi"}
	k1Vars    = []string{"k1_calls", "k1_gain"}
)

// Programs built by nvcc 12.4 (Debian sid's CUDA, docs/provenance.md),
// recorded by the recorder linked as the rule links it, pass: a whole
// program (k1.cu: its __device__ and __constant__ variables have local
// binding in the cubins and no .visible in the PTX, which the check took
// for missing) and a relocatable-device-code one (k2.cu and k3.cu, device
// linked by nvlink: the linked fat binary holds the cubins only).
func TestCUDA124ProgramsPass(t *testing.T) {
	for _, c := range []struct {
		file    string
		targets []string
		host    []string
	}{
		{"testdata/cuda124_k1.record", []string{"compute_90", "sm_80", "sm_90"}, k1Kernels},
		{"testdata/cuda124_k2k3_rdc.record", []string{"sm_80", "sm_90"}, []string{"_Z8k2_applyPfi"}},
	} {
		rep := check(t, mustRead(t, c.file), Options{Targets: map[string][][]string{"cuda": {c.targets}}, Host: set(c.host)})
		if !rep.OK() {
			t.Errorf("%s: problems %q", c.file, rep.Problems)
		}
	}
}

// CUDA 13's images of k1.cu (ptxas 13's ELF ABI 8 cubin for sm_90 and
// the compute_90 PTX, from ../../shared/fixtures/cuda13) registered as
// its stub registers them pass too: the variables are local there as in
// 12.4.
func TestCUDA13ImagesPass(t *testing.T) {
	// The container from its documented layout: lib/nvfatbin's writer
	// checks a cubin's architecture in e_flags as ABI 7 places it.
	fb := hostile.NVFatbin([]hostile.NVEntry{
		{Kind: 2, Arch: 90, Header: 72, Payload: mustRead(t, "testdata/cuda13_k1.sm_90.cubin")},
		{Kind: 1, Arch: 90, Header: 72, Payload: mustRead(t, "testdata/cuda13_k1.compute_90.ptx")},
	})
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nfatbin 0 cuda 0x466243b1 %d\n%s\n", Magic, len(fb), fb)
	for _, k := range k1Kernels {
		fmt.Fprintf(&b, "function 0 %s\n", k)
	}
	for _, v := range k1Vars {
		fmt.Fprintf(&b, "var 0 %s\n", v)
	}
	rep := check(t, withEnd(b.Bytes()), Options{Targets: map[string][][]string{"cuda": {{"compute_90", "sm_90"}}}, Host: set(k1Kernels)})
	if !rep.OK() {
		t.Errorf("problems %q", rep.Problems)
	}
	// A variable the device code does not define is still missing.
	b.WriteString("var 0 k1_absent\n")
	wantProblems(t, check(t, withEnd(b.Bytes()), Options{Host: set(k1Kernels)}), "variable k1_absent is registered by the host half but is not in the sm_90 cubin, compute_90 PTX")
}
