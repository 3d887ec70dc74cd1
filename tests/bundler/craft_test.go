package bundler_test

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"strings"
)

// Files written by hand from the layouts (docs/provenance.md), independent of
// the code under test, for inputs LLVM cannot or will not write.

const bundleMagic = "__CLANG_OFFLOAD_BUNDLE__"

type rawEntry struct {
	id   string
	data []byte
}

// binaryBundle lays out a binary bundle as docs/provenance.md#binary-bundle describes.
func binaryBundle(entries []rawEntry, align int) []byte {
	h := len(bundleMagic) + 8
	for _, e := range entries {
		h += 24 + len(e.id)
	}
	offs := make([]int, len(entries))
	for i, e := range entries {
		h = (h + align - 1) / align * align
		offs[i] = h
		h += len(e.data)
	}
	var b bytes.Buffer
	b.WriteString(bundleMagic)
	le64(&b, uint64(len(entries)))
	for i, e := range entries {
		le64(&b, uint64(offs[i]))
		le64(&b, uint64(len(e.data)))
		le64(&b, uint64(len(e.id)))
		b.WriteString(e.id)
	}
	for i, e := range entries {
		for b.Len() < offs[i] {
			b.WriteByte(0)
		}
		b.Write(e.data)
	}
	return b.Bytes()
}

func le64(b *bytes.Buffer, v uint64) { binary.Write(b, binary.LittleEndian, v) }

// textBundle lays out a text bundle as docs/provenance.md#text-bundle describes.
func textBundle(comment string, entries []rawEntry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&b, "\n%s %s__START__ %s\n", comment, bundleMagic, e.id)
		b.Write(e.data)
		fmt.Fprintf(&b, "\n%s %s__END__ %s\n", comment, bundleMagic, e.id)
	}
	return b.Bytes()
}

// ccobFile wraps a compressed payload in a CCOB header (docs/provenance.md#ccob).
// total < 0 means the real total size; the hash is MD5's first 8 bytes.
func ccobFile(version, method uint16, uncompressed []byte, payload []byte, total int64) []byte {
	var b bytes.Buffer
	b.WriteString("CCOB")
	binary.Write(&b, binary.LittleEndian, version)
	binary.Write(&b, binary.LittleEndian, method)
	sum := md5.Sum(uncompressed)
	hdr := map[uint16]int{1: 20, 2: 24, 3: 32}[version]
	if total < 0 {
		total = int64(hdr + len(payload))
	}
	switch version {
	case 1:
		binary.Write(&b, binary.LittleEndian, uint32(len(uncompressed)))
	case 2:
		binary.Write(&b, binary.LittleEndian, uint32(total))
		binary.Write(&b, binary.LittleEndian, uint32(len(uncompressed)))
	case 3:
		binary.Write(&b, binary.LittleEndian, uint64(total))
		binary.Write(&b, binary.LittleEndian, uint64(len(uncompressed)))
	}
	b.Write(sum[:8])
	b.Write(payload)
	return b.Bytes()
}

// ccobFields is the decoded header of a CCOB file.
type ccobFields struct {
	version, method         uint16
	total, size, headerSize uint64
	hash                    [8]byte
}

func parseCCOB(b []byte) (ccobFields, error) {
	var f ccobFields
	if len(b) < 8 || string(b[:4]) != "CCOB" {
		return f, fmt.Errorf("not a CCOB file")
	}
	f.version = binary.LittleEndian.Uint16(b[4:])
	f.method = binary.LittleEndian.Uint16(b[6:])
	switch f.version {
	case 2:
		if len(b) < 24 {
			return f, fmt.Errorf("short v2 header")
		}
		f.total = uint64(binary.LittleEndian.Uint32(b[8:]))
		f.size = uint64(binary.LittleEndian.Uint32(b[12:]))
		copy(f.hash[:], b[16:24])
		f.headerSize = 24
	case 3:
		if len(b) < 32 {
			return f, fmt.Errorf("short v3 header")
		}
		f.total = binary.LittleEndian.Uint64(b[8:])
		f.size = binary.LittleEndian.Uint64(b[16:])
		copy(f.hash[:], b[24:32])
		f.headerSize = 32
	default:
		return f, fmt.Errorf("version %d", f.version)
	}
	return f, nil
}

type arMember struct {
	name string
	data []byte
}

// arArchive writes a GNU archive without a symbol table; names longer than
// 15 bytes go to a "//" name table, as GNU ar does.
func arArchive(members []arMember) []byte {
	var b, names bytes.Buffer
	b.WriteString("!<arch>\n")
	nameField := make([]string, len(members))
	for i, m := range members {
		if len(m.name) <= 15 {
			nameField[i] = m.name + "/"
		} else {
			nameField[i] = fmt.Sprintf("/%d", names.Len())
			names.WriteString(m.name + "/\n")
		}
	}
	if names.Len() > 0 {
		arHeader(&b, "//", names.Len())
		b.Write(names.Bytes())
		if names.Len()%2 == 1 {
			b.WriteByte('\n')
		}
	}
	for i, m := range members {
		arHeader(&b, nameField[i], len(m.data))
		b.Write(m.data)
		if len(m.data)%2 == 1 {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func arHeader(b *bytes.Buffer, name string, size int) {
	fmt.Fprintf(b, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", "644", size)
}

// arMembers parses a GNU archive (symbol table skipped, long names
// resolved): enough to compare archives member by member.
func arMembers(b []byte) ([]arMember, error) {
	if !bytes.HasPrefix(b, []byte("!<arch>\n")) {
		return nil, fmt.Errorf("not an archive")
	}
	var out []arMember
	var longNames []byte
	for off := 8; off < len(b); {
		if off+60 > len(b) {
			return nil, fmt.Errorf("truncated header at %d", off)
		}
		h := b[off : off+60]
		var size int
		if _, err := fmt.Sscan(strings.TrimSpace(string(h[48:58])), &size); err != nil {
			return nil, err
		}
		data := b[off+60 : off+60+size]
		name := strings.TrimRight(string(h[:16]), " ")
		switch {
		case name == "/" || name == "/SYM64/":
		case name == "//":
			longNames = data
		case strings.HasPrefix(name, "/"):
			var at int
			fmt.Sscan(name[1:], &at)
			end := bytes.Index(longNames[at:], []byte("/\n"))
			out = append(out, arMember{string(longNames[at : at+end]), data})
		default:
			out = append(out, arMember{strings.TrimSuffix(name, "/"), data})
		}
		off += 60 + size + size%2
	}
	return out, nil
}
