package capped

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// TestHelper is the command the tests run: this test binary again, which
// touches $CAPPED_MIB MiB, spins the CPU for $CAPPED_SPIN_MS and then
// sleeps $CAPPED_SLEEP_MS.
func TestHelper(t *testing.T) {
	mib, err := strconv.Atoi(os.Getenv("CAPPED_MIB"))
	if err != nil {
		t.Skip("run by the other tests")
	}
	b := make([]byte, mib<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	spin, _ := strconv.Atoi(os.Getenv("CAPPED_SPIN_MS"))
	for end := time.Now().Add(time.Duration(spin) * time.Millisecond); time.Now().Before(end); {
	}
	ms, _ := strconv.Atoi(os.Getenv("CAPPED_SLEEP_MS"))
	time.Sleep(time.Duration(ms) * time.Millisecond)
	os.Stdout.WriteString("done\n")
}

func helper(t *testing.T, mib, spinMS, sleepMS int, limit time.Duration) Result {
	env := append(os.Environ(), "CAPPED_MIB="+strconv.Itoa(mib), "CAPPED_SPIN_MS="+strconv.Itoa(spinMS), "CAPPED_SLEEP_MS="+strconv.Itoa(sleepMS))
	r, err := Run(t.TempDir(), env, 128<<20, limit, os.Args[0], "-test.run=^TestHelper$")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCaps(t *testing.T) {
	for _, c := range []struct {
		name                 string
		mib, spinMS, sleepMS int
		limit                time.Duration
		over                 string
	}{
		{"within", 16, 0, 0, 10 * time.Second, ""},
		{"memory, quick", 300, 0, 0, 10 * time.Second, "memory"},
		{"memory, held", 300, 0, 3000, 10 * time.Second, "memory"},
		// Sleeping is not computing: within a CPU cap shorter than the
		// sleep, as a command waiting for a core on a loaded machine.
		{"sleeping, within", 1, 0, 1500, 500 * time.Millisecond, ""},
		{"time", 1, 5000, 0, 300 * time.Millisecond, "time"},
		{"hung", 1, 0, 20000, 200 * time.Millisecond, "wall"},
	} {
		r := helper(t, c.mib, c.spinMS, c.sleepMS, c.limit)
		if r.Over != c.over || c.over == "" && (r.Code != 0 || r.PeakRSS < int64(c.mib)<<20) || c.over != "" && c.over != "memory" && r.Wall > 4*time.Second {
			t.Errorf("%s: %v; want over %q", c.name, r, c.over)
		}
	}
}
