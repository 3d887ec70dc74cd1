package capped

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// TestHelper is the command the tests run: this test binary again, which
// touches $CAPPED_MIB MiB and then sleeps $CAPPED_SLEEP_MS.
func TestHelper(t *testing.T) {
	mib, err := strconv.Atoi(os.Getenv("CAPPED_MIB"))
	if err != nil {
		t.Skip("run by the other tests")
	}
	b := make([]byte, mib<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	ms, _ := strconv.Atoi(os.Getenv("CAPPED_SLEEP_MS"))
	time.Sleep(time.Duration(ms) * time.Millisecond)
	os.Stdout.WriteString("done\n")
}

func helper(t *testing.T, mib, sleepMS int, limit time.Duration) Result {
	env := append(os.Environ(), "CAPPED_MIB="+strconv.Itoa(mib), "CAPPED_SLEEP_MS="+strconv.Itoa(sleepMS))
	r, err := Run(t.TempDir(), env, 128<<20, limit, os.Args[0], "-test.run=^TestHelper$")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCaps(t *testing.T) {
	for _, c := range []struct {
		name         string
		mib, sleepMS int
		limit        time.Duration
		over         string
	}{
		{"within", 16, 0, 10 * time.Second, ""},
		{"memory, quick", 300, 0, 10 * time.Second, "memory"},
		{"memory, held", 300, 3000, 10 * time.Second, "memory"},
		{"time", 1, 5000, 300 * time.Millisecond, "time"},
	} {
		r := helper(t, c.mib, c.sleepMS, c.limit)
		if r.Over != c.over || c.over == "" && (r.Code != 0 || r.PeakRSS < 16<<20) || c.over == "time" && r.Wall > 3*time.Second {
			t.Errorf("%s: %v; want over %q", c.name, r, c.over)
		}
	}
}
