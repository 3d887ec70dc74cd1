package targetid

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The rules' processor tables (rules/private/targets/processors.bzl) are
// generated from this package's, so the Starlark and Go parsers read the
// same LLVM 22 tables:
//
//	go generate ./lib/targetid    (runs this test with -update)
//
// Without -update the test fails when the checked-in file is stale.
var starlarkTables = filepath.Join("..", "..", "rules", "private", "targets", "processors.bzl")

// deviceTriples are the triples the rules compile device code for; their
// standardized forms (the triple part of a bundle entry ID) go into the
// table so the rules build entry IDs without parsing them.
var deviceTriples = []string{"amdgcn-amd-amdhsa", "nvptx64-nvidia-cuda", "spirv64-amd-amdhsa"}

func TestStarlarkTables(t *testing.T) {
	got := starlarkProcessors(t)
	if *update {
		if err := os.WriteFile(starlarkTables, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(starlarkTables)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run go generate ./lib/targetid", starlarkTables)
	}
}

func starlarkFeatures(features int) string {
	var f []string
	if features&featSramecc != 0 {
		f = append(f, `"sramecc"`)
	}
	if features&featXnack != 0 {
		f = append(f, `"xnack"`)
	}
	return "[" + strings.Join(f, ", ") + "]"
}

func starlarkProcessors(t *testing.T) []byte {
	var b bytes.Buffer
	b.WriteString(`"""Processor tables of LLVM 22.1.8, the data behind target validation.

Generated from lib/targetid (processors.go) by go generate ./lib/targetid;
do not edit. TestStarlarkTables there fails when this file is stale.
"""

# clang::OffloadArch names (clang/lib/Basic/OffloadArch.cpp), in table order.
# The bundler keeps a bundle entry's target ID only if its processor is one
# of these (exact, case-sensitive).
OFFLOAD_ARCHS = [
`)
	for _, a := range offloadArchs {
		fmt.Fprintf(&b, "    %q,\n", a)
	}
	b.WriteString(`]

# AMDGCNGPUs of llvm/lib/TargetParser/TargetParser.cpp: name -> (canonical
# name, target-ID features the processor supports). Alternative names such as
# "tahiti" are valid for clang::parseTargetID but not OffloadArch names.
AMDGCN_GPUS = {
`)
	for _, g := range amdgcnGPUs {
		fmt.Fprintf(&b, "    %q: (%q, %s),\n", g.name, g.canonical, starlarkFeatures(g.features))
	}
	b.WriteString(`}

# R600GPUs of TargetParser.cpp; none has target-ID features.
R600_GPUS = {
`)
	for _, g := range r600GPUs {
		fmt.Fprintf(&b, "    %q: %q,\n", g.name, g.canonical)
	}
	b.WriteString(`}

# The device triples of the rules, standardized as in a bundle entry ID
# (OffloadTargetInfo::str: amdhsa drops the environment, others have four
# components).
STANDARD_TRIPLES = {
`)
	for _, tr := range deviceTriples {
		e, err := ParseEntryID("openmp-" + tr + "-")
		if err != nil {
			t.Fatalf("%s: %v", tr, err)
		}
		fmt.Fprintf(&b, "    %q: %q,\n", tr, strings.Join([]string{e.Arch, e.Vendor, e.OS, e.Env}, "-"))
	}
	b.WriteString("}\n")
	return b.Bytes()
}
