package inspect

import (
	"errors"
	"fmt"
	"io"

	"github.com/rules-offload/rules_offload/lib/container"
)

// compressedSeq describes one CCOB as n, or several stored back to back
// (with optional zero padding between them, as in .hip_fatbin sections)
// as a sequence whose first child is n. A record that does not decode,
// whose hash does not match, or data after a record that is no record,
// ends the sequence with a node that says so.
func (w *walker) compressedSeq(n *Node, v view, depth int) *Node {
	n.Format = "ccob"
	var recs []*Node
	opt := container.RecordsOptions{Budget: w.budget, Spill: w.spill, Prefix: w.opt.KeepCompressed, KeepMismatched: true}
	err := container.CCOBRecords(v.r, v.size, opt, func(rec *container.CCOBRecord) error {
		recs = append(recs, w.compressed(w.recordNode(n, recs, v, rec.Offset), rec, v, depth))
		return nil
	})
	var re *container.RecordError
	var te *container.TrailingError
	switch {
	case errors.As(err, &re):
		c := w.recordNode(n, recs, v, re.Offset)
		fail(c, v.sub(re.Offset, v.size-re.Offset), re.Err)
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

// recordNode is the node for the record at offset off of v: n for the
// first, after the records described so far a new one.
func (w *walker) recordNode(n *Node, recs []*Node, v view, off int64) *Node {
	if len(recs) == 0 {
		return n
	}
	return &Node{Format: "ccob", Offset: v.base + off, Size: v.size - off, Space: v.space}
}

// compressed describes the CCOB rec (hashed whole while decoding, with a
// bounded prefix kept) as n, and looks inside once: at the kept prefix,
// and only if that look reads past it (a bundle larger than the prefix,
// such as a HIP fat binary of over 16 MiB) at the record decoded again
// into an unlinked temporary file (container.CCOBRecord.Look). So a
// record that declares 4 GiB of zeros costs one pass and no disk, and a
// valid large bundle is read whole rather than called damaged.
func (w *walker) compressed(n *Node, rec *container.CCOBRecord, v view, depth int) *Node {
	defer w.temps.CloseFrom(w.temps.Len())
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
	space := fmt.Sprintf("decompressed#%d", w.ccobs)
	var c *Node
	err := rec.Look(func(payload io.ReaderAt, whole bool) error {
		c = w.node(view{r: payload, size: int64(h.UncompressedSize), space: space}, depth+1)
		return nil
	})
	if err != nil {
		if re := (*container.RecordError)(nil); errors.As(err, &re) {
			err = re.Err
		}
		c = &Node{Format: "data", Offset: 0, Size: int64(h.UncompressedSize), Space: space,
			Error: fmt.Sprintf("decoding the payload again to read past its first %d bytes: %v", rec.Kept, err)}
	}
	n.Children = append(n.Children, c)
	return n
}
