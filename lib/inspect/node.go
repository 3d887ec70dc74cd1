// Package inspect recognises every offload container — binary and text
// bundles, compressed bundles (CCOB v1-v3), OffloadBinaries (v1-v3), ELF
// files with bundle, .hip_fatbin or .llvm.offloading sections, COFF
// objects with .llvm.offloading* sections, and ar archives of any of
// these — nested to any depth, and describes them as a tree. It reads
// headers, not payloads: the only payloads it reads are compressed ones,
// whose hash it checks while decompressing into a bounded prefix. It never
// writes files.
package inspect

// Node is one recognised thing: a file, an archive member, an ELF or COFF
// section, a bundle entry, an OffloadBinary image or a compressed payload.
// The JSON form of a Node tree is the documented, stable output of
// `offload inspect --json` (see README.md).
type Node struct {
	// Format says what this node is: "elf", "coff", "archive", "bundle",
	// "text-bundle", "ccob", "ccob-sequence" (CCOBs stored back to back),
	// "offload-binary", "cuda-fatbin" (NVIDIA's fat binary: its entries are
	// "elf" cubins and "ptx"), or, for leaves, "bitcode", "ptx",
	// "spirv", "text" (a text bundle entry), "host-marker" (the one-byte
	// host section of a bundled object), "empty" or "data".
	Format string `json:"format"`
	// Name is the file name, member name, section name or entry ID.
	Name string `json:"name,omitempty"`
	// Offset and Size locate the node within the container given in
	// Space; Offset is absolute in that space, and -1 where the node has
	// no byte range of its own (text bundle entries).
	Offset int64 `json:"offset"`
	Size   int64 `json:"size"`
	// Space is "file" for offsets in the inspected file, "decompressed#N"
	// for offsets inside the Nth compressed bundle (counted from 1 in the
	// order met), or "inflated" for images of a compressed OffloadBinary
	// (offsets in its inflated data).
	Space string `json:"space"`
	// Detail is a short human description ("ELF64 relocatable, x86-64").
	Detail string `json:"detail,omitempty"`
	// Entry describes a bundle entry or an OffloadBinary image.
	Entry *Entry `json:"entry,omitempty"`
	// Compression describes a CCOB.
	Compression *Compression `json:"compression,omitempty"`
	Children    []*Node      `json:"children,omitempty"`
	// SameAs, for bytes described elsewhere in the tree (bundle entries,
	// sections or members that point at the same range as an earlier
	// one), is the path of names, from the file down, of that description;
	// such a node has no children of its own.
	SameAs string `json:"same_as,omitempty"`
	first  *Node  // the node SameAs names
	// Error says where and why parsing of this node stopped.
	Error string `json:"error,omitempty"`
	// Truncated is set by ForJSON: for each field cut to its first 4 KiB
	// (its JSON key, "entry.strings.2.value" for one inside the entry),
	// the field's whole length in bytes.
	Truncated map[string]int `json:"truncated,omitempty"`
}

// Entry is the target of a bundle entry or an OffloadBinary image.
type Entry struct {
	ID          string   `json:"id,omitempty"`           // bundle entry ID as stored
	OffloadKind string   `json:"offload_kind,omitempty"` // host, hip, hipv4, openmp, cuda, sycl, none
	Triple      string   `json:"triple,omitempty"`
	Arch        string   `json:"arch,omitempty"`      // processor, such as gfx90a or sm_90
	TargetID    string   `json:"target_id,omitempty"` // processor with features
	Features    []string `json:"features,omitempty"`  // such as xnack+
	ImageKind   string   `json:"image_kind,omitempty"`
	Strings     []KV     `json:"strings,omitempty"` // OffloadBinary metadata in file order
	Version     int      `json:"version,omitempty"` // OffloadBinary format version
}

// KV is one OffloadBinary metadata pair.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Compression describes a compressed bundle and its check.
type Compression struct {
	Version          int     `json:"version"`
	Method           string  `json:"method"`
	CompressedSize   int64   `json:"compressed_size"`
	UncompressedSize uint64  `json:"uncompressed_size"`
	Ratio            float64 `json:"ratio"`
	Hash             string  `json:"hash"`
	HashOK           bool    `json:"hash_ok"`
}

// Failed reports whether n or any node below it has an error.
func (n *Node) Failed() bool {
	if n.Error != "" {
		return true
	}
	for _, c := range n.Children {
		if c.Failed() {
			return true
		}
	}
	return false
}
