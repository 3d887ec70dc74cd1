package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/inspect"
	"github.com/rules-offload/rules_offload/lib/shown"
	"github.com/rules-offload/rules_offload/tool/internal/cl"
)

func init() {
	register(&command{
		name:  "inspect",
		short: "show what is inside bundles, packages, objects and archives",
		run:   runInspect,
	})
}

func runInspect(prog string, args []string, stdout, stderr io.Writer) int {
	s := cl.NewSet(prog, "describe offload containers, nested to any depth, without writing anything", "[--json] FILE...")
	asJSON := s.Bool("json", "print a JSON document (the format README.md documents)")
	depth := s.String("max-depth", "n", "stop descending after n levels (default 16)")
	inflate := addInflateFlags(s)
	help := s.Bool("help", "Display available options")
	s.Alias("h", "help")
	if err := s.Parse(args); err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", prog, err)
		return 2
	}
	if help.On || len(s.Positional) == 0 {
		s.PrintHelp(stdout)
		if help.On {
			return 0
		}
		return 2
	}
	limit, err := inflate.limit()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
		return 2
	}
	opt := inspect.Options{MaxUncompressedSize: limit, AllowNestedCompression: inflate.nested.On}
	if depth.Given() {
		if _, err := fmt.Sscan(depth.Value(), &opt.MaxDepth); err != nil || opt.MaxDepth < 1 {
			fmt.Fprintf(stderr, "%s: --max-depth wants a positive number\n", prog)
			return 2
		}
	}
	status := 0
	var nodes []*inspect.Node
	for _, path := range s.Positional {
		n, err := inspect.File(path, opt)
		if err != nil {
			fmt.Fprintf(stderr, "%s: error: %v\n", prog, err)
			status = 1
			continue
		}
		if n.Failed() {
			status = 1
		}
		nodes = append(nodes, n)
	}
	if asJSON.On {
		for i, n := range nodes {
			nodes[i] = inspect.ForJSON(n)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			Files []*inspect.Node `json:"files"`
		}{nodes})
		return status
	}
	for _, n := range nodes {
		printNode(stdout, n, 0)
	}
	return status
}

func printNode(w io.Writer, n *inspect.Node, depth int) {
	indent := strings.Repeat("  ", depth)
	var b strings.Builder
	b.WriteString(indent)
	if n.Name != "" {
		b.WriteString(shown.Brief(n.Name) + ": ")
	}
	b.WriteString(n.Format)
	if n.Detail != "" {
		b.WriteString(" (" + shown.Brief(n.Detail) + ")")
	}
	if depth > 0 {
		fmt.Fprintf(&b, "  size %d", n.Size)
		if n.Offset >= 0 {
			fmt.Fprintf(&b, " at %d", n.Offset)
			if n.Space != "file" {
				b.WriteString(" in " + n.Space)
			}
		}
	}
	if n.SameAs != "" {
		b.WriteString(", same bytes as " + shown.Brief(n.SameAs) + ": described there")
	}
	fmt.Fprintln(w, b.String())
	if e := n.Entry; e != nil {
		fmt.Fprintf(w, "%s  %s\n", indent, entryLine(e))
	}
	if c := n.Compression; c != nil {
		check := "ok"
		if !c.HashOK {
			check = "MISMATCH"
		}
		fmt.Fprintf(w, "%s  %s, CCOB v%d, %d -> %d bytes (ratio %.2f), hash %s %s\n",
			indent, c.Method, c.Version, c.CompressedSize, c.UncompressedSize, c.Ratio, c.Hash, check)
	}
	if n.Error != "" {
		fmt.Fprintf(w, "%s  error: %s\n", indent, shown.Brief(n.Error))
	}
	for _, c := range n.Children {
		printNode(w, c, depth+1)
	}
}

func entryLine(e *inspect.Entry) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+" "+shown.Brief(v))
		}
	}
	add("kind", e.OffloadKind)
	add("triple", e.Triple)
	add("arch", e.Arch)
	if len(e.Features) > 0 {
		add("features", strings.Join(e.Features, ":"))
	}
	add("image", e.ImageKind)
	for _, kv := range e.Strings {
		if kv.Key != "triple" && kv.Key != "arch" {
			add(shown.Brief(kv.Key), kv.Value)
		}
	}
	return strings.Join(parts, ", ")
}
