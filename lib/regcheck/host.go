package regcheck

import (
	"debug/elf"
	"io"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// stubPrefix starts the unqualified name of clang's host-side launch stub
// of a CUDA or HIP kernel: _Z18__device_stub__AddPKf... for _Z3AddPKf...
const stubPrefix = "__device_stub__"

// HostKernels lists the kernels the host program can launch: those it has
// a launch stub for (CUDA, HIP) or a host function of the same name
// (OpenMP's host fallback of a target region). A kernel of an image that
// is not among them is instantiated by device code only.
func HostKernels(r io.ReaderAt, size int64) (map[string]bool, error) {
	f, err := elfobj.Open(r, size)
	if err != nil {
		return nil, err
	}
	syms, err := f.DefinedSymbols(elf.SHT_SYMTAB)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, s := range syms {
		// A kernel name is one line of the record, so a longer name is no
		// kernel the record can register; skipping it keeps this work
		// proportional to the input, where a hostile host names thousands
		// of symbols by one long string (each a hash over its length).
		if s.Type != elf.STT_FUNC && s.Type != elf.STT_OBJECT || len(s.Name) > maxLine {
			continue
		}
		out[s.Name] = true
		if k, ok := kernelOfStub(s.Name); ok {
			out[k] = true
		}
	}
	return out, nil
}

// kernelOfStub maps a stub's name to its kernel's: the stub prefix goes,
// and the length of the mangled source name before it shrinks by as much.
func kernelOfStub(name string) (string, bool) {
	i := strings.Index(name, stubPrefix)
	if i < 0 {
		return "", false
	}
	j := i
	for j > 0 && name[j-1] >= '0' && name[j-1] <= '9' {
		j--
	}
	rest := name[i+len(stubPrefix):]
	if j == i { // extern "C": not mangled
		return name[:i] + rest, true
	}
	n, err := strconv.Atoi(name[j:i])
	if err != nil || n <= len(stubPrefix) {
		return "", false
	}
	return name[:j] + strconv.Itoa(n-len(stubPrefix)) + rest, true
}
