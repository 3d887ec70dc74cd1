package targetid

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestOffloadArchsLLVM(t *testing.T) {
	if got := OffloadArchsLLVM(22); !slices.Equal(got, offloadArchs) {
		t.Errorf("OffloadArchsLLVM(22) is not LLVM 22's table")
	}
	got := OffloadArchsLLVM(23)
	if len(got) != len(offloadArchs)+len(llvm23Archs) {
		t.Fatalf("OffloadArchsLLVM(23): %d names", len(got))
	}
	// LLVM 23's table order (OffloadArch.cpp): each family target after its 'a' target.
	want := []string{"sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_101", "sm_101a", "sm_101f", "sm_103", "sm_103a", "sm_103f",
		"sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f", "gfx600"}
	i := slices.Index(got, "sm_90a")
	if i < 0 || !slices.Equal(got[i:i+len(want)], want) {
		t.Errorf("OffloadArchsLLVM(23) around sm_100: %q, want %q", got[i:min(len(got), i+len(want))], want)
	}
	wantAMD := []string{"gfx1153", "gfx1154", "gfx11-7-generic", "gfx1170", "gfx1171", "gfx1172", "gfx12-generic", "gfx1200",
		"gfx1201", "gfx12-5-generic", "gfx1250", "gfx1251", "gfx13-generic", "gfx1310", "amdgcnspirv"}
	i = slices.Index(got, "gfx1153")
	if i < 0 || !slices.Equal(got[i:i+len(wantAMD)], wantAMD) {
		t.Errorf("OffloadArchsLLVM(23) around gfx1170: %q, want %q", got[i:min(len(got), i+len(wantAMD))], wantAMD)
	}
	for _, c := range []struct {
		major     int
		processor string
		want      string
		known     bool
	}{{22, "gfx1250", "", true}, {23, "gfx1250", "sramecc", true}, {23, "gfx942", "sramecc,xnack", true},
		{22, "gfx1170", "", false}, {23, "gfx1170", "", true}, {23, "gfx1999", "", false}} {
		f, known := AMDGPUFeaturesLLVM(c.major, c.processor)
		if strings.Join(f, ",") != c.want || known != c.known {
			t.Errorf("AMDGPUFeaturesLLVM(%d, %q) = %q, %v; want %q, %v", c.major, c.processor, f, known, c.want, c.known)
		}
	}
	for _, c := range []struct {
		name string
		want int
	}{{"sm_100f", 23}, {"sm_121f", 23}, {"sm_100a", 22}, {"gfx1201", 22}, {"gfx12-generic", 22}, {"sm_99f", 0}, {"gfx1310", 23}, {"gfx1999", 0}} {
		if got := OffloadArchSince(c.name); got != c.want {
			t.Errorf("OffloadArchSince(%q) = %d, want %d", c.name, got, c.want)
		}
	}
}

// clang23 returns clang-23's path. The Debian sid leg (SID=1) has it and
// must run the check; elsewhere its absence skips.
func clang23(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("clang-23"); err == nil {
		return p
	}
	if os.Getenv("SID") != "" {
		t.Fatal("clang-23 is not on PATH in the sid leg")
	}
	// Not llvmtest.Missing: the Debian 12 leg requires its own oracles, and clang-23 is not one.
	t.Skip("!!! SKIPPED: clang-23 is not on PATH (the Debian sid leg runs this) !!!")
	return ""
}

// cudaDeviceMacros runs clang-23's CUDA preprocessor for one device
// target, without a CUDA installation (no version check), and returns its
// predefined macros, or the error text when clang refuses the target.
func cudaDeviceMacros(t *testing.T, clang string, arch string) (string, bool) {
	t.Helper()
	cmd := exec.Command(clang, "-x", "cuda", "--cuda-path=/nonexistent", "-nocudainc", "-nocudalib",
		"--cuda-device-only", "--offload-arch="+arch, "-E", "-dM", "-")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// clang-23 takes exactly LLVM 23's NVIDIA names as --offload-arch and
// defines the family and architecture macros nvcc does for them.
func TestClang23OffloadArchs(t *testing.T) {
	clang := clang23(t)
	for _, a := range OffloadArchsLLVM(23) {
		if !strings.HasPrefix(a, "sm_") {
			continue
		}
		out, ok := cudaDeviceMacros(t, clang, a)
		if !ok {
			t.Errorf("clang-23 --offload-arch=%s: %s", a, out)
			continue
		}
		num := strings.TrimRight(strings.TrimPrefix(a, "sm_"), "af") + "0"
		if !strings.Contains(out, "#define __CUDA_ARCH__ "+num+"\n") {
			t.Errorf("%s: no __CUDA_ARCH__ %s", a, num)
		}
		switch {
		case strings.HasSuffix(a, "f"):
			if !strings.Contains(out, "#define __CUDA_ARCH_FAMILY_SPECIFIC__ "+num+"\n") || strings.Contains(out, "__CUDA_ARCH_SPECIFIC__") {
				t.Errorf("%s: want __CUDA_ARCH_FAMILY_SPECIFIC__ %s and no __CUDA_ARCH_SPECIFIC__:\n%s", a, num, grepArch(out))
			}
		case strings.HasSuffix(a, "a") && a != "sm_90a":
			if !strings.Contains(out, "#define __CUDA_ARCH_SPECIFIC__ "+num+"\n") || !strings.Contains(out, "#define __CUDA_ARCH_FAMILY_SPECIFIC__ "+num+"\n") {
				t.Errorf("%s: want __CUDA_ARCH_SPECIFIC__ and __CUDA_ARCH_FAMILY_SPECIFIC__ %s:\n%s", a, num, grepArch(out))
			}
		}
	}
	for _, a := range []string{"sm_99f", "sm_100b", "sm_122"} {
		if out, ok := cudaDeviceMacros(t, clang, a); ok {
			t.Errorf("clang-23 took --offload-arch=%s, which its table lacks", a)
		} else if !strings.Contains(out, "unsupported CUDA gpu architecture") {
			t.Errorf("clang-23 --offload-arch=%s failed otherwise: %s", a, out)
		}
	}
}

// hipAccepts tells whether clang-23 takes a HIP --offload-arch (a target ID).
func hipAccepts(clang, arch string) (bool, string) {
	cmd := exec.Command(clang, "-x", "hip", "-nogpuinc", "-nogpulib", "--cuda-device-only", "--offload-arch="+arch, "-E", "-")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	return err == nil, string(out)
}

// clang-23 takes exactly LLVM 23's AMD names, each with exactly the
// target-ID features LLVM 23's TargetParser gives it.
func TestClang23AMDGPUs(t *testing.T) {
	clang := clang23(t)
	for _, a := range OffloadArchsLLVM(23) {
		if !strings.HasPrefix(a, "gfx") {
			continue
		}
		if ok, out := hipAccepts(clang, a); !ok {
			t.Errorf("clang-23 --offload-arch=%s: %s", a, out)
			continue
		}
		supported, known := AMDGPUFeaturesLLVM(23, a)
		if !known {
			t.Errorf("%s: in the OffloadArch table but not in TargetParser's", a)
		}
		for _, f := range []string{"sramecc", "xnack"} {
			ok, out := hipAccepts(clang, a+":"+f+"+")
			if want := slices.Contains(supported, f); ok != want {
				t.Errorf("clang-23 --offload-arch=%s:%s+: accepted %v, the table says %v: %.120s", a, f, ok, want, out)
			}
		}
	}
	for _, a := range []string{"gfx1999", "gfx1173", "gfx14-generic"} {
		if ok, _ := hipAccepts(clang, a); ok {
			t.Errorf("clang-23 took --offload-arch=%s, which its table lacks", a)
		}
	}
}

func grepArch(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "CUDA_ARCH") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
