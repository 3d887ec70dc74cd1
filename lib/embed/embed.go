// Package embed adds OffloadBinaries to existing ELF objects, in the
// .llvm.offloading section that clang's -fembed-offload-object writes, so
// objects from any compiler (gcc included) can carry device code for the
// new offload driver.
package embed

import (
	"debug/elf"
	"fmt"
	"io"
	"os"

	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
)

// Section is the name clang gives the section.
const Section = ".llvm.offloading"

// Embed writes to w the relocatable ELF object in host (size bytes) with one
// more section: type SHT_LLVM_OFFLOADING, SHF_EXCLUDE (the linker drops it;
// the linker wrapper reads it first), 8-byte aligned, holding bin — one or
// more OffloadBinaries, each a multiple of 8 bytes, as clang embeds them.
// bin is validated first, so a corrupt package is never embedded.
func Embed(w io.Writer, host io.ReaderAt, size int64, bin io.ReaderAt, binSize int64) error {
	f, err := elfobj.Open(host, size)
	if err != nil {
		return err
	}
	if f.Type != elf.ET_REL {
		return fmt.Errorf("embedding needs a relocatable object, not an ELF %s", f.Type)
	}
	if err := Check(bin, binSize); err != nil {
		return err
	}
	sec := elfobj.NewSection{
		Name:  Section,
		Type:  elfobj.SHT_LLVM_OFFLOADING,
		Flags: shfExclude,
		Align: offloadbin.Alignment,
		Size:  binSize,
		Data:  io.NewSectionReader(bin, 0, binSize),
	}
	return elfobj.AddSections(w, host, size, []elfobj.NewSection{sec})
}

// Check reports whether the size bytes of bin can be embedded: one or more
// valid OffloadBinaries, back to back, each padded to 8 bytes. It reads the
// headers, and inflates compressed binaries to check them: within one
// default budget for all of bin, and large ones into unlinked temporary
// files, closed before it returns, so memory does not grow with what they
// declare.
func Check(bin io.ReaderAt, size int64) error {
	if size%offloadbin.Alignment != 0 {
		return fmt.Errorf("the offload binary is %d bytes, not a multiple of %d", size, offloadbin.Alignment)
	}
	spilled := container.Temps{Pattern: "offload-embed-*"}
	defer spilled.Close()
	ims, err := offloadbin.ReadAll(bin, size, offloadbin.WithBudget(budget.New(0)),
		offloadbin.WithSpill(spilled.New))
	if err != nil {
		return fmt.Errorf("not a valid offload binary: %w", err)
	}
	if len(ims) == 0 { // empty or all zeros: the reader takes zeros as padding
		return fmt.Errorf("not a valid offload binary: it holds no image")
	}
	return nil
}

// File is Embed on named files; the packaged images come from bin.
func File(w io.Writer, hostPath string, bin io.ReaderAt, binSize int64) error {
	h, err := os.Open(hostPath)
	if err != nil {
		return err
	}
	defer h.Close()
	fi, err := h.Stat()
	if err != nil {
		return err
	}
	if err := Embed(w, h, fi.Size(), bin, binSize); err != nil {
		return fmt.Errorf("%s: %w", hostPath, err)
	}
	return nil
}

// shfExclude is SHF_EXCLUDE, which debug/elf does not name.
const shfExclude = 0x80000000
