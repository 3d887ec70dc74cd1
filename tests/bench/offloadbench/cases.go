package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// tool is one command of a case.
type tool struct {
	name string // ours, LLVM or cp
	argv []string
	outs []string // removed before every run, so no run pays to truncate
}

// benchCase is one side-by-side measurement and the targets it checks.
type benchCase struct {
	name   string
	bytes  int64 // the data moved, for the table
	tools  []tool
	checks []check
	// sizes names the compressed outputs of ours and LLVM, compared after
	// the runs; same names outputs that must be byte-identical.
	sizes *[2]string
	same  [][2]string
}

const (
	ours = "ours"
	llvm = "LLVM"
	cp   = "cp"
)

func (b *bench) out(name string) string { return filepath.Join(b.dir, "out", name) }

func (b *bench) bundler() string { return filepath.Join(b.bin, "clang-offload-bundler") }
func (b *bench) packager() string {
	return filepath.Join(b.bin, "llvm-offload-binary")
}

// bundleArgs is a clang-offload-bundler command line (without the program).
func bundleArgs(typ string, ids, ins []string, extra ...string) []string {
	args := []string{"-type=" + typ, "-targets=" + strings.Join(ids, ",")}
	for _, in := range ins {
		args = append(args, "-input="+in)
	}
	return append(args, extra...)
}

func (b *bench) cases(in *inputs) []benchCase {
	hostID := "host-x86_64-unknown-linux-gnu-"
	ids := append([]string{hostID}, in.devIDs...)
	var cs []benchCase
	// Uncompressed: a HIP fat binary (binary format: the host input is not
	// an object) and an object file with one bundle section per target.
	cs = append(cs, b.bundlePair("binary", "/dev/null", ids, in.dev, "-bundle-align=4096")...)
	cs = append(cs, b.bundlePair("object", in.host, ids, in.dev)...)
	cs = append(cs, b.compressCases("device code", ids, in.dev, "dev", true)...)
	// Random bytes test speed: both tools store them (raw zstd blocks),
	// and the sizes differ by a few bytes of framing either way.
	cs = append(cs, b.compressCases("incompressible", ids, in.rnd, "rnd", false)...)
	cs = append(cs, b.realisticCase(in))
	cs = append(cs, b.archiveCase(in))
	cs = append(cs, b.inspectCases(in)...)
	cs = append(cs, b.packagerCases(in)...)
	return cs
}

// bundlePair bundles four device inputs and unbundles the result, each
// against cp of the same bytes. LLVM's bundle is the unbundle input.
func (b *bench) bundlePair(kind, host string, ids, dev []string, extra ...string) []benchCase {
	ins := append([]string{host}, dev...)
	total := sumSizes(dev)
	oursOut, llvmOut := b.out(kind+"-ours.bundle"), b.out(kind+"-llvm.bundle")
	bundle := benchCase{
		name:  fmt.Sprintf("bundle %s, 4 × %s", kind, mib(total/4)),
		bytes: total,
		tools: []tool{
			{ours, append([]string{b.bundler()}, bundleArgs("o", ids, ins, append(extra, "-output="+oursOut)...)...), []string{oursOut}},
			{llvm, append([]string{"clang-offload-bundler-22"}, bundleArgs("o", ids, ins, append(extra, "-output="+llvmOut)...)...), []string{llvmOut}},
			b.cpTool(dev...),
		},
		checks: uncompressedChecks(),
		same:   [][2]string{{oursOut, llvmOut}},
	}
	var oursOuts, llvmOuts []string
	for i := range ids {
		oursOuts = append(oursOuts, b.out(fmt.Sprintf("%s-ours.%d", kind, i)))
		llvmOuts = append(llvmOuts, b.out(fmt.Sprintf("%s-llvm.%d", kind, i)))
	}
	unbundle := benchCase{
		name:  fmt.Sprintf("unbundle %s, 4 × %s", kind, mib(total/4)),
		bytes: total,
		tools: []tool{
			{ours, b.unbundleArgv(b.bundler(), "o", ids, llvmOut, oursOuts), oursOuts},
			{llvm, b.unbundleArgv("clang-offload-bundler-22", "o", ids, llvmOut, llvmOuts), llvmOuts},
			b.cpTool(llvmOut),
		},
		checks: uncompressedChecks(),
		same:   pairs(oursOuts, llvmOuts),
	}
	return []benchCase{bundle, unbundle}
}

func (b *bench) unbundleArgv(prog, typ string, ids []string, input string, outs []string) []string {
	args := []string{prog, "-unbundle", "-type=" + typ, "-targets=" + strings.Join(ids, ","), "-input=" + input}
	for _, o := range outs {
		args = append(args, "-output="+o)
	}
	return args
}

func uncompressedChecks() []check {
	return []check{
		ratioAtMost(ours, cp, 1.5),
		ratioAtLeast(llvm, ours, 3),
		rssAtMost(ours, 64),
	}
}

// compressCases bundles with -compress and unbundles the compressed
// bundles: LLVM's with both tools, and ours with both.
func (b *bench) compressCases(label string, ids, dev []string, tag string, checkSize bool) []benchCase {
	ins := append([]string{"/dev/null"}, dev...)
	total := sumSizes(dev)
	oursOut, llvmOut := b.out(tag+"-ours.ccob"), b.out(tag+"-llvm.ccob")
	compress := benchCase{
		name:  fmt.Sprintf("bundle -compress, %s, 4 × %s", label, mib(total/4)),
		bytes: total,
		tools: []tool{
			{ours, append([]string{b.bundler()}, bundleArgs("o", ids, ins, "-bundle-align=4096", "-compress", "-output="+oursOut)...), []string{oursOut}},
			{llvm, append([]string{"clang-offload-bundler-22"}, bundleArgs("o", ids, ins, "-bundle-align=4096", "-compress", "-output="+llvmOut)...), []string{llvmOut}},
		},
		checks: []check{ratioAtMost(ours, llvm, 0.5)},
		sizes:  &[2]string{oursOut, llvmOut},
	}
	if checkSize {
		compress.checks = append(compress.checks, sizeNotLarger())
	}
	cs := []benchCase{compress}
	for _, src := range []struct{ who, file string }{{"LLVM's", llvmOut}, {"our", oursOut}} {
		var oo, lo []string
		for i := range ids {
			oo = append(oo, b.out(fmt.Sprintf("%s-d-ours.%d", tag, i)))
			lo = append(lo, b.out(fmt.Sprintf("%s-d-llvm.%d", tag, i)))
		}
		cs = append(cs, benchCase{
			name:  fmt.Sprintf("unbundle %s CCOB, %s, 4 × %s", src.who, label, mib(total/4)),
			bytes: total,
			tools: []tool{
				{ours, b.unbundleArgv(b.bundler(), "o", ids, src.file, oo), oo},
				{llvm, b.unbundleArgv("clang-offload-bundler-22", "o", ids, src.file, lo), lo},
			},
			checks: []check{ratioAtMost(ours, llvm, 1)},
			same:   pairs(oo, lo),
		})
	}
	// The same without our hash check, which LLVM 22 never makes.
	var oo, lo []string
	for i := range ids {
		oo = append(oo, b.out(fmt.Sprintf("%s-n-ours.%d", tag, i)))
		lo = append(lo, b.out(fmt.Sprintf("%s-n-llvm.%d", tag, i)))
	}
	cs = append(cs, benchCase{
		name:  fmt.Sprintf("unbundle LLVM's CCOB --skip-hash-check, %s, 4 × %s", label, mib(total/4)),
		bytes: total,
		tools: []tool{
			{ours, append(b.unbundleArgv(b.bundler(), "o", ids, llvmOut, oo), "--skip-hash-check"), oo},
			{llvm, b.unbundleArgv("clang-offload-bundler-22", "o", ids, llvmOut, lo), lo},
		},
		checks: []check{ratioAtMost(ours, llvm, 1)},
		same:   pairs(oo, lo),
	})
	return cs
}

// realisticCase compresses every compiled target once, not replicated:
// what a HIP library built for many GPUs ships.
func (b *bench) realisticCase(in *inputs) benchCase {
	ids := append([]string{"host-x86_64-unknown-linux-gnu-"}, in.codeIDs...)
	ins := append([]string{"/dev/null"}, in.code...)
	oursOut, llvmOut := b.out("real-ours.ccob"), b.out("real-llvm.ccob")
	total := sumSizes(in.code)
	return benchCase{
		name:  fmt.Sprintf("bundle -compress, %d targets of distinct device code, %s", len(in.code), mib(total)),
		bytes: total,
		tools: []tool{
			{ours, append([]string{b.bundler()}, bundleArgs("o", ids, ins, "-bundle-align=4096", "-compress", "-output="+oursOut)...), []string{oursOut}},
			{llvm, append([]string{"clang-offload-bundler-22"}, bundleArgs("o", ids, ins, "-bundle-align=4096", "-compress", "-output="+llvmOut)...), []string{llvmOut}},
		},
		checks: []check{ratioAtMost(ours, llvm, 0.5), sizeNotLarger()},
		sizes:  &[2]string{oursOut, llvmOut},
	}
}

func (b *bench) archiveCase(in *inputs) benchCase {
	var ids []string
	for _, id := range in.devIDs {
		ids = append(ids, strings.Replace(id, "hipv4-", "hip-", 1))
	}
	var oo, lo []string
	for i := range ids {
		oo = append(oo, b.out(fmt.Sprintf("lib-ours-%d.a", i)))
		lo = append(lo, b.out(fmt.Sprintf("lib-llvm-%d.a", i)))
	}
	return benchCase{
		name:  fmt.Sprintf("unbundle -type=a, %d members × 4 targets, %s", b.sc.members, mib(fileSize(in.archive))),
		bytes: fileSize(in.archive),
		tools: []tool{
			{ours, b.unbundleArgv(b.bundler(), "a", ids, in.archive, oo), oo},
			{llvm, b.unbundleArgv("clang-offload-bundler-22", "a", ids, in.archive, lo), lo},
		},
		checks: []check{ratioAtLeast(llvm, ours, 3)},
		same:   pairs(oo, lo),
	}
}

func (b *bench) inspectCases(in *inputs) []benchCase {
	var cs []benchCase
	for _, f := range []struct{ what, path string }{{"bundle", in.big}, {"archive", in.bigAr}} {
		cs = append(cs, benchCase{
			name:   fmt.Sprintf("offload inspect, %s %s", mib(fileSize(f.path)), f.what),
			bytes:  fileSize(f.path),
			tools:  []tool{{ours, []string{filepath.Join(b.bin, "offload"), "inspect", f.path}, nil}},
			checks: []check{timeAtMost(ours, 0.1)},
		})
	}
	return cs
}

// packagerCases packages the four images into one OffloadBinary file and
// extracts them again, against cp of the same bytes.
func (b *bench) packagerCases(in *inputs) []benchCase {
	var images, filters []string
	var oo, lo []string
	for i, im := range in.images {
		arch := b.sc.amdArchs[i]
		images = append(images, "--image=file="+im+",triple=amdgcn-amd-amdhsa,arch="+arch+",kind=hip")
		oo = append(oo, b.out(fmt.Sprintf("image-ours.%d", i)))
		lo = append(lo, b.out(fmt.Sprintf("image-llvm.%d", i)))
		filters = append(filters, "--image=arch="+arch)
	}
	total := sumSizes(in.images)
	oursPkg, llvmPkg := b.out("ours.offloadbin"), b.out("llvm.offloadbin")
	pack := benchCase{
		name:  fmt.Sprintf("package 4 images, %s", mib(total)),
		bytes: total,
		tools: []tool{
			{ours, append([]string{b.packager(), "-o", oursPkg}, images...), []string{oursPkg}},
			{llvm, append([]string{"llvm-offload-binary-22", "-o", llvmPkg}, images...), []string{llvmPkg}},
			b.cpTool(in.images...),
		},
		checks: []check{ratioAtMost(ours, cp, 1.5)},
		same:   [][2]string{{oursPkg, llvmPkg}},
	}
	extract := benchCase{
		name:  fmt.Sprintf("extract 4 images, %s", mib(total)),
		bytes: total,
		tools: []tool{
			{ours, append([]string{b.packager(), llvmPkg}, withFiles(filters, oo)...), oo},
			{llvm, append([]string{"llvm-offload-binary-22", llvmPkg}, withFiles(filters, lo)...), lo},
			b.cpTool(llvmPkg),
		},
		checks: []check{ratioAtMost(ours, cp, 1.5)},
		same:   pairs(oo, lo),
	}
	return []benchCase{pack, extract}
}

func withFiles(filters, files []string) []string {
	out := make([]string, len(filters))
	for i, f := range filters {
		out[i] = f + ",file=" + files[i]
	}
	return out
}

// cpTool copies files into a fresh directory: the same bytes read and
// written as the case moves, by coreutils (copy_file_range on Linux).
func (b *bench) cpTool(files ...string) tool {
	dir := b.out("cp")
	var outs []string
	for _, f := range files {
		outs = append(outs, filepath.Join(dir, filepath.Base(f)))
	}
	return tool{cp, append(append([]string{"cp"}, files...), dir+"/"), outs}
}

func pairs(a, b []string) [][2]string {
	out := make([][2]string, len(a))
	for i := range a {
		out[i] = [2]string{a[i], b[i]}
	}
	return out
}

func sumSizes(files []string) int64 {
	var n int64
	for _, f := range files {
		n += fileSize(f)
	}
	return n
}

func mib(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 10<<20:
		return fmt.Sprintf("%d MiB", (n+1<<19)>>20)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func ensureDir(p string) error { return os.MkdirAll(p, 0o755) }
