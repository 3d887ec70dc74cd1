// Package strtab lays out string tables as LLVM's StringTableBuilder does
// (Build), and reads tables held whole without copying their strings
// (Table).
//
// Build lays them out as LLVM's StringTableBuilder does in ELF mode with
// optimisation: a leading NUL, the strings sorted by their reversed bytes
// (descending), each string that is the tail of the one written before it
// sharing that one's bytes. ELF string tables that clang, llvm-objcopy and
// llvm-offload-binary write are laid out this way, so writing the same
// strings this way gives the same bytes.
package strtab

import (
	"bytes"
	"sort"
	"strings"
)

// Build lays out strs and returns the table and each string's offset in
// it. Repeated strings are stored once; "" is at offset 0.
func Build(strs []string) ([]byte, map[string]uint64) {
	offsets := make(map[string]uint64, len(strs))
	var uniq []string
	for _, s := range strs {
		if _, ok := offsets[s]; !ok {
			offsets[s] = 0
			uniq = append(uniq, s)
		}
	}
	// Descending order of the reversed strings: LLVM's multikey sort on
	// characters from the end, where running out sorts lowest. Distinct
	// strings are totally ordered by it, so any sort gives LLVM's result.
	sort.Slice(uniq, func(i, j int) bool { return tailCompare(uniq[i], uniq[j]) > 0 })

	var tab bytes.Buffer
	tab.WriteByte(0)
	prev := ""
	for _, s := range uniq {
		if strings.HasSuffix(prev, s) {
			offsets[s] = uint64(tab.Len() - len(s) - 1)
			continue
		}
		offsets[s] = uint64(tab.Len())
		tab.WriteString(s)
		tab.WriteByte(0)
		prev = s
	}
	// The empty string is always the leading NUL.
	if _, ok := offsets[""]; ok {
		offsets[""] = 0
	}
	return tab.Bytes(), offsets
}

// tailCompare compares a and b from their last byte backwards; a string that
// runs out first is the smaller.
func tailCompare(a, b string) int {
	i, j := len(a)-1, len(b)-1
	for ; i >= 0 && j >= 0; i, j = i-1, j-1 {
		if a[i] != b[j] {
			if a[i] > b[j] {
				return 1
			}
			return -1
		}
	}
	switch {
	case i >= 0:
		return 1
	case j >= 0:
		return -1
	}
	return 0
}
