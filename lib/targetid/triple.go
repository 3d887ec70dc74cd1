package targetid

import "strings"

// This file mirrors the parts of llvm::Triple (llvm/lib/TargetParser/Triple.cpp,
// LLVM 22) that the offload bundler depends on: component parsing, the
// normalize() reordering algorithm and isCompatibleWith. Enumerated values are
// represented by LLVM's canonical type names ("i386" for x86, "scei" for sie);
// the empty string stands for Unknown*.

// triple is an llvm::Triple built from four component names, as
// OffloadTargetInfo does: no normalisation, each name parsed on its own.
type triple struct {
	names  [4]string // arch, vendor, os, env exactly as given
	arch   string
	sub    string
	vendor string
	os     string
	env    string
	format string
}

func newTriple(arch, vendor, os, env string) triple {
	t := triple{
		names:  [4]string{arch, vendor, os, env},
		arch:   parseArch(arch),
		sub:    parseSubArch(arch),
		vendor: parseVendor(vendor),
		os:     parseOS(os),
		env:    parseEnvironment(env),
		format: parseFormat(env),
	}
	if t.format == "" {
		t.format = defaultFormat(t.arch, t.os)
	}
	return t
}

// str is Triple::str(): the joined names.
func (t triple) str() string { return strings.Join(t.names[:], "-") }

func (t triple) isAMDGPU() bool { return t.arch == "amdgcn" || t.arch == "r600" }

// archNames is the exact-match part of LLVM 22's parseArch StringSwitch.
var archNames = withVersionedArches(map[string]string{
	"i386": "i386", "i486": "i386", "i586": "i386", "i686": "i386",
	"i786": "i386", "i886": "i386", "i986": "i386",
	"amd64": "x86_64", "x86_64": "x86_64", "x86_64h": "x86_64",
	"powerpc": "powerpc", "powerpcspe": "powerpc", "ppc": "powerpc", "ppc32": "powerpc",
	"powerpcle": "powerpcle", "ppcle": "powerpcle", "ppc32le": "powerpcle",
	"powerpc64": "powerpc64", "ppu": "powerpc64", "ppc64": "powerpc64",
	"powerpc64le": "powerpc64le", "ppc64le": "powerpc64le",
	"xscale": "arm", "xscaleeb": "armeb",
	"aarch64": "aarch64", "aarch64_be": "aarch64_be", "aarch64_32": "aarch64_32",
	"arc": "arc", "arm64": "aarch64", "arm64_32": "aarch64_32",
	"arm64e": "aarch64", "arm64ec": "aarch64",
	"arm": "arm", "armeb": "armeb", "thumb": "thumb", "thumbeb": "thumbeb",
	"avr": "avr", "m68k": "m68k", "msp430": "msp430",
	"mips": "mips", "mipseb": "mips", "mipsallegrex": "mips", "mipsisa32r6": "mips", "mipsr6": "mips",
	"mipsel": "mipsel", "mipsallegrexel": "mipsel", "mipsisa32r6el": "mipsel", "mipsr6el": "mipsel",
	"mips64": "mips64", "mips64eb": "mips64", "mipsn32": "mips64", "mipsisa64r6": "mips64",
	"mips64r6": "mips64", "mipsn32r6": "mips64",
	"mips64el": "mips64el", "mipsn32el": "mips64el", "mipsisa64r6el": "mips64el",
	"mips64r6el": "mips64el", "mipsn32r6el": "mips64el",
	"r600": "r600", "amdgcn": "amdgcn",
	"riscv32": "riscv32", "riscv64": "riscv64", "riscv32be": "riscv32be", "riscv64be": "riscv64be",
	"hexagon": "hexagon", "s390x": "s390x", "systemz": "s390x",
	"sparc": "sparc", "sparcel": "sparcel", "sparcv9": "sparcv9", "sparc64": "sparcv9",
	"tce": "tce", "tcele": "tcele", "xcore": "xcore",
	"nvptx": "nvptx", "nvptx64": "nvptx64",
	"amdil": "amdil", "amdil64": "amdil64", "hsail": "hsail", "hsail64": "hsail64",
	"spir": "spir", "spir64": "spir64",
	"spirv": "spirv", "spirv1.5": "spirv", "spirv1.6": "spirv",
	"lanai": "lanai", "renderscript32": "renderscript32", "renderscript64": "renderscript64",
	"shave": "shave", "ve": "ve", "wasm32": "wasm32", "wasm64": "wasm64", "csky": "csky",
	"loongarch32": "loongarch32", "loongarch64": "loongarch64", "xtensa": "xtensa",
	"spirv32": "spirv32", "spirv64": "spirv64", "dxil": "dxil",
})

// withVersionedArches adds the spirv32v1.N, spirv64v1.N and dxilv1.N spellings.
func withVersionedArches(m map[string]string) map[string]string {
	for n := 0; n <= 6; n++ {
		v := "v1." + string(rune('0'+n))
		m["spirv32"+v] = "spirv32"
		m["spirv64"+v] = "spirv64"
	}
	for n := 0; n <= dxilLatestMinor; n++ {
		m["dxilv1."+string(rune('0'+n))] = "dxil"
	}
	return m
}

// dxilLatestMinor is Triple::LatestDXILSubArch in LLVM 22 (dxilv1.9).
const dxilLatestMinor = 9

// parseArch is llvm's static parseArch (as opposed to getArchTypeForLLVMName).
func parseArch(name string) string {
	if a, ok := archNames[name]; ok {
		return a
	}
	if strings.HasPrefix(name, "kalimba") {
		return "kalimba"
	}
	if strings.HasPrefix(name, "arm") || strings.HasPrefix(name, "thumb") || strings.HasPrefix(name, "aarch64") {
		return parseARMArch(name)
	}
	if strings.HasPrefix(name, "bpf") {
		return parseBPFArch(name)
	}
	return ""
}

// parseBPFArch resolves plain "bpf" as a little-endian host does.
func parseBPFArch(name string) string {
	switch name {
	case "bpf", "bpf_le", "bpfel":
		return "bpfel"
	case "bpf_be", "bpfeb":
		return "bpfeb"
	}
	return ""
}

func parseSubArch(name string) string {
	switch {
	case strings.HasPrefix(name, "mips") && (strings.HasSuffix(name, "r6el") || strings.HasSuffix(name, "r6")):
		return "mips_r6"
	case name == "powerpcspe":
		return "ppc_spe"
	case name == "arm64e", name == "arm64ec":
		return name
	case strings.HasPrefix(name, "spirv"), strings.HasPrefix(name, "dxil"):
		return versionedSubArch(name)
	}
	canon := armCanonicalArchName(name)
	if canon == "" {
		for _, k := range []string{"kalimba3", "kalimba4", "kalimba5"} {
			if strings.HasSuffix(name, k) {
				return k
			}
		}
		return ""
	}
	return armSubArch(canon)
}

// versionedSubArch handles the spirv*/dxil* "v1.N" suffixes.
func versionedSubArch(name string) string {
	prefix, maxMinor := "spirv", 6
	if strings.HasPrefix(name, "dxil") {
		prefix, maxMinor = "dxil", dxilLatestMinor
	}
	for m := 0; m <= maxMinor; m++ {
		v := "v1." + string(rune('0'+m))
		if strings.HasSuffix(name, v) {
			return prefix + v
		}
	}
	return ""
}

var vendorNames = map[string]string{
	"apple": "apple", "pc": "pc", "scei": "scei", "sie": "scei", "fsl": "fsl", "ibm": "ibm",
	"img": "img", "mti": "mti", "nvidia": "nvidia", "csr": "csr", "amd": "amd", "mesa": "mesa",
	"suse": "suse", "oe": "oe", "intel": "intel", "meta": "meta",
}

func parseVendor(name string) string { return vendorNames[name] }

// prefixRule is one StringSwitch StartsWith/EndsWith case: first match wins.
type prefixRule struct{ match, kind string }

// osRules is LLVM 22's parseOS (every case is StartsWith).
var osRules = []prefixRule{
	{"darwin", "darwin"}, {"dragonfly", "dragonfly"}, {"freebsd", "freebsd"},
	{"fuchsia", "fuchsia"}, {"ios", "ios"}, {"kfreebsd", "kfreebsd"}, {"linux", "linux"},
	{"lv2", "lv2"}, {"macos", "macosx"}, {"netbsd", "netbsd"}, {"openbsd", "openbsd"},
	{"solaris", "solaris"}, {"uefi", "uefi"}, {"win32", "windows"}, {"windows", "windows"},
	{"zos", "zos"}, {"haiku", "haiku"}, {"rtems", "rtems"}, {"aix", "aix"}, {"cuda", "cuda"},
	{"nvcl", "nvcl"}, {"amdhsa", "amdhsa"}, {"ps4", "ps4"}, {"ps5", "ps5"},
	{"elfiamcu", "elfiamcu"}, {"tvos", "tvos"}, {"watchos", "watchos"},
	{"bridgeos", "bridgeos"}, {"driverkit", "driverkit"}, {"xros", "xros"},
	{"visionos", "xros"}, {"mesa3d", "mesa3d"}, {"amdpal", "amdpal"}, {"hermit", "hermit"},
	{"hurd", "hurd"}, {"wasi", "wasi"}, {"emscripten", "emscripten"},
	{"shadermodel", "shadermodel"}, {"liteos", "liteos"}, {"serenity", "serenity"},
	{"vulkan", "vulkan"}, {"managarm", "managarm"},
}

// envRules is LLVM 22's parseEnvironment (every case is StartsWith; order matters).
var envRules = []prefixRule{
	{"eabihf", "eabihf"}, {"eabi", "eabi"}, {"gnuabin32", "gnuabin32"}, {"gnuabi64", "gnuabi64"},
	{"gnueabihft64", "gnueabihft64"}, {"gnueabihf", "gnueabihf"}, {"gnueabit64", "gnueabit64"},
	{"gnueabi", "gnueabi"}, {"gnuf32", "gnuf32"}, {"gnuf64", "gnuf64"}, {"gnusf", "gnusf"},
	{"gnux32", "gnux32"}, {"gnu_ilp32", "gnu_ilp32"}, {"code16", "code16"}, {"gnut64", "gnut64"},
	{"gnu", "gnu"}, {"android", "android"}, {"muslabin32", "muslabin32"},
	{"muslabi64", "muslabi64"}, {"musleabihf", "musleabihf"}, {"musleabi", "musleabi"},
	{"muslf32", "muslf32"}, {"muslsf", "muslsf"}, {"muslx32", "muslx32"}, {"musl", "musl"},
	{"msvc", "msvc"}, {"itanium", "itanium"}, {"cygnus", "cygnus"}, {"coreclr", "coreclr"},
	{"simulator", "simulator"}, {"macabi", "macabi"}, {"pixel", "pixel"}, {"vertex", "vertex"},
	{"geometry", "geometry"}, {"hull", "hull"}, {"domain", "domain"}, {"compute", "compute"},
	{"library", "library"}, {"raygeneration", "raygeneration"}, {"intersection", "intersection"},
	{"anyhit", "anyhit"}, {"closesthit", "closesthit"}, {"miss", "miss"},
	{"callable", "callable"}, {"mesh", "mesh"}, {"amplification", "amplification"},
	{"opencl", "opencl"}, {"ohos", "ohos"}, {"pauthtest", "pauthtest"}, {"llvm", "llvm"},
	{"mlibc", "mlibc"},
}

// formatRules is parseFormat (every case is EndsWith; xcoff before coff).
var formatRules = []prefixRule{
	{"xcoff", "xcoff"}, {"coff", "coff"}, {"elf", "elf"}, {"goff", "goff"},
	{"macho", "macho"}, {"wasm", "wasm"}, {"spirv", "spirv"},
}

func firstPrefix(rules []prefixRule, s string) string {
	for _, r := range rules {
		if strings.HasPrefix(s, r.match) {
			return r.kind
		}
	}
	return ""
}

func parseOS(name string) string          { return firstPrefix(osRules, name) }
func parseEnvironment(name string) string { return firstPrefix(envRules, name) }

func parseFormat(name string) string {
	for _, r := range formatRules {
		if strings.HasSuffix(name, r.match) {
			return r.kind
		}
	}
	return ""
}

func isOSDarwin(os string) bool {
	switch os {
	case "darwin", "macosx", "ios", "tvos", "watchos", "driverkit", "xros", "bridgeos":
		return true
	}
	return false
}

// defaultFormat is getDefaultFormat, used when the environment names none.
func defaultFormat(arch, os string) string {
	switch arch {
	case "", "aarch64", "aarch64_32", "arm", "thumb", "i386", "x86_64":
		switch {
		case os == "windows" || os == "uefi":
			return "coff"
		case isOSDarwin(os):
			return "macho"
		}
		return "elf"
	case "mipsel":
		if os == "windows" {
			return "coff"
		}
	case "powerpc64", "powerpc":
		if os == "aix" {
			return "xcoff"
		}
		if isOSDarwin(os) {
			return "macho"
		}
	case "s390x":
		if os == "zos" {
			return "goff"
		}
	case "wasm32", "wasm64":
		return "wasm"
	case "spirv", "spirv32", "spirv64":
		return "spirv"
	case "dxil":
		return "dxcontainer"
	}
	return "elf"
}

// compatibleWith is Triple::isCompatibleWith.
func (t triple) compatibleWith(o triple) bool {
	ignoreVendor := t.os == "windows" && t.env == "gnu"
	vendorOK := t.vendor == o.vendor || ignoreVendor
	armThumb := (t.arch == "thumb" && o.arch == "arm") || (t.arch == "arm" && o.arch == "thumb") ||
		(t.arch == "thumbeb" && o.arch == "armeb") || (t.arch == "armeb" && o.arch == "thumbeb")
	if armThumb {
		if t.vendor == "apple" {
			return t.sub == o.sub && t.vendor == o.vendor && t.os == o.os
		}
		return t.sub == o.sub && vendorOK && t.os == o.os && t.env == o.env && t.format == o.format
	}
	if t.vendor == "apple" {
		return t.arch == o.arch && t.sub == o.sub && vendorOK && t.os == o.os
	}
	return t.arch == o.arch && t.sub == o.sub && vendorOK && t.os == o.os &&
		t.env == o.env && t.format == o.format
}

// Canonical forms of Triple::normalize.
const (
	threeIdent = 3
	fourIdent  = 4
)

// normalizer carries the state Triple::normalize keeps in locals; the loop
// overwrites these with the last component it tried, which later special
// cases depend on.
type normalizer struct {
	comps                   []string
	vendor, os, env, format string
	isCygwin, isMinGW32     bool
	found                   [4]bool
}

// normalize is Triple::normalize(Str, Form) for Form in {3, 4}, applied to
// the four-component string an OffloadTargetInfo triple holds.
func normalize(names [4]string, form int) string {
	n := normalizer{comps: append([]string(nil), names[:]...)}
	n.parseInitial()
	for pos := 0; pos < 4; pos++ {
		if !n.found[pos] {
			n.place(pos)
		}
	}
	n.fixups()
	c := n.comps
	if len(c) > form {
		c = c[:form]
	}
	for len(c) < form {
		c = append(c, "unknown")
	}
	return strings.Join(c, "-")
}

func (n *normalizer) parseInitial() {
	c := n.comps
	arch := parseArch(c[0])
	if len(c) > 1 {
		n.vendor = parseVendor(c[1])
	}
	if len(c) > 2 {
		n.os = parseOS(c[2])
		n.isCygwin = strings.HasPrefix(c[2], "cygwin")
		n.isMinGW32 = strings.HasPrefix(c[2], "mingw")
	}
	if len(c) > 3 {
		n.env = parseEnvironment(c[3])
	}
	if len(c) > 4 {
		n.format = parseFormat(c[4])
	}
	n.found = [4]bool{arch != "", n.vendor != "", n.os != "", n.env != ""}
}

// fits parses comp for position pos, updating the normalizer's state as the
// C++ loop does, and reports whether it is valid there.
func (n *normalizer) fits(pos int, comp string) bool {
	switch pos {
	case 0:
		return parseArch(comp) != ""
	case 1:
		n.vendor = parseVendor(comp)
		return n.vendor != ""
	case 2:
		n.os = parseOS(comp)
		n.isCygwin = strings.HasPrefix(comp, "cygwin")
		n.isMinGW32 = strings.HasPrefix(comp, "mingw")
		return n.os != "" || n.isCygwin || n.isMinGW32
	default:
		n.env = parseEnvironment(comp)
		if n.env != "" {
			return true
		}
		n.format = parseFormat(comp)
		return n.format != ""
	}
}

func (n *normalizer) fixed(i int) bool { return i < 4 && n.found[i] }

// place finds the first unfixed component valid for pos and moves it there.
func (n *normalizer) place(pos int) {
	for idx := 0; idx < len(n.comps); idx++ {
		if n.fixed(idx) || !n.fits(pos, n.comps[idx]) {
			continue
		}
		if pos < idx {
			n.moveLeft(pos, idx)
		} else if pos > idx {
			n.moveRight(pos, idx)
		}
		n.found[pos] = true
		return
	}
}

// moveLeft inserts comps[idx] at pos, shifting unfixed components right
// until the hole left at idx (or an earlier empty component) absorbs them.
func (n *normalizer) moveLeft(pos, idx int) {
	cur := n.comps[idx]
	n.comps[idx] = ""
	for i := pos; cur != ""; i++ {
		for n.fixed(i) {
			i++
		}
		cur, n.comps[i] = n.comps[i], cur
	}
}

// moveRight inserts empty components before idx until it reaches pos.
func (n *normalizer) moveRight(pos, idx int) {
	for {
		cur := ""
		for i := idx; i < len(n.comps); {
			cur, n.comps[i] = n.comps[i], cur
			if cur == "" {
				break
			}
			for i++; n.fixed(i); i++ {
			}
		}
		if cur != "" {
			n.comps = append(n.comps, cur)
		}
		for idx++; n.fixed(idx); idx++ {
		}
		if idx >= pos {
			return
		}
	}
}

// fixups applies normalize's special cases after reordering.
func (n *normalizer) fixups() {
	c := n.comps
	if n.found[0] && !n.found[1] && !n.found[2] && n.found[3] && c[1] == "none" && c[2] == "" {
		c[1], c[2] = c[2], c[1]
	}
	for i := range c {
		if c[i] == "" {
			c[i] = "unknown"
		}
	}
	if n.env == "android" && strings.HasPrefix(c[3], "androideabi") {
		c[3] = "android" + strings.TrimPrefix(c[3], "androideabi")
	}
	if n.vendor == "suse" && n.env == "gnueabi" {
		c[3] = "gnueabihf"
	}
	switch {
	case n.os == "windows":
		c = resize(c, 4)
		c[2] = "windows"
		if n.env == "" {
			if n.format == "" || n.format == "coff" {
				c[3] = "msvc"
			} else {
				c[3] = n.format
			}
		}
	case n.isMinGW32:
		c = resize(c, 4)
		c[2], c[3] = "windows", "gnu"
	case n.isCygwin:
		c = resize(c, 4)
		c[2], c[3] = "windows", "cygnus"
	}
	if n.isMinGW32 || n.isCygwin || (n.os == "windows" && n.env != "") {
		if n.format != "" && n.format != "coff" {
			c = resize(c, 5)
			c[4] = n.format
		}
	}
	if c[0] == "dxil" {
		c = resize(c, min(len(c), 4))
		if n.os == "shadermodel" {
			c[0] = dxilArchFromShaderModel(c[2])
		}
	}
	n.comps = c
}

// resize is SmallVector::resize: truncate, or pad with empty components.
func resize(c []string, size int) []string {
	for len(c) < size {
		c = append(c, "")
	}
	return c[:size]
}

// dxilArchFromShaderModel is getDXILArchNameFromShaderModel. LLVM aborts
// (report_fatal_error) on "shadermodel6.N" with N above the latest DXIL
// minor; this port maps it to dxilv1.0 instead of crashing.
func dxilArchFromShaderModel(os string) string {
	v, ok := parseVersion(strings.TrimPrefix(os, "shadermodel"))
	switch {
	case !ok:
		if os == "shadermodel6.x" {
			return "dxilv1." + string(rune('0'+dxilLatestMinor))
		}
	case v[0] == 6 && v[1] >= 0 && v[1] <= dxilLatestMinor:
		return "dxilv1." + string(rune('0'+v[1]))
	}
	return "dxilv1.0"
}

// parseVersion is VersionTuple::tryParse: 1 to 4 dot-separated unsigned
// integers consuming the whole string. Missing components are -1.
func parseVersion(s string) ([4]int, bool) {
	v := [4]int{-1, -1, -1, -1}
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return v, false
	}
	for i, p := range parts {
		if p == "" || len(p) > 9 {
			return v, false
		}
		n := 0
		for _, r := range p {
			if r < '0' || r > '9' {
				return v, false
			}
			n = n*10 + int(r-'0')
		}
		v[i] = n
	}
	return v, true
}
