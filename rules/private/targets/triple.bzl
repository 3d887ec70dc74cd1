"""Target triples as llvm::Triple (LLVM 22) parses and normalizes them.

Only what bundle entry IDs need: component parsing and Triple::normalize.
A Starlark port of lib/targetid/triple.go; tests/starlark checks that both
agree. Parsed values use LLVM's canonical type names ("i386" for x86); ""
stands for Unknown.
"""

# The exact-match part of LLVM's parseArch StringSwitch.
_ARCH_NAMES = {
    "i386": "i386",
    "i486": "i386",
    "i586": "i386",
    "i686": "i386",
    "i786": "i386",
    "i886": "i386",
    "i986": "i386",
    "amd64": "x86_64",
    "x86_64": "x86_64",
    "x86_64h": "x86_64",
    "powerpc": "powerpc",
    "powerpcspe": "powerpc",
    "ppc": "powerpc",
    "ppc32": "powerpc",
    "powerpcle": "powerpcle",
    "ppcle": "powerpcle",
    "ppc32le": "powerpcle",
    "powerpc64": "powerpc64",
    "ppu": "powerpc64",
    "ppc64": "powerpc64",
    "powerpc64le": "powerpc64le",
    "ppc64le": "powerpc64le",
    "xscale": "arm",
    "xscaleeb": "armeb",
    "aarch64": "aarch64",
    "aarch64_be": "aarch64_be",
    "aarch64_32": "aarch64_32",
    "arc": "arc",
    "arm64": "aarch64",
    "arm64_32": "aarch64_32",
    "arm64e": "aarch64",
    "arm64ec": "aarch64",
    "arm": "arm",
    "armeb": "armeb",
    "thumb": "thumb",
    "thumbeb": "thumbeb",
    "avr": "avr",
    "m68k": "m68k",
    "msp430": "msp430",
    "mips": "mips",
    "mipseb": "mips",
    "mipsallegrex": "mips",
    "mipsisa32r6": "mips",
    "mipsr6": "mips",
    "mipsel": "mipsel",
    "mipsallegrexel": "mipsel",
    "mipsisa32r6el": "mipsel",
    "mipsr6el": "mipsel",
    "mips64": "mips64",
    "mips64eb": "mips64",
    "mipsn32": "mips64",
    "mipsisa64r6": "mips64",
    "mips64r6": "mips64",
    "mipsn32r6": "mips64",
    "mips64el": "mips64el",
    "mipsn32el": "mips64el",
    "mipsisa64r6el": "mips64el",
    "mips64r6el": "mips64el",
    "mipsn32r6el": "mips64el",
    "r600": "r600",
    "amdgcn": "amdgcn",
    "riscv32": "riscv32",
    "riscv64": "riscv64",
    "riscv32be": "riscv32be",
    "riscv64be": "riscv64be",
    "hexagon": "hexagon",
    "s390x": "s390x",
    "systemz": "s390x",
    "sparc": "sparc",
    "sparcel": "sparcel",
    "sparcv9": "sparcv9",
    "sparc64": "sparcv9",
    "tce": "tce",
    "tcele": "tcele",
    "xcore": "xcore",
    "nvptx": "nvptx",
    "nvptx64": "nvptx64",
    "amdil": "amdil",
    "amdil64": "amdil64",
    "hsail": "hsail",
    "hsail64": "hsail64",
    "spir": "spir",
    "spir64": "spir64",
    "spirv": "spirv",
    "spirv1.5": "spirv",
    "spirv1.6": "spirv",
    "spirv32": "spirv32",
    "spirv64": "spirv64",
    "lanai": "lanai",
    "renderscript32": "renderscript32",
    "renderscript64": "renderscript64",
    "shave": "shave",
    "ve": "ve",
    "wasm32": "wasm32",
    "wasm64": "wasm64",
    "csky": "csky",
    "loongarch32": "loongarch32",
    "loongarch64": "loongarch64",
    "xtensa": "xtensa",
    "dxil": "dxil",
}

_SPIRV_VERSIONS = ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6"]

# Triple::LatestDXILSubArch in LLVM 22 (dxilv1.9).
_DXIL_LATEST_MINOR = 9

_VENDORS = {
    "apple": "apple",
    "pc": "pc",
    "scei": "scei",
    "sie": "scei",
    "fsl": "fsl",
    "ibm": "ibm",
    "img": "img",
    "mti": "mti",
    "nvidia": "nvidia",
    "csr": "csr",
    "amd": "amd",
    "mesa": "mesa",
    "suse": "suse",
    "oe": "oe",
    "intel": "intel",
    "meta": "meta",
}

# parseOS: every case is StartsWith, first match wins.
_OS_RULES = [
    ("darwin", "darwin"),
    ("dragonfly", "dragonfly"),
    ("freebsd", "freebsd"),
    ("fuchsia", "fuchsia"),
    ("ios", "ios"),
    ("kfreebsd", "kfreebsd"),
    ("linux", "linux"),
    ("lv2", "lv2"),
    ("macos", "macosx"),
    ("netbsd", "netbsd"),
    ("openbsd", "openbsd"),
    ("solaris", "solaris"),
    ("uefi", "uefi"),
    ("win32", "windows"),
    ("windows", "windows"),
    ("zos", "zos"),
    ("haiku", "haiku"),
    ("rtems", "rtems"),
    ("aix", "aix"),
    ("cuda", "cuda"),
    ("nvcl", "nvcl"),
    ("amdhsa", "amdhsa"),
    ("ps4", "ps4"),
    ("ps5", "ps5"),
    ("elfiamcu", "elfiamcu"),
    ("tvos", "tvos"),
    ("watchos", "watchos"),
    ("bridgeos", "bridgeos"),
    ("driverkit", "driverkit"),
    ("xros", "xros"),
    ("visionos", "xros"),
    ("mesa3d", "mesa3d"),
    ("amdpal", "amdpal"),
    ("hermit", "hermit"),
    ("hurd", "hurd"),
    ("wasi", "wasi"),
    ("emscripten", "emscripten"),
    ("shadermodel", "shadermodel"),
    ("liteos", "liteos"),
    ("serenity", "serenity"),
    ("vulkan", "vulkan"),
    ("managarm", "managarm"),
]

# parseEnvironment: every case is StartsWith; order matters.
_ENV_RULES = [
    ("eabihf", "eabihf"),
    ("eabi", "eabi"),
    ("gnuabin32", "gnuabin32"),
    ("gnuabi64", "gnuabi64"),
    ("gnueabihft64", "gnueabihft64"),
    ("gnueabihf", "gnueabihf"),
    ("gnueabit64", "gnueabit64"),
    ("gnueabi", "gnueabi"),
    ("gnuf32", "gnuf32"),
    ("gnuf64", "gnuf64"),
    ("gnusf", "gnusf"),
    ("gnux32", "gnux32"),
    ("gnu_ilp32", "gnu_ilp32"),
    ("code16", "code16"),
    ("gnut64", "gnut64"),
    ("gnu", "gnu"),
    ("android", "android"),
    ("muslabin32", "muslabin32"),
    ("muslabi64", "muslabi64"),
    ("musleabihf", "musleabihf"),
    ("musleabi", "musleabi"),
    ("muslf32", "muslf32"),
    ("muslsf", "muslsf"),
    ("muslx32", "muslx32"),
    ("musl", "musl"),
    ("msvc", "msvc"),
    ("itanium", "itanium"),
    ("cygnus", "cygnus"),
    ("coreclr", "coreclr"),
    ("simulator", "simulator"),
    ("macabi", "macabi"),
    ("pixel", "pixel"),
    ("vertex", "vertex"),
    ("geometry", "geometry"),
    ("hull", "hull"),
    ("domain", "domain"),
    ("compute", "compute"),
    ("library", "library"),
    ("raygeneration", "raygeneration"),
    ("intersection", "intersection"),
    ("anyhit", "anyhit"),
    ("closesthit", "closesthit"),
    ("miss", "miss"),
    ("callable", "callable"),
    ("mesh", "mesh"),
    ("amplification", "amplification"),
    ("opencl", "opencl"),
    ("ohos", "ohos"),
    ("pauthtest", "pauthtest"),
    ("llvm", "llvm"),
    ("mlibc", "mlibc"),
]

# parseFormat: every case is EndsWith; xcoff before coff.
_FORMAT_RULES = ["xcoff", "coff", "elf", "goff", "macho", "wasm", "spirv"]

# ARMTargetParser.def's ARM_ARCH names in order; ARM::parseArch returns the
# first that ends with the (synonym-resolved) canonical name.
_ARM_ARCHS = [
    "invalid",
    "armv4",
    "armv4t",
    "armv5t",
    "armv5te",
    "armv5tej",
    "armv6",
    "armv6k",
    "armv6t2",
    "armv6kz",
    "armv6-m",
    "armv7-a",
    "armv7ve",
    "armv7-r",
    "armv7-m",
    "armv7e-m",
    "armv8-a",
    "armv8.1-a",
    "armv8.2-a",
    "armv8.3-a",
    "armv8.4-a",
    "armv8.5-a",
    "armv8.6-a",
    "armv8.7-a",
    "armv8.8-a",
    "armv8.9-a",
    "armv9-a",
    "armv9.1-a",
    "armv9.2-a",
    "armv9.3-a",
    "armv9.4-a",
    "armv9.5-a",
    "armv9.6-a",
    "armv9.7-a",
    "armv8-r",
    "armv8-m.base",
    "armv8-m.main",
    "armv8.1-m.main",
    "iwmmxt",
    "iwmmxt2",
    "xscale",
    "armv7s",
    "armv7k",
]

_ARM_SYNONYMS = {
    "v5": "v5t",
    "v5e": "v5te",
    "v6j": "v6",
    "v6hl": "v6k",
    "v6m": "v6-m",
    "v6sm": "v6-m",
    "v6s-m": "v6-m",
    "v6z": "v6kz",
    "v6zk": "v6kz",
    "v7": "v7-a",
    "v7a": "v7-a",
    "v7hl": "v7-a",
    "v7l": "v7-a",
    "v7r": "v7-r",
    "v7m": "v7-m",
    "v7em": "v7e-m",
    "v8": "v8-a",
    "v8a": "v8-a",
    "v8l": "v8-a",
    "aarch64": "v8-a",
    "arm64": "v8-a",
    "v8.1a": "v8.1-a",
    "v8.2a": "v8.2-a",
    "v8.3a": "v8.3-a",
    "v8.4a": "v8.4-a",
    "v8.5a": "v8.5-a",
    "v8.6a": "v8.6-a",
    "v8.7a": "v8.7-a",
    "v8.8a": "v8.8-a",
    "v8.9a": "v8.9-a",
    "v8r": "v8-r",
    "v9": "v9-a",
    "v9a": "v9-a",
    "v9.1a": "v9.1-a",
    "v9.2a": "v9.2-a",
    "v9.3a": "v9.3-a",
    "v9.4a": "v9.4-a",
    "v9.5a": "v9.5-a",
    "v9.6a": "v9.6-a",
    "v9.7a": "v9.7-a",
    "v8m.base": "v8-m.base",
    "v8m.main": "v8-m.main",
    "v8.1m.main": "v8.1-m.main",
}

def _by_first_char(rules):
    """Rules grouped by their prefix's first character, in their order.

    Parsing a target scans only the rules that can match its component:
    scanning them all was a quarter of the analysis time of a package of
    1,000 offload targets (Bazel's --starlark_cpu_profile).
    """
    index = {}
    for prefix, kind in rules:
        index.setdefault(prefix[:1], []).append((prefix, kind))
    return index

def _first_prefix(index, s):
    """The kind of the first rule (from _by_first_char) whose prefix starts s, or ""."""
    for prefix, kind in index.get(s[:1], []):
        if s.startswith(prefix):
            return kind
    return ""

_OS_INDEX = _by_first_char(_OS_RULES)

_ENV_INDEX = _by_first_char(_ENV_RULES)

def _substr(s, start, n):
    """StringRef::substr: both bounds clamp to the string."""
    if start > len(s):
        return ""
    return s[start:start + n]

def _arm_canonical(arch):
    """ARM::getCanonicalArchName: the version part of an ARM name, "" if invalid."""
    a = arch
    off = -1
    if a.startswith("arm64_32"):
        off = 8
    elif a.startswith("arm64e"):
        off = 6
    elif a.startswith("arm64"):
        off = 5
    elif a.startswith("aarch64_32"):
        off = 10
    elif a.startswith("arm"):
        off = 3
    elif a.startswith("thumb"):
        off = 5
    elif a.startswith("aarch64"):
        off = 7
        if "eb" in a:
            return ""
        if _substr(a, off, 3) == "_be":
            off += 3
    if off >= 0 and _substr(a, off, 2) == "eb":
        off += 2
    elif a.endswith("eb"):
        a = a[:-2]
    if off >= 0:
        a = _substr(a, off, len(a))
    if a == "":
        return arch
    if off >= 0:
        if len(a) >= 2 and (a[0] != "v" or not a[1].isdigit()):
            return ""
        if "eb" in a:
            return ""
    return a

def _arm_kind(canon):
    syn = _ARM_SYNONYMS.get(canon, canon)
    for name in _ARM_ARCHS:
        if name.endswith(syn):
            return name
    return "invalid"

def _arm_endian(name):
    """ARM::parseArchEndian as (big, known)."""
    if name.startswith("armeb") or name.startswith("thumbeb") or name.startswith("aarch64_be"):
        return True, True
    if name.startswith("arm") or name.startswith("thumb"):
        return name.endswith("eb"), True
    if name.startswith("aarch64"):
        return False, True
    return False, False

def _parse_arm_arch(name):
    isa = ""
    if name.startswith("aarch64") or name.startswith("arm64"):
        isa = "aarch64"
    elif name.startswith("thumb"):
        isa = "thumb"
    elif name.startswith("arm"):
        isa = "arm"
    big, known = _arm_endian(name)
    arch = ""
    if known and isa:
        arch = isa
        if big:
            arch = {"arm": "armeb", "thumb": "thumbeb", "aarch64": "aarch64_be"}[isa]
    canon = _arm_canonical(name)
    if canon == "":
        return ""
    if isa == "thumb" and (canon.startswith("v2") or canon.startswith("v3")):
        return ""
    if _arm_kind(canon) == "armv6-m":
        return "thumbeb" if big else "thumb"
    return arch

def parse_arch(name):
    """LLVM's parseArch.

    Args:
      name: an arch component ("x86_64", "amd64", "armv7a", ...).

    Returns:
      LLVM's ArchType name ("x86_64", "i386", "arm"), "" if unknown.
    """
    if name in _ARCH_NAMES:
        return _ARCH_NAMES[name]
    for v in _SPIRV_VERSIONS:
        if name == "spirv32v" + v:
            return "spirv32"
        if name == "spirv64v" + v:
            return "spirv64"
    for m in range(_DXIL_LATEST_MINOR + 1):
        if name == "dxilv1.%d" % m:
            return "dxil"
    if name.startswith("kalimba"):
        return "kalimba"
    if name.startswith("arm") or name.startswith("thumb") or name.startswith("aarch64"):
        return _parse_arm_arch(name)
    if name in ("bpf", "bpf_le", "bpfel"):
        return "bpfel"
    if name in ("bpf_be", "bpfeb"):
        return "bpfeb"
    return ""

def parse_vendor(name):
    return _VENDORS.get(name, "")

def parse_os(name):
    return _first_prefix(_OS_INDEX, name)

def parse_environment(name):
    return _first_prefix(_ENV_INDEX, name)

def parse_format(name):
    for f in _FORMAT_RULES:
        if name.endswith(f):
            return f
    return ""

def _parse_version(s):
    """VersionTuple::tryParse: up to 4 dot-separated unsigned integers."""
    parts = s.split(".")
    if len(parts) > 4:
        return None
    v = [-1, -1, -1, -1]
    for i, p in enumerate(parts):
        if p == "" or len(p) > 9 or not p.isdigit():
            return None
        v[i] = int(p)
    return v

def _dxil_arch(os):
    v = _parse_version(os[len("shadermodel"):] if os.startswith("shadermodel") else os)
    if v == None:
        if os == "shadermodel6.x":
            return "dxilv1.%d" % _DXIL_LATEST_MINOR
    elif v[0] == 6 and v[1] >= 0 and v[1] <= _DXIL_LATEST_MINOR:
        return "dxilv1.%d" % v[1]
    return "dxilv1.0"

def _fits(st, pos, comp):
    """Parses comp for position pos, updating st as Triple::normalize does."""
    if pos == 0:
        return parse_arch(comp) != ""
    if pos == 1:
        st["vendor"] = parse_vendor(comp)
        return st["vendor"] != ""
    if pos == 2:
        st["os"] = parse_os(comp)
        st["cygwin"] = comp.startswith("cygwin")
        st["mingw"] = comp.startswith("mingw")
        return st["os"] != "" or st["cygwin"] or st["mingw"]
    st["env"] = parse_environment(comp)
    if st["env"] != "":
        return True
    st["format"] = parse_format(comp)
    return st["format"] != ""

def _fixed(found, i):
    return i < 4 and found[i]

def _move_left(comps, found, pos, idx):
    """Inserts comps[idx] at pos, pushing unfixed components right."""
    cur = comps[idx]
    comps[idx] = ""
    i = pos
    for _ in range(2 * len(comps) + 8):
        if cur == "":
            break
        for _ in range(4):
            if _fixed(found, i):
                i += 1
        nxt = comps[i]
        comps[i] = cur
        cur = nxt
        i += 1

def _move_right(comps, found, pos, idx):
    """Inserts empty components before idx until it reaches pos."""
    for _ in range(8):
        cur = ""
        i = idx
        for _ in range(2 * len(comps) + 8):
            if i >= len(comps):
                break
            nxt = comps[i]
            comps[i] = cur
            cur = nxt
            if cur == "":
                break
            i += 1
            for _ in range(4):
                if _fixed(found, i):
                    i += 1
        if cur != "":
            comps.append(cur)
        idx += 1
        for _ in range(4):
            if _fixed(found, idx):
                idx += 1
        if idx >= pos:
            return

def _resize(c, size):
    c = list(c[:size])
    for _ in range(size - len(c)):
        c.append("")
    return c

def normalize_triple(components, form = 0):
    """Triple::normalize over a list of components.

    Args:
      components: list of strings, e.g. "x86_64-linux-gnu".split("-").
      form: 0 for CanonicalForm::ANY, or 3, 4 or 5 components.

    Returns:
      The normalized triple string.
    """
    comps = list(components)
    st = {"vendor": "", "os": "", "env": "", "format": "", "cygwin": False, "mingw": False}
    arch = parse_arch(comps[0]) if len(comps) > 0 else ""
    if len(comps) > 1:
        st["vendor"] = parse_vendor(comps[1])
    if len(comps) > 2:
        st["os"] = parse_os(comps[2])
        st["cygwin"] = comps[2].startswith("cygwin")
        st["mingw"] = comps[2].startswith("mingw")
    if len(comps) > 3:
        st["env"] = parse_environment(comps[3])
    if len(comps) > 4:
        st["format"] = parse_format(comps[4])
    found = [arch != "", st["vendor"] != "", st["os"] != "", st["env"] != ""]
    for pos in range(4):
        if found[pos]:
            continue
        for idx in range(len(comps)):
            if _fixed(found, idx) or not _fits(st, pos, comps[idx]):
                continue
            if pos < idx:
                _move_left(comps, found, pos, idx)
            elif pos > idx:
                _move_right(comps, found, pos, idx)
            found[pos] = True
            break
    c = comps
    if found[0] and not found[1] and not found[2] and found[3] and c[1] == "none" and c[2] == "":
        c[1], c[2] = c[2], c[1]
    c = [x if x != "" else "unknown" for x in c]
    if st["env"] == "android" and c[3].startswith("androideabi"):
        c[3] = "android" + c[3][len("androideabi"):]
    if st["vendor"] == "suse" and st["env"] == "gnueabi":
        c[3] = "gnueabihf"
    if st["os"] == "windows":
        c = _resize(c, 4)
        c[2] = "windows"
        if st["env"] == "":
            c[3] = "msvc" if st["format"] in ("", "coff") else st["format"]
    elif st["mingw"]:
        c = _resize(c, 4)
        c[2] = "windows"
        c[3] = "gnu"
    elif st["cygwin"]:
        c = _resize(c, 4)
        c[2] = "windows"
        c[3] = "cygnus"
    if st["mingw"] or st["cygwin"] or (st["os"] == "windows" and st["env"] != ""):
        if st["format"] not in ("", "coff"):
            c = _resize(c, 5)
            c[4] = st["format"]
    if c[0] == "dxil":
        c = _resize(c, min(len(c), 4))
        if st["os"] == "shadermodel":
            c[0] = _dxil_arch(c[2])
    if form:
        c = [x if x != "" else "unknown" for x in _resize(c, form)]
    return "-".join(c)
