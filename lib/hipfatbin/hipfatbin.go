// Package hipfatbin writes the object that carries one translation unit's
// HIP fat binary apart from its host object.
//
// clang's host compile of a HIP source embeds the fat binary when it is
// given one (-fcuda-include-gpubinary), so that compile depends on every
// device image: adding a GPU target recompiles the host code of every
// source. Without one, clang compiles the same registration code (the
// module constructor, __hip_fatbin_wrapper, the kernel stubs) but leaves
// the fat binary to an undefined symbol, __hip_fatbin_<hash>, where hash
// is the low 64 bits of the MD5 of the -cuid, in lowercase hex without
// leading zeros. Write writes that symbol's definition: the fat binary in
// a .hip_fatbin section aligned to 4096, as clang lays it out when it
// embeds it, so the linked program registers the same bytes as after
// clang's one-step compile, and the host compile no longer depends on the
// device half.
package hipfatbin

import (
	"bytes"
	"crypto/md5"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rules-offload/rules_offload/lib/relobj"
)

// Section is the section clang puts a HIP fat binary in.
const Section = ".hip_fatbin"

// align is the section's alignment, clang's for .hip_fatbin: code objects
// inside the bundle are page aligned relative to its start.
const align = 4096

// ErrNotHIP marks input that is no HIP fat binary.
var ErrNotHIP = errors.New("not a HIP fat binary")

// SymbolName is the symbol clang's host compile with -cuid=cuid refers to
// for the fat binary when it is not given one.
func SymbolName(cuid string) string {
	sum := md5.Sum([]byte(cuid))
	return "__hip_fatbin_" + strconv.FormatUint(binary.LittleEndian.Uint64(sum[:8]), 16)
}

// Options say what object to write.
type Options struct {
	// CUID is the -cuid of the source's host compile.
	CUID string
	// Machine is the host's: elf.EM_X86_64 or elf.EM_AARCH64.
	Machine elf.Machine
}

// Write writes to w a relocatable object defining SymbolName(o.CUID) as
// the size bytes of fatbin, a HIP fat binary (a clang offload bundle,
// compressed or not), in a .hip_fatbin section. The symbol is hidden: the
// program's own host object refers to it, and a second shared object
// built from the same source must not take it over. fatbin is streamed
// into w, not held in memory.
func Write(w io.Writer, fatbin io.ReaderAt, size int64, o Options) error {
	if o.CUID == "" {
		return errors.New("hipfatbin: a cuid is required: it names the symbol the host object refers to")
	}
	if err := check(fatbin, size); err != nil {
		return err
	}
	f, err := relobj.New(o.Machine)
	if err != nil {
		return err
	}
	sec := f.AddSection(Section, elf.SHT_PROGBITS, elf.SHF_ALLOC, align)
	if err := sec.AppendReader(fatbin, size); err != nil {
		return err
	}
	// Without this note GNU ld takes the object to need an executable stack.
	f.AddSection(".note.GNU-stack", elf.SHT_PROGBITS, 0, 1)
	f.AddSymbol(relobj.Symbol{
		Name:    SymbolName(o.CUID),
		Bind:    elf.STB_GLOBAL,
		Type:    elf.STT_OBJECT,
		Vis:     elf.STV_HIDDEN,
		Section: sec,
		Size:    uint64(size),
	})
	_, err = f.WriteTo(w)
	return err
}

// check refuses what the HIP runtime would refuse at program start: its
// registration reads an offload bundle, plain or compressed.
func check(r io.ReaderAt, size int64) error {
	const magic = "__CLANG_OFFLOAD_BUNDLE__"
	head := make([]byte, min(size, int64(len(magic))))
	if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if bytes.HasPrefix(head, []byte(magic)) || bytes.HasPrefix(head, []byte("CCOB")) {
		return nil
	}
	return fmt.Errorf("%w: it starts with neither __CLANG_OFFLOAD_BUNDLE__ nor CCOB", ErrNotHIP)
}

// Machine is the ELF machine of a host triple's objects: x86-64 and
// AArch64 Linux hosts, the ones HIP runs on and relobj writes for.
func Machine(triple string) (elf.Machine, error) {
	arch, rest, _ := strings.Cut(triple, "-")
	if strings.Contains(rest, "windows") || strings.Contains(rest, "darwin") || strings.Contains(rest, "macos") {
		return 0, fmt.Errorf("'%s': HIP fat binary objects are written for ELF hosts only", triple)
	}
	switch arch {
	case "x86_64", "amd64":
		return elf.EM_X86_64, nil
	case "aarch64", "arm64":
		return elf.EM_AARCH64, nil
	}
	return 0, fmt.Errorf("'%s': HIP fat binary objects are written for x86_64 and aarch64 hosts only", triple)
}
