package bundler

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/bitcode"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/targetid"
)

// member is one device object bound for an output archive.
type member struct {
	name string
	open func() (io.Reader, int64, error)
}

// unbundleArchive turns a heterogeneous device archive into one archive per
// target. Every bundle of every member goes to each compatible target (not
// only the first), named as LLVM names it:
// <stem>-<bundle ID><stem><ext>, with ':' replaced by '_'.
func unbundleArchive(cfg *Config, t *targets) error {
	src, err := openSource(cfg.Inputs[0], cfg.TempDir)
	if err != nil {
		return err
	}
	defer src.Close()
	st := newArchiveState(src.r)
	rd, err := ar.NewReader(st.ahead, src.size)
	if errors.Is(err, ar.ErrNotArchive) {
		// LLVM says this for every input without the archive magic.
		return fileError(cfg.Inputs[0], errorf("%s: %v", ar.ErrTooSmall, err))
	}
	if err != nil {
		return fileError(cfg.Inputs[0], err)
	}
	sc := &scratch{dir: cfg.TempDir}
	defer sc.close()
	perTarget := make([][]member, len(t.std))
	for {
		m, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fileError(cfg.Inputs[0], err)
		}
		if err := archiveChild(cfg, t, src, m, sc, perTarget, st); err != nil {
			return err
		}
	}
	return writeArchives(cfg, t, perTarget)
}

func archiveChild(cfg *Config, t *targets, src *source, m *ar.Member, sc *scratch, perTarget [][]member, st *archiveState) error {
	child := &source{name: m.Name, r: st.memberData(m), size: m.Size}
	parts, err := decompressedAs(child, cfg, "Failed to decompress code object")
	var be *Error
	if errors.As(err, &be) {
		return &Error{File: cfg.Inputs[0], Msg: fmt.Sprintf("%s (member %s)", be.Msg, m.Name), Err: be.Err}
	}
	if err != nil {
		return fileError(cfg.Inputs[0], err)
	}
	var all []entry
	for _, p := range parts {
		es, err := entries(cfg, p, sc)
		if err != nil {
			return fileError(cfg.Inputs[0], errorf("%s (member %s)", err, m.Name))
		}
		all = append(all, es...)
	}
	if cfg.CheckInputArchive {
		ids := make([]string, len(all))
		for i, e := range all {
			ids[i] = e.id
		}
		if a, b, ok := targetid.Conflict(ids); ok {
			return errorf("conflicting TargetIDs [%s, %s] found in %s of %s", a, b, m.Name, cfg.Inputs[0])
		}
	}
	base := path.Base(m.Name)
	for _, e := range all {
		co, fits, err := st.match(e.id, t, cfg.HIPOpenMPCompatible)
		if err != nil {
			return fileError(cfg.Inputs[0], errorf("Invalid bundle id read from code object"))
		}
		name := memberName(base, e.id, co.TargetID)
		for _, i := range fits {
			perTarget[i] = append(perTarget[i], member{name: name, open: e.open})
		}
	}
	return nil
}

// memberName is LLVM's device library member name. The stem really appears
// twice: "fat-hip-amdgcn-amd-amdhsa--gfx906fat.bc".
func memberName(child, id, targetID string) string {
	ext := path.Ext(child)
	stem := strings.TrimSuffix(child, ext)
	switch {
	case strings.Contains(targetID, "gfx"):
		ext = ".bc"
	case strings.Contains(targetID, "sm_"):
		ext = ".cubin"
	}
	return strings.ReplaceAll(stem+"-"+id+stem+ext, ":", "_")
}

func writeArchives(cfg *Config, t *targets, perTarget [][]member) error {
	var g atomicfile.Group
	defer g.Abort()
	var jobs []archiveJob
	for i, ms := range perTarget {
		if len(ms) == 0 && !cfg.AllowMissingBundles {
			return errorf("no compatible code object found for the target '%s' in heterogeneous archive library: %s", t.std[i], cfg.Inputs[0])
		}
		out, err := createIn(&g, cfg.Outputs[i])
		if err != nil {
			return err
		}
		wms := make([]ar.WriterMember, len(ms))
		for j, m := range ms {
			r, n, err := m.open()
			if err != nil {
				return fileError(cfg.Inputs[0], err)
			}
			wms[j] = ar.WriterMember{Name: m.name, Size: n, Data: r}
		}
		jobs = append(jobs, archiveJob{out: out, path: cfg.Outputs[i], members: wms})
	}
	if err := writeArchiveJobs(cfg.Inputs[0], jobs); err != nil {
		return err
	}
	return g.Commit()
}

// addSymbols marks ELF and bitcode members as objects and lists their
// global symbols, so the archive gets the symbol table LLVM's writeArchive
// gives it. Other members stay raw blobs.
func addSymbols(m *ar.WriterMember) error {
	ra, ok := m.Data.(io.ReaderAt)
	if !ok {
		return nil
	}
	head := make([]byte, 4)
	if n, _ := ra.ReadAt(head, 0); n < 4 {
		return nil
	}
	if bitcode.IsBitcode(head) {
		return addBitcodeSymbols(m, ra)
	}
	if !elfobj.IsELF(head) {
		return nil
	}
	f, err := elfobj.Open(ra, m.Size)
	if err != nil {
		return nil // not a valid object: LLVM stores it as a blob too
	}
	syms, err := f.ArchiveSymbols()
	if err != nil {
		return fmt.Errorf("member %s: %w", m.Name, err)
	}
	m.Object, m.Symbols = true, syms
	return nil
}

// addBitcodeSymbols lists a bitcode member's symbols from its irsymtab.
// LLVM would rebuild a missing table from the IR; without one the member
// still counts as an object, with no symbols. Malformed bitcode fails, as
// LLVM's writeArchive does.
func addBitcodeSymbols(m *ar.WriterMember, ra io.ReaderAt) error {
	syms, err := bitcode.ArchiveSymbols(ra, m.Size)
	if err != nil && !errors.Is(err, bitcode.ErrNoSymtab) {
		return fmt.Errorf("member %s: %w", m.Name, err)
	}
	m.Object, m.Symbols = true, syms
	return nil
}
