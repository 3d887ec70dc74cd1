package inspect

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/bitcode"
	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/cubin"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
	"github.com/rules-offload/rules_offload/lib/targetid"
)

// describe describes the container p (its node n) once its parts are,
// with err the reason its walk stopped; it returns the node that stands
// for p (a compressed sequence's, for several records).
func (w *walker) describe(p *container.Part, n *Node, err error) *Node {
	v := w.view(p)
	switch p.Format {
	case container.FormatCCOB:
		return w.describeSeq(p, n, err)
	case container.FormatNVFatbin:
		w.describeFatbin(p, n, err)
		return n
	case container.FormatELF:
		if p.ELF == nil {
			fail(n, v, err)
			return n
		}
		n.Detail = elfDetail(p.ELF) // the sections' errors are theirs
		if p.ELF.Machine == 190 {   // EM_CUDA: a cubin, whose headers name its target
			if t, err := cubin.Read(p.Data, p.Size); err == nil {
				n.Detail += ", " + t.String()
			}
		}
		return n
	case container.FormatCOFF:
		if p.COFF == nil {
			fail(n, v, err)
			return n
		}
		n.Detail = "COFF object, " + coffobj.MachineName(p.COFF.Machine)
		if p.COFF.BigObj {
			n.Detail = "COFF bigobj, " + coffobj.MachineName(p.COFF.Machine)
		}
	case container.FormatTextBundle:
		var big *container.TextTooLargeError
		if errors.As(err, &big) {
			n.Error = fmt.Sprintf("text bundle of %d bytes is larger than the %d bytes inspect reads", big.Size, big.Max)
			return n
		}
	}
	if err != nil {
		fail(n, v, err)
		return n
	}
	switch p.Format {
	case container.FormatBundle:
		n.Detail = fmt.Sprintf("%d entries", len(n.Children))
	case container.FormatTextBundle:
		n.Detail = fmt.Sprintf("%d entries, comment %q", len(n.Children), p.Comment)
	case container.FormatOffloadBinary:
		n.Detail = fmt.Sprintf("%d images", len(n.Children))
	case container.FormatArchive:
		n.Detail = fmt.Sprintf("%d members", len(n.Children))
	case container.FormatCOFF:
	default: // a format registered elsewhere
		n.Detail = fmt.Sprintf("%d parts", len(n.Children))
	}
	return n
}

// bundleEntry describes a bundle entry ID, as far as it parses.
func bundleEntry(id string) *Entry {
	e := &Entry{ID: id}
	p, err := targetid.ParseEntryID(id)
	if err != nil {
		return e
	}
	e.OffloadKind, e.Triple, e.TargetID = p.Kind, strings.TrimSuffix(p.TripleString(), "-"), p.TargetID
	fillTargetID(e, e.Triple, p.TargetID)
	return e
}

// fillTargetID splits a target ID into processor and features.
func fillTargetID(e *Entry, triple, id string) {
	if id == "" {
		return
	}
	proc, feats, _ := strings.Cut(id, ":")
	e.Arch = proc
	if feats != "" {
		e.Features = strings.Split(feats, ":")
	}
	if t, err := targetid.ParseTargetID(triple, id); err == nil {
		e.Arch = t.Processor
	}
}

// maxTextBundle bounds the text bundles read whole (they are sources).
const maxTextBundle = 64 << 20

func imageEntry(im *offloadbin.Image) *Entry {
	e := &Entry{
		OffloadKind: im.OffloadKind.String(),
		Triple:      im.Triple(),
		ImageKind:   im.ImageKind.ObjdumpName(),
		Version:     int(im.Version),
	}
	for _, kv := range im.Strings {
		e.Strings = append(e.Strings, KV{kv.Key, kv.Value})
	}
	e.TargetID = im.Arch()
	fillTargetID(e, e.Triple, im.Arch())
	return e
}

func elfDetail(f *elfobj.File) string {
	class := "ELF64"
	if f.Class == elf.ELFCLASS32 {
		class = "ELF32"
	}
	typ := map[elf.Type]string{elf.ET_REL: "relocatable", elf.ET_EXEC: "executable", elf.ET_DYN: "shared object"}[f.Type]
	if typ == "" {
		typ = f.Type.String()
	}
	machine := strings.TrimPrefix(f.Machine.String(), "EM_")
	switch f.Machine {
	case 224:
		machine = "AMDGPU"
	case 190:
		machine = "CUDA"
	}
	return fmt.Sprintf("%s %s, %s", class, typ, machine)
}

// bitcodeModules adds what the header records of a bitcode file say of
// its modules to n's detail: source file, triple and producer.
func bitcodeModules(n *Node, v view, r io.ReaderAt) {
	mods, err := bitcode.Describe(r, v.size)
	if err != nil {
		fail(n, v, err)
		return
	}
	var parts []string
	for _, m := range mods {
		part := m.SourceFilename
		if m.Triple != "" {
			part = strings.TrimSpace(part + " for " + m.Triple)
		}
		if m.Producer != "" {
			part = strings.TrimSpace(part + ", by " + m.Producer)
		}
		if part != "" {
			parts = append(parts, part)
		}
	}
	if len(parts) > 0 {
		n.Detail += ": " + strings.Join(parts, "; ")
	}
}

// leafKind names payloads that are not containers.
func leafKind(head []byte) (string, string) {
	switch {
	case bytes.HasPrefix(head, []byte("BC\xc0\xde")), bytes.HasPrefix(head, []byte{0xde, 0xc0, 0x17, 0x0b}):
		return "bitcode", "LLVM bitcode"
	case len(head) >= 4 && binary.LittleEndian.Uint32(head) == 0x07230203:
		return "spirv", "SPIR-V module"
	case len(head) >= 4 && binary.LittleEndian.Uint32(head) == 0xba55ed50:
		return "cuda-fatbin", "NVIDIA fat binary"
	case bytes.Contains(head, []byte(".version")) && bytes.Contains(head, []byte(".target")):
		return "ptx", "PTX assembly"
	}
	return "data", ""
}
