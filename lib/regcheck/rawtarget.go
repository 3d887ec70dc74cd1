package regcheck

import (
	"bytes"
	"debug/elf"
	"io"

	"github.com/rules-offload/rules_offload/lib/cubin"
	"github.com/rules-offload/rules_offload/lib/elfobj"
)

// maxNoteBytes bounds how much of a code object's notes is read for its
// target, all note sections together: the AMDGPU metadata note of a program
// with many kernels is tens of kilobytes, the target string near its start.
const maxNoteBytes = 1 << 20

// amdhsaTargetKey is the AMDGPU metadata note's key (MessagePack) whose
// value is the code object's target, "amdgcn-amd-amdhsa--gfx90a[:xnack+]".
var amdhsaTargetKey = []byte("\xadamdhsa.target")

// rawImageTarget names the target of a GPU image registered as the ELF
// itself (clang-linker-wrapper of LLVM 20 and later registers the image
// inside each OffloadBinary): a cubin's SM from its e_flags, an AMDGPU code
// object's target ID from its metadata note. "" when the image does not say
// (host-CPU shared objects: targetOfArch names them by machine).
func rawImageTarget(r io.ReaderAt, size int64) string {
	f, err := elfobj.Open(r, size)
	if err != nil {
		return ""
	}
	switch f.Machine {
	case elf.EM_CUDA:
		if t, err := cubin.Read(r, size); err == nil {
			return t.String()
		}
	case emAMDGPU:
		return amdgpuNoteTarget(f)
	}
	return ""
}

// amdgpuNoteTarget reads "amdhsa.target" of the code object's notes: the
// MessagePack string after the key (fixstr or str8), after its "--".
func amdgpuNoteTarget(f *elfobj.File) string {
	budget := uint64(maxNoteBytes) // over all note sections: they may overlap
	for _, s := range f.SectionsByType(uint32(elf.SHT_NOTE)) {
		if budget == 0 {
			break
		}
		n := min(s.Size, budget)
		budget -= n
		b := make([]byte, n)
		if _, err := f.SectionReader(s).ReadAt(b, 0); err != nil && err != io.EOF {
			continue
		}
		if id := noteTarget(b); id != "" {
			return id
		}
	}
	return ""
}

// noteTarget reads "amdhsa.target" in note bytes b: the MessagePack string
// after the key (fixstr or str8), after its "--"; "" when b has none.
func noteTarget(b []byte) string {
	i := bytes.Index(b, amdhsaTargetKey)
	if i < 0 {
		return ""
	}
	v := b[i+len(amdhsaTargetKey):]
	var l int
	switch {
	case len(v) > 0 && v[0]&0xe0 == 0xa0: // fixstr
		l, v = int(v[0]&0x1f), v[1:]
	case len(v) > 1 && v[0] == 0xd9: // str8
		l, v = int(v[1]), v[2:]
	default:
		return ""
	}
	if l > len(v) {
		return ""
	}
	_, id, ok := bytes.Cut(v[:l], []byte("--"))
	if !ok {
		return ""
	}
	return string(id)
}
