package bundler

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"io"
	"slices"

	"github.com/rules-offload/rules_offload/lib/atomicfile"
	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
)

// maxStreamHeader bounds the bundle header the streaming path buffers; a
// larger header (tens of thousands of entries) takes the spooled path.
const maxStreamHeader = 1 << 20

// streamInto offers the input to a router (container.Sink) when it is
// one compressed record holding, it may be, one binary bundle: the bundle
// header is parsed as it comes out of the decoder, and each payload goes
// straight to its output (in g) while the MD5 is computed beside it,
// without first writing the decompressed bundle to a temporary file. That
// halves the bytes written and read back. Whenever the input is anything
// else (text bundles, objects, trailing data, several bundles, an entry
// layout it cannot stream, or any error that depends on the whole bundle)
// the router spools the decompressed bytes as the general path would have
// them, and they go through it, so results and messages do not depend on
// which path ran. -verbose reports each decompression, so it never
// streams; nor do text bundles. *rt is the router, once there is one.
func streamInto(cfg *Config, h handler, t *targets, g *atomicfile.Group, rt **router) container.Stream {
	if h.kind == textHandler || cfg.Verbose {
		return nil
	}
	return func(h ccob.Header, spool io.Writer) container.Sink {
		*rt = &router{cfg: cfg, t: t, spool: spool, group: g, size: int64(h.UncompressedSize)}
		return *rt
	}
}

type routeState int

const (
	routeHeader routeState = iota // gathering the bundle header
	routeStream                   // payloads go to the outputs
	routeSpool                    // everything goes to the spool file
)

// router receives the decompressed bundle. It first gathers the header;
// then either writes each assigned payload to its output as the bytes pass
// or, when it cannot, spools everything for the general path.
type router struct {
	cfg   *Config
	t     *targets
	spool io.Writer
	group *atomicfile.Group

	size  int64 // of the bundle, as the CCOB declares (the decoder enforces it)
	state routeState
	bundleHead
	pos  int64  // bundle offset of the next byte written
	plan []span // assigned payloads, by offset
	err  error  // an output error, reported as it is
}

// bundleHead gathers the binary bundle header at the start of a stream.
type bundleHead struct {
	head []byte // the bytes seen while gathering the header
	// headerEnd's progress: records still to read, and where the next is.
	counted       bool
	records, hpos uint64
}

// span is a payload and the output it goes to.
type span struct {
	off, end int64
	target   int
	out      *atomicfile.File
}

func (r *router) Write(p []byte) (int, error) {
	switch r.state {
	case routeSpool:
		return r.spool.Write(p)
	case routeStream:
		return len(p), r.route(p)
	}
	r.head = append(r.head, p...)
	if len(r.head) >= len(bundle.Magic) && !bundle.IsBinary(r.head) {
		return len(p), r.toSpool()
	}
	end, ok := r.headerEnd()
	switch {
	case !ok && len(r.head) < maxStreamHeader:
		return len(p), nil // need more
	case !ok:
		return len(p), r.toSpool()
	}
	if err := r.planFor(end); err != nil || r.state == routeSpool {
		return len(p), err
	}
	head := r.head
	r.head = nil
	return len(p), r.route(head)
}

// Finish, once the whole bundle was written, spools it if it was shorter
// than its header (the general path says why), and reports whether it
// spooled.
func (r *router) Finish() (bool, error) {
	if r.state == routeHeader {
		if err := r.toSpool(); err != nil {
			return true, err
		}
	}
	return r.state == routeSpool, nil
}

// toSpool gives up streaming: what was gathered goes to the spool file.
func (r *router) toSpool() error {
	r.state = routeSpool
	_, err := r.spool.Write(r.head)
	r.head = nil
	return err
}

// planFor parses the gathered header (end bytes long) and, if the general
// path would find exactly this bundle and succeed, creates the outputs and
// starts streaming. Anything else goes to the spool.
func (r *router) planFor(end int64) error {
	es, err := bundle.ReadBinary(bytes.NewReader(r.head[:end]), r.size)
	if err != nil {
		return r.toSpool()
	}
	es = inLLVMOrder(es)
	all := make([]entry, len(es))
	last := int64(0)
	for i, e := range es {
		all[i] = entry{id: e.ID}
		last = max(last, e.Offset+e.Size)
	}
	if last != r.size { // a further bundle or trailing data may follow
		return r.toSpool()
	}
	assign, err := match(all, r.t, r.cfg.HIPOpenMPCompatible)
	if err != nil || !r.complete(assign) {
		return r.toSpool()
	}
	var plan []span
	for i, a := range assign {
		if a >= 0 {
			plan = append(plan, span{off: es[a].Offset, end: es[a].Offset + es[a].Size, target: i})
		}
	}
	slices.SortFunc(plan, func(a, b span) int { return cmp.Compare(a.off, b.off) })
	for i := 1; i < len(plan); i++ {
		if plan[i].off < plan[i-1].end {
			return r.toSpool() // overlapping payloads: rare, and the general path copies
		}
	}
	return r.open(plan)
}

// complete reports whether the general path would write every output
// without an error: some bundle matched, and any missing one is allowed.
func (r *router) complete(assign []int) bool {
	found, missing := false, false
	for _, a := range assign {
		found = found || a >= 0
		missing = missing || a < 0
	}
	return found && (!missing || r.cfg.AllowMissingBundles)
}

// open creates the outputs in command-line order, as writeOutputs does
// (targets without a bundle get an empty file), and starts streaming.
func (r *router) open(plan []span) error {
	outs := make([]*atomicfile.File, len(r.cfg.Outputs))
	for i, path := range r.cfg.Outputs {
		out, err := createIn(r.group, path)
		if err != nil {
			r.err = err
			return err
		}
		outs[i] = out
	}
	for i := range plan {
		plan[i].out = outs[plan[i].target]
	}
	r.plan = plan
	r.state = routeStream
	return nil
}

// route writes the parts of p, which starts at bundle offset r.pos, that
// fall in planned payloads.
func (r *router) route(p []byte) error {
	start := r.pos
	r.pos += int64(len(p))
	for len(r.plan) > 0 && start < r.pos {
		s := r.plan[0]
		if s.off >= r.pos {
			return nil
		}
		lo, hi := max(s.off, start), min(s.end, r.pos)
		if lo < hi {
			if _, err := s.out.Write(p[lo-start : hi-start]); err != nil {
				r.err = fileError(s.out.Path(), err)
				return r.err
			}
		}
		if s.end > r.pos {
			return nil
		}
		r.plan = r.plan[1:]
	}
	return nil
}

// headerEnd returns the length of the binary bundle header at the start of
// r.head, or false while r.head does not hold all of it. It resumes where
// the last call stopped, so that a stream of tiny writes costs linear time.
func (r *bundleHead) headerEnd() (int64, bool) {
	const prefix = uint64(len(bundle.Magic) + 8)
	b := r.head
	if !r.counted {
		if uint64(len(b)) < prefix {
			return 0, false
		}
		r.records, r.hpos, r.counted = binary.LittleEndian.Uint64(b[len(bundle.Magic):]), prefix, true
	}
	for ; r.records > 0; r.records-- {
		if r.hpos+24 > uint64(len(b)) {
			return 0, false
		}
		idLen := binary.LittleEndian.Uint64(b[r.hpos+16:])
		if idLen > uint64(len(b)) || r.hpos+24+idLen > uint64(len(b)) {
			return 0, false
		}
		r.hpos += 24 + idLen
	}
	return int64(r.hpos), true
}

var _ container.Sink = (*router)(nil)
