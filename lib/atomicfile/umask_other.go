//go:build !unix

package atomicfile

import "os"

// umask is the usual mask where the system has none to read.
var umask os.FileMode = 0o022
