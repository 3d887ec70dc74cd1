package atomicfile

import (
	"errors"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// maxRound bounds one system call, as the kernel caps a transfer near 2 GiB.
const maxRound = 1 << 30

// canClone reports whether f lives on a filesystem that can share extents
// between files (reflinks), where copy_file_range need not copy data.
func canClone(f *os.File) bool {
	c, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var st syscall.Statfs_t
	var serr error = syscall.EINVAL
	c.Control(func(fd uintptr) { serr = syscall.Fstatfs(int(fd), &st) })
	if serr != nil {
		return false
	}
	switch uint32(st.Type) {
	case 0x9123683e, // btrfs
		0x58465342, // xfs
		0xca451a4e, // bcachefs
		0x2fc12fc1, // zfs
		0x7461636f, // ocfs2
		0x6969,     // nfs (server-side copy)
		0xfe534d42, // smb2 (server-side copy)
		0x794c7630: // overlayfs, on whatever lies below
		return true
	}
	return false
}

// kernelCopy appends n bytes of src starting at off to dst, at dst's
// current offset, inside the kernel: copy_file_range where the kernel
// offers it (a reflink on filesystems that can share extents), else
// sendfile. It returns how much it copied; on a short count with a nil
// error the caller copies the rest itself (src ended, or the kernel cannot
// copy between these files).
func kernelCopy(dst, src *os.File, off, n int64) (int64, error) {
	dc, err := dst.SyscallConn()
	if err != nil {
		return 0, nil
	}
	sc, err := src.SyscallConn()
	if err != nil {
		return 0, nil
	}
	var written int64
	var cerr error
	werr := dc.Write(func(dfd uintptr) bool {
		rerr := sc.Read(func(sfd uintptr) bool {
			written, cerr = copyFDs(int(dfd), int(sfd), off, n)
			return true
		})
		if cerr == nil {
			cerr = rerr
		}
		return true
	})
	if cerr == nil {
		cerr = werr
	}
	return written, cerr
}

func copyFDs(dfd, sfd int, off, n int64) (int64, error) {
	var written int64
	useRange := copyFileRangeTrap() != 0
	for written < n {
		chunk := int(min(n-written, maxRound))
		var m int
		var err error
		if useRange {
			m, err = copyFileRange(sfd, &off, dfd, chunk)
			if err != nil && declined(err) {
				useRange = false
				continue
			}
		} else {
			m, err = syscall.Sendfile(dfd, sfd, &off, chunk)
			if err != nil && declined(err) {
				return written, nil
			}
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return written, &os.SyscallError{Syscall: "copy", Err: err}
		}
		if m == 0 {
			return written, nil // src ended early
		}
		written += int64(m)
	}
	return written, nil
}

// declined reports errors that mean "not between these files", after
// which a slower method still works.
func declined(err error) bool {
	return errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.EINVAL) ||
		errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EOPNOTSUPP) ||
		errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EBADF) ||
		errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EIO)
}

// copyFileRange calls copy_file_range(sfd, off, dfd, NULL, n, 0): it reads
// at *off (advancing it) and writes at dfd's file offset.
func copyFileRange(sfd int, off *int64, dfd, n int) (int, error) {
	r, _, e := syscall.Syscall6(copyFileRangeTrap(), uintptr(sfd), uintptr(unsafe.Pointer(off)), uintptr(dfd), 0, uintptr(n), 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// copyFileRangeTrap is the system call number, where the syscall package
// does not define it; 0 means "use sendfile".
func copyFileRangeTrap() uintptr {
	switch runtime.GOARCH {
	case "amd64":
		return 326
	case "arm64", "riscv64", "loong64":
		return 285
	}
	return 0
}
