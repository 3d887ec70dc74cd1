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
	files  map[string]string
	rooted map[rootedName]string // the same, for DirGroups' files
}{files: map[string]string{}, rooted: map[rootedName]string{}}

// rootedName is a file of a DirGroup: a name in a directory opened once.
type rootedName struct {
	root *os.Root
	name string
}

// linkTracked links backup to dest, a file a commit is about to replace,
// and registers the link to be put back by RemoveTemps, under one lock.
func linkTracked(dest, backup string) error {
	live.Lock()
	defer live.Unlock()
	err := os.Link(dest, backup)
	if err == nil {
		live.files[backup] = dest
	}
	return err
}

func untrack(name string) {
	live.Lock()
	delete(live.files, name)
	live.Unlock()
}

// createTemp is os.CreateTemp for a tracked temporary file. The file is
// created and registered under the lock, so that RemoveTemps, which takes
// it too, never runs between the two and misses a file that exists.
func createTemp(dir, pattern string) (*os.File, error) {
	live.Lock()
	defer live.Unlock()
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		live.files[f.Name()] = ""
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
	for rn, restoreTo := range live.rooted {
		if _, err := rn.root.Lstat(restoreTo); restoreTo != "" && err != nil {
			rn.root.Rename(rn.name, restoreTo)
		} else {
			rn.root.Remove(rn.name)
		}
		delete(live.rooted, rn)
	}
}
