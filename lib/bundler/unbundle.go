package bundler

import (
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/container"
	"github.com/rules-offload/rules_offload/lib/targetid"
)

// Unbundle extracts one output per target from cfg.Inputs[0], following
// LLVM's compatibility rules (target-ID features, hip/hipv4, and openmp with
// HIPOpenMPCompatible). Bundles are taken in the order LLVM takes them (see
// entries), and each serves at most one output: the first remaining target
// whose ID equals it, else the first compatible one in the order of LLVM's
// worklist StringMap, as LLVM does (LLVM takes the first compatible one even
// when another target is the bundle's exact ID). Outputs appear only if all
// succeed.
func Unbundle(cfg *Config) error {
	t, err := checkTargets(cfg, true)
	if err != nil {
		return err
	}
	h := handlerFor(cfg.FileType)
	if cfg.FileType == "a" {
		return unbundleArchive(cfg, h, t)
	}
	var g atomicfile.Group
	defer g.Abort()
	var rt *router
	dec := decompression(cfg, !cfg.Verbose)
	stream := streamInto(cfg, h, t, &g, &rt)
	in, err := openInput(cfg.Inputs[0], inputOptions(cfg))
	if err != nil {
		return err
	}
	defer in.Close()
	err = in.Decode(dec, stream)
	if rt != nil && rt.err != nil {
		return rt.err // an output's error, worded where it happened
	}
	if err != nil {
		return inputError(cfg.Inputs[0], decompressInput, err)
	}
	if !in.Streamed {
		err = unbundleParts(cfg, h, t, in, &g)
	}
	if err != nil {
		return err
	}
	return commit(cfg, in, &g)
}

// unbundleParts writes the outputs (into g) from the bundles of in, the
// general path.
func unbundleParts(cfg *Config, h handler, t *targets, in *container.Input, g *atomicfile.Group) error {
	reportUncompressed(cfg, in)
	sc := newScratch(cfg.TempDir)
	defer sc.close()
	var all []entry
	for _, p := range in.Parts {
		es, err := h.entries(cfg, p, sc)
		if err != nil {
			return hashFirst(cfg, in, fileError(cfg.Inputs[0], err))
		}
		all = append(all, es...)
	}
	assign, err := match(all, t, cfg.HIPOpenMPCompatible)
	if err != nil {
		return hashFirst(cfg, in, inFile(cfg.Inputs[0], "", err))
	}
	return writeOutputs(cfg, t, in, all, assign, g)
}

// commit makes the outputs appear once the input's compressed records
// have proved intact, whichever path wrote them.
func commit(cfg *Config, in *container.Input, g *atomicfile.Group) error {
	if err := hashFirst(cfg, in, nil); err != nil {
		return err
	}
	return g.Commit()
}

// match assigns bundles to targets: assign[i] is the entry index for target
// i, or -1.
func match(all []entry, t *targets, hipOpenMP bool) ([]int, error) {
	assign := make([]int, len(t.std))
	for i := range assign {
		assign[i] = -1
	}
	for ei, e := range all {
		co, err := targetid.ParseEntryID(e.id)
		if err != nil {
			return nil, errorf("invalid bundle id read from the bundle")
		}
		if ti := pick(co, t, assign, hipOpenMP); ti >= 0 {
			assign[ti] = ei
		}
	}
	return assign, nil
}

func pick(co targetid.EntryID, t *targets, assign []int, hipOpenMP bool) int {
	for i, std := range t.std {
		if assign[i] < 0 && std == co.String() {
			return i
		}
	}
	for _, i := range t.order {
		if assign[i] < 0 && targetid.Compatible(co, t.ids[i], hipOpenMP) {
			return i
		}
	}
	return -1
}

func writeOutputs(cfg *Config, t *targets, in *container.Input, all []entry, assign []int, g *atomicfile.Group) error {
	var missing []string
	found := false
	for i, a := range assign {
		if a < 0 {
			missing = append(missing, t.std[i])
		} else {
			found = true
		}
	}
	if len(missing) > 0 && !cfg.AllowMissingBundles {
		return hashFirst(cfg, in, inFile(cfg.Inputs[0], "", errorf("%s", missingList(missing))))
	}
	for i, a := range assign {
		out, err := createIn(g, cfg.Outputs[i])
		if err != nil {
			return err
		}
		if err := writeOne(out, cfg, t, i, a, found, in.Parts, all); err != nil {
			return hashFirst(cfg, in, err)
		}
	}
	return nil
}

// writeOne fills output i. When no bundle matched at all, the input is taken
// to be a plain host file: host outputs get a copy of it, others stay empty.
func writeOne(out io.Writer, cfg *Config, t *targets, i, a int, found bool, parts []*container.Source, all []entry) error {
	if a < 0 {
		if found || !t.ids[i].IsHost() {
			return nil
		}
		for _, p := range parts {
			if _, err := io.Copy(out, p.Reader()); err != nil {
				return fileError(cfg.Outputs[i], err)
			}
		}
		return nil
	}
	r, _, err := all[a].open()
	if err != nil {
		return fileError(cfg.Inputs[0], err)
	}
	if _, err := io.Copy(out, r); err != nil {
		return fileError(cfg.Outputs[i], err)
	}
	return nil
}

// List prints the IDs of the bundles in cfg.Inputs[0], one per line, in
// LLVM's order: a binary bundle's in the order of LLVM's StringMap (see
// hashorder.go), text bundles' and objects' in file order.
func List(cfg *Config) error {
	h := handlerFor(cfg.FileType)
	in, err := openInput(cfg.Inputs[0], inputOptions(cfg))
	if err != nil {
		return err
	}
	defer in.Close()
	if listHeaders(cfg, h, &in.Source) {
		return nil
	}
	if err := in.Decode(decompression(cfg, false), nil); err != nil {
		return inputError(cfg.Inputs[0], decompressInput, err)
	}
	reportUncompressed(cfg, in)
	sc := newScratch(cfg.TempDir)
	defer sc.close()
	for _, p := range in.Parts {
		es, err := h.entries(cfg, p, sc)
		if err != nil {
			return fileError(cfg.Inputs[0], err)
		}
		for _, e := range es {
			fmt.Fprintln(cfg.Stdout, e.id)
		}
	}
	return nil
}

// createIn adds the output path to g. An existing directory is refused up
// front: the group renames its files into place one by one, so a rename
// that fails on a directory would come after earlier outputs appeared.
func createIn(g *atomicfile.Group, path string) (*atomicfile.File, error) {
	if err := notDir(path); err != nil {
		return nil, err
	}
	f, err := g.Create(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	return f, nil
}

// notDir refuses an output path that is a directory, with LLVM's message.
func notDir(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fileError(path, syscall.EISDIR)
	}
	return nil
}
