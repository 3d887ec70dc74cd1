"""Target triples as llvm::Triple (LLVM 22) parses and normalizes them.

Only what bundle entry IDs need: component parsing and Triple::normalize.
A Starlark port of lib/targetid/triple.go, whose tables it reads from the
generated triple_tables.bzl; tests/starlark checks that both agree. Parsed values use LLVM's canonical type names ("i386" for x86); ""
stands for Unknown.
"""

load(
    ":triple_tables.bzl",
    _ARCH_NAMES = "ARCH_NAMES",
    _ARM_ARCHS = "ARM_ARCHS",
    _ARM_SYNONYMS = "ARM_SYNONYMS",
    _DXIL_LATEST_MINOR = "DXIL_LATEST_MINOR",
    _ENV_RULES = "ENV_RULES",
    _FORMAT_RULES = "FORMAT_RULES",
    _OS_RULES = "OS_RULES",
    _VENDORS = "VENDORS",
)

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
    for suffix, format in _FORMAT_RULES:
        if name.endswith(suffix):
            return format
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
