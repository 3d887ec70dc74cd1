package inspect

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/rules-offload/rules_offload/lib/bitcode"
	"github.com/rules-offload/rules_offload/lib/coffobj"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/cubin"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
	"github.com/rules-offload/rules_offload/lib/targetid"
)

func (w *walker) binaryBundle(n *Node, v view, depth int) {
	n.Format = "bundle"
	err := container.BinaryBundle(v.r, v.size, func(p container.Piece) error {
		c := w.node(v.sub(p.Offset, p.Size), depth+1)
		c.Name, c.Entry = p.Name, bundleEntry(p.Name)
		n.Children = append(n.Children, c)
		return nil
	})
	if err != nil {
		fail(n, v, err)
		return
	}
	n.Detail = fmt.Sprintf("%d entries", len(n.Children))
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

func (w *walker) textBundle(n *Node, v view, comment string, depth int) {
	n.Format = "text-bundle"
	err := container.TextBundle(v.r, v.size, comment, maxTextBundle, func(p container.Piece) error {
		c := &Node{Format: "text", Name: p.Name, Size: p.Size, Space: v.space, Offset: -1, Entry: bundleEntry(p.Name)}
		n.Children = append(n.Children, c)
		return nil
	})
	var big *container.TextTooLargeError
	if errors.As(err, &big) {
		n.Error = fmt.Sprintf("text bundle of %d bytes is larger than the %d bytes inspect reads", big.Size, big.Max)
		return
	}
	if err != nil {
		fail(n, v, err)
		return
	}
	n.Detail = fmt.Sprintf("%d entries, comment %q", len(n.Children), comment)
}

func (w *walker) offloadBinaries(n *Node, v view, depth int) {
	n.Format = "offload-binary"
	// Images of compressed binaries are described, never read, so their
	// spill files can go as soon as the binaries are parsed: disk use stays
	// at one section's, not the input's.
	defer w.temps.CloseFrom(w.temps.Len())
	err := container.OffloadBinaries(v.r, v.size, w.budget, w.spill, func(p container.Piece) error {
		im := p.Image
		var c *Node
		if im.Compressed {
			c = &Node{Format: "data", Offset: im.Offset, Size: im.Size, Space: "inflated", Detail: "inside a compressed OffloadBinary"}
		} else {
			c = w.node(v.sub(im.Offset, im.Size), depth+1)
		}
		c.Name = p.Name
		c.Entry = imageEntry(im)
		n.Children = append(n.Children, c)
		return nil
	})
	if err != nil {
		fail(n, v, err)
		return
	}
	n.Detail = fmt.Sprintf("%d images", len(n.Children))
}

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

func (w *walker) archive(n *Node, v view, depth int) {
	n.Format = "archive"
	err := container.Archive(v.r, v.size, func(p container.Piece) error {
		c := w.node(v.sub(p.Offset, p.Size), depth+1)
		c.Name = p.Name
		n.Children = append(n.Children, c)
		return nil
	})
	if err != nil {
		fail(n, v, err)
		return
	}
	n.Detail = fmt.Sprintf("%d members", len(n.Children))
}

func (w *walker) elf(n *Node, v view, depth int) {
	n.Format = "elf"
	f, err := elfobj.Open(v.r, v.size)
	if err != nil {
		fail(n, v, err)
		return
	}
	n.Detail = elfDetail(f)
	if f.Machine == 190 { // EM_CUDA: a cubin, whose headers name its target
		if t, err := cubin.Read(v.r, v.size); err == nil {
			n.Detail += ", " + t.String()
		}
	}
	_ = container.ELFSections(f, func(p container.Piece) error {
		n.Children = append(n.Children, w.section(p, v, depth))
		return nil
	})
}

// section describes a section that carries offload code.
func (w *walker) section(p container.Piece, v view, depth int) *Node {
	isBundle := p.Kind == container.EntrySection || p.Kind == container.HostMarker
	sv := v.sub(p.Offset, p.Size)
	var c *Node
	switch {
	case isBundle && p.Size == 1 && bytes.Equal(sv.head(1), []byte{0}):
		c = &Node{Format: "host-marker", Offset: sv.base, Size: 1, Space: v.space, Detail: "the object itself is the host entry"}
	default:
		c = w.node(sv, depth+1)
	}
	c.Name = p.Name
	if isBundle {
		c.Entry = bundleEntry(p.EntryID())
		c.Name = c.Entry.ID
	}
	if c.Detail == "" {
		c.Detail = "section " + p.Name
	} else {
		c.Detail = "section " + p.Name + ": " + c.Detail
	}
	return c
}

// coff describes a COFF object's .llvm.offloading* sections, the ones
// LLVM 22 searches for OffloadBinaries in COFF objects (which have no
// section types); sections with no contents in the file are left out.
func (w *walker) coff(n *Node, v view, depth int) {
	n.Format = "coff"
	f, err := coffobj.Open(v.r, v.size, "")
	if err != nil {
		fail(n, v, err)
		return
	}
	n.Detail = "COFF object, " + coffobj.MachineName(f.Machine)
	if f.BigObj {
		n.Detail = "COFF bigobj, " + coffobj.MachineName(f.Machine)
	}
	err = container.COFFSections(f, func(p container.Piece) error {
		c := w.node(v.sub(p.Offset, p.Size), depth+1)
		c.Name = p.Name
		if c.Detail == "" {
			c.Detail = "section " + p.Name
		} else {
			c.Detail = "section " + p.Name + ": " + c.Detail
		}
		n.Children = append(n.Children, c)
		return nil
	})
	if err != nil {
		fail(n, v, err)
	}
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
func bitcodeModules(n *Node, v view) {
	mods, err := bitcode.Describe(v.r, v.size)
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
