package inspect

import (
	"errors"
	"fmt"

	"github.com/rules-offload/rules_offload/lib/container"
)

// One CCOB is described as one node, several stored back to back (with
// optional zero padding between them, as in .hip_fatbin sections) as a
// sequence whose first child is the first record's node. A record that
// does not decode, whose hash does not match, or data after a record that
// is no record, ends the sequence with a node that says so.

// enterRecord describes the CCOB rec (hashed whole while decoding, with a
// bounded prefix kept): the first record of a sequence as the sequence's
// own node, the others as nodes of their own. The walk looks inside once:
// at the kept prefix, and only if that look reads past it (a bundle larger
// than the prefix, such as a HIP fat binary of over 16 MiB) at the record
// decoded again into an unlinked temporary file (container.CCOBRecord.Look).
// So a record that declares 4 GiB of zeros costs one pass and no disk, and
// a valid large bundle is read whole rather than called damaged.
func (w *walker) enterRecord(p *container.Part) bool {
	rec, seq := p.Record, p.Parent
	v := w.view(seq)
	n := recordNode(nodeOf(seq), w.recs[seq], v, rec.Offset)
	h := rec.Header
	n.Format, n.Size = "ccob", rec.Used
	n.Compression = &Compression{
		Version: int(h.Version), Method: h.Method.String(), CompressedSize: rec.Used,
		UncompressedSize: h.UncompressedSize, Hash: fmt.Sprintf("0x%016x", h.Hash), HashOK: rec.HashErr == nil,
	}
	if rec.Used > 0 {
		n.Compression.Ratio = float64(h.UncompressedSize) / float64(rec.Used)
	}
	if rec.HashErr != nil {
		n.Error = fmt.Sprintf("at offset %d (%s): hash mismatch: the payload does not match the stored truncated MD5 %s", v.base+rec.Offset, v.space, n.Compression.Hash)
	}
	w.ccobs++
	w.spaces[p] = fmt.Sprintf("decompressed#%d", w.ccobs)
	p.Tag = n
	return true
}

// recordNode is the node for the record at offset off of v: n, the
// sequence's node, for the first, after the records described so far
// (recs) a new one.
func recordNode(n *Node, recs []*Node, v view, off int64) *Node {
	if len(recs) == 0 {
		return n
	}
	return &Node{Format: "ccob", Offset: v.base + off, Size: v.size - off, Space: v.space}
}

// leaveRecord adds the record's node to its sequence's records. A record
// that had to be decoded again, whole, and failed to is described by
// that failure instead of by what was made of its prefix.
func (w *walker) leaveRecord(p *container.Part, err error) {
	n, seq, space := nodeOf(p), p.Parent, w.spaces[p]
	delete(w.spaces, p)
	if err != nil {
		if re := (*container.RecordError)(nil); errors.As(err, &re) {
			err = re.Err
		}
		c := &Node{Format: "data", Offset: 0, Size: int64(p.Record.Header.UncompressedSize), Space: space,
			Error: fmt.Sprintf("decoding the payload again to read past its first %d bytes: %v", p.Record.Kept, err)}
		if k := len(n.Children); k > 0 {
			n.Children[k-1] = c
		} else {
			n.Children = append(n.Children, c)
		}
	}
	w.recs[seq] = append(w.recs[seq], n)
}

// describeSeq describes a sequence of records: one record spanning it as
// n, else a sequence node over their nodes.
func (w *walker) describeSeq(p *container.Part, n *Node, err error) *Node {
	recs := w.recs[p]
	delete(w.recs, p)
	v := w.view(p)
	var re *container.RecordError
	var te *container.TrailingError
	switch {
	case errors.As(err, &re):
		c := recordNode(n, recs, v, re.Offset)
		fail(c, view{v.base + re.Offset, v.size - re.Offset, v.space}, re.Err)
		recs = append(recs, c)
	case errors.As(err, &te):
		recs = append(recs, &Node{Format: "data", Offset: v.base + te.Offset, Size: v.size - te.Offset, Space: v.space,
			Error: fmt.Sprintf("at offset %d (%s): unexpected data after a compressed bundle", v.base+te.Offset, v.space)})
	case err != nil && len(recs) == 0: // nested compression, the budget
		fail(n, v, err)
	}
	if n.Error != "" || n.Size >= v.size {
		return n
	}
	seq := &Node{Format: "ccob-sequence", Offset: v.base, Size: v.size, Space: v.space, Children: recs}
	seq.Detail = fmt.Sprintf("%d compressed bundles", len(recs))
	if err != nil && re == nil && te == nil {
		fail(seq, v, err)
	}
	return seq
}
