package bundler

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"runtime"
	"strings"
	"sync"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/bitcode"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/elfobj"
	"github.com/rules-offload/rules_offload/lib/targetid"
)

// member is one device object bound for an output archive, opened while
// its input member was parsed.
type member struct {
	name string
	data io.Reader
	size int64
	err  error    // from opening it; reported where writeArchives gets to it
	syms *symbols // shared by every output that takes the same bundle
}

// symbols is what addSymbols found for a member's data.
type symbols struct {
	object bool
	names  []string
	err    error
}

// unbundleArchive turns a heterogeneous device archive into one archive per
// target. Every bundle of every member goes to each compatible target (not
// only the first), named as LLVM names it:
// <stem>-<bundle ID><stem><ext>, with ':' replaced by '_'.
//
// The member list is read first; runs of members are then parsed (and the
// symbols of their device objects listed) concurrently, and the results
// joined in archive order, so output and errors are those of a sequential
// walk. A regular file is read through a memory mapping
// (container.InputOptions.Map).
func unbundleArchive(cfg *Config, h handler, t *targets) (err error) {
	opt := inputOptions(cfg)
	opt.Map = mapInputs
	src, err := openInput(cfg.Inputs[0], opt)
	if err != nil {
		return err
	}
	defer src.Close()
	ms, err := src.Members()
	var walkErr error // reported after the members before it
	switch {
	case errors.Is(err, ar.ErrNotArchive) || errors.Is(err, ar.ErrTooSmall):
		return archiveError(cfg.Inputs[0], err)
	case err != nil:
		walkErr = fileError(cfg.Inputs[0], err)
	}
	// Members that fit the budget together are parsed side by side; the
	// rest after them, in order, so that the member the budget refuses is
	// the one a sequential walk names.
	fit, err := src.Fitting(ms)
	if err != nil {
		return fileError(cfg.Inputs[0], err)
	}
	res := parseShards(cfg, h, t, src, splitMembers(ms[:fit], shardCount(cfg)))
	if fit < len(ms) {
		res = append(res, parseShards(cfg, h, t, src, [][]container.Piece{ms[fit:]})...)
	}
	defer func() {
		for _, r := range res {
			r.sc.close()
		}
	}()
	perTarget := make([][]member, len(t.std))
	for _, r := range res {
		if r.err != nil {
			return r.err
		}
		for i := range perTarget {
			perTarget[i] = append(perTarget[i], r.perTarget[i]...)
		}
	}
	if walkErr != nil {
		return walkErr
	}
	return writeArchives(cfg, t, perTarget)
}

// parseShards parses each run of members in a goroutine of its own and
// waits for them all; each result's scratch files stay open, for the
// outputs, until the caller closes them.
func parseShards(cfg *Config, h handler, t *targets, src *container.Input, shards [][]container.Piece) []shardResult {
	res := make([]shardResult, len(shards))
	var wg sync.WaitGroup
	for k := range shards {
		res[k].sc = newScratch(cfg.TempDir)
		wg.Go(func() { res[k].parse(cfg, h, t, src, shards[k]) })
	}
	wg.Wait()
	return res
}

// shardCount is how many runs of members are parsed at once: one per CPU,
// or one when parsing prints (--###, -verbose), to keep the output in order.
func shardCount(cfg *Config) int {
	if cfg.Verbose || cfg.PrintCommands {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// splitMembers cuts ms into at most n consecutive runs of about equal size.
func splitMembers(ms []container.Piece, n int) [][]container.Piece {
	var total int64
	for _, m := range ms {
		total += m.Size + 60
	}
	per := total/int64(max(n, 1)) + 1
	var out [][]container.Piece
	var acc int64
	start := 0
	for i, m := range ms {
		acc += m.Size + 60
		if acc >= per && len(out) < n-1 {
			out = append(out, ms[start:i+1])
			start, acc = i+1, 0
		}
	}
	if start < len(ms) {
		out = append(out, ms[start:])
	}
	return out
}

// shardResult is what parsing one run of members gives.
type shardResult struct {
	sc        *scratch
	perTarget [][]member
	err       error // the first member's error; later members are not parsed
}

// parse parses the members ms of src in a goroutine of its own, which
// reads the mapping (container.InputOptions.Map): a fault there is r.err.
func (r *shardResult) parse(cfg *Config, h handler, t *targets, src *container.Input, ms []container.Piece) {
	defer faultGuard(&r.err, cfg.Inputs[0])()
	st := newArchiveState(src.R)
	r.perTarget = make([][]member, len(t.std))
	for _, m := range ms {
		if r.err = archiveChild(cfg, h, t, src, m, r.sc, r.perTarget, st); r.err != nil {
			return
		}
	}
}

func archiveChild(cfg *Config, h handler, t *targets, src *container.Input, m container.Piece, sc *scratch, perTarget [][]member, st *archiveState) error {
	data, release := st.memberData(m)
	defer release()
	child := &container.Source{Name: m.Name, R: data, Size: m.Size}
	in, err := expandMember(cfg, src, child, "Failed to decompress code object")
	var be *Error
	if errors.As(err, &be) {
		return inFile(cfg.Inputs[0], m.Name, err)
	}
	if err != nil {
		return fileError(cfg.Inputs[0], err)
	}
	sc.hold(in) // its decoded records are read again when the outputs are written
	var all []entry
	for _, p := range in.Parts {
		es, err := h.entries(cfg, p, sc)
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
	for _, e := range all {
		co, fits, err := st.match(e.id, t, cfg.HIPOpenMPCompatible)
		if err != nil {
			return inFile(cfg.Inputs[0], m.Name, errorf("Invalid bundle id read from code object"))
		}
		// Named only where written: every member may have one long name,
		// and scanning it costs its length per member.
		if len(fits) > 0 {
			st.place(perTarget, memberName(path.Base(m.Name), e.id, co.TargetID), e, fits)
		}
	}
	return nil
}

// place opens entry e once per target it fits and lists its symbols (once)
// while its member is still in memory.
func (st *archiveState) place(perTarget [][]member, name string, e entry, fits []int) {
	var syms *symbols
	for _, i := range fits {
		r, n, err := e.open()
		m := member{name: name, data: r, size: n, err: err}
		if err == nil {
			if syms == nil {
				wm := ar.WriterMember{Name: name, Size: n, Data: r}
				err := addSymbols(&wm, &st.buf)
				syms = &symbols{object: wm.Object, names: wm.Symbols, err: err}
			}
			m.syms = syms
		}
		perTarget[i] = append(perTarget[i], m)
	}
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
		errs := make([]error, len(ms))
		for j, m := range ms {
			if m.err != nil {
				return fileError(cfg.Inputs[0], m.err)
			}
			wms[j] = ar.WriterMember{Name: m.name, Size: m.size, Data: m.data, Object: m.syms.object, Symbols: m.syms.names}
			errs[j] = m.syms.err
		}
		jobs = append(jobs, archiveJob{out: out, path: cfg.Outputs[i], members: wms, symErrs: errs})
	}
	if err := writeArchiveJobs(cfg.Inputs[0], jobs); err != nil {
		return err
	}
	return g.Commit()
}

// addSymbols marks ELF and bitcode members as objects and lists their
// global symbols, so the archive gets the symbol table LLVM's writeArchive
// gives it. Other members stay raw blobs. A small member that is not in
// memory is read whole into *buf once, and parsed there.
func addSymbols(m *ar.WriterMember, buf *[]byte) error {
	ra, ok := m.Data.(io.ReaderAt)
	if !ok {
		return nil
	}
	mem := heldBytes(ra, m.Size)
	if mem == nil && m.Size >= 4 && m.Size <= maxScratchMember {
		if int64(cap(*buf)) < m.Size {
			*buf = make([]byte, m.Size)
		}
		if n, _ := ra.ReadAt((*buf)[:m.Size], 0); n == int(m.Size) {
			mem = (*buf)[:m.Size]
		}
	}
	if mem != nil {
		ra = bytes.NewReader(mem)
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
	// The lean lister succeeds exactly when Open and ArchiveSymbols do;
	// only on failure is Open needed, to tell a blob from an error.
	var syms []string
	var err error
	if mem != nil {
		syms, err = elfobj.ArchiveSymbolsBytes(mem)
	} else {
		syms, err = elfobj.ArchiveSymbolsAt(ra, m.Size)
	}
	if err == nil {
		m.Object, m.Symbols = true, syms
		return nil
	}
	f, ferr := elfobj.Open(ra, m.Size)
	if ferr != nil {
		return nil // not a valid object: LLVM stores it as a blob too
	}
	syms, err = f.ArchiveSymbols()
	if err != nil {
		return fmt.Errorf("member %s: %w", m.Name, err)
	}
	m.Object, m.Symbols = true, syms
	return nil
}

// maxScratchMember is the largest member addSymbols reads whole.
const maxScratchMember = 1 << 20

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
