package atomicfile

import (
	"os"
	"sync"
)

// live lists the files this package has made beside outputs and not yet
// renamed or removed: temporary files ("" as value) and backups of
// replaced outputs (the output's path as value), so that RemoveTemps can
// clean up after an interrupted run.
var live = struct {
	sync.Mutex
	files map[string]string
}{files: map[string]string{}}

func track(name, restoreTo string) {
	live.Lock()
	live.files[name] = restoreTo
	live.Unlock()
}

func untrack(name string) {
	live.Lock()
	delete(live.files, name)
	live.Unlock()
}

// createTemp is os.CreateTemp for a tracked temporary file.
func createTemp(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		track(f.Name(), "")
	}
	return f, err
}

func removeTemp(name string) {
	os.Remove(name)
	untrack(name)
}

// RemoveTemps removes every temporary file of outputs not yet committed, and
// puts back an output a commit in progress had moved aside. It is for a
// signal handler that then exits: no outputs may be written after it.
func RemoveTemps() {
	live.Lock()
	defer live.Unlock()
	for name, restoreTo := range live.files {
		if restoreTo == "" {
			os.Remove(name)
		} else if _, err := os.Lstat(restoreTo); err != nil {
			os.Rename(name, restoreTo)
		} else {
			os.Remove(name)
		}
		delete(live.files, name)
	}
}
