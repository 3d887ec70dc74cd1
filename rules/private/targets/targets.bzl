"""Offload targets: target IDs, bundle entry IDs and what rules accept.

Pure functions of their arguments. Parsers return (value, error) with error
"" on success, so rules can fail() with context and tests can check both
sides. The rules follow clang-offload-bundler 22.1.8 and clang's TargetID.cpp,
as lib/targetid does; tests/starlark checks that the two agree.

What a processor or a common host triple resolves to (family, canonical
name, triple, features, LLVM version, bundle triple) is data generated from
lib/targetid (processors.bzl's PROCESSORS and HOST_TRIPLES): a new processor
is a row there, not code here. This file keeps what must be computed from
the input: target-ID features (split, check, canonical order), bundle entry
IDs and triples that are not in the tables (parsed as LLVM does).
"""

load("//rules/private/kinds:families.bzl", "FAMILIES", "HOST_CPU", "family_of")
load("//rules/private/kinds:registry.bzl", "KINDS", "KIND_NAMES", "kinds_for_family", "kinds_for_ptx")
load(":processors.bzl", "AMDGCN_GPUS", "HOST_TRIPLES", "OFFLOAD_ARCHS", "OFFLOAD_ARCHS_SINCE", "PROCESSORS", "R600_GPUS")
load(":triple.bzl", "normalize_triple", "parse_arch", "parse_os")

# Every OffloadArch name a target may name (LLVM 22's and those LLVM 23
# added), sorted: what error messages list.
KNOWN_PROCESSORS = sorted(OFFLOAD_ARCHS + list(OFFLOAD_ARCHS_SINCE))

# The bundler's table (LLVM 22's): which bundle entry IDs keep their target ID.
_OFFLOAD_ARCH_SET = {a: True for a in OFFLOAD_ARCHS}

# What a target may name.
_TARGET_ARCH_SET = {a: True for a in KNOWN_PROCESSORS}

def llvm_since(processor):
    """The first LLVM major whose clang knows an OffloadArch name, or 0 for LLVM 22's own.

    Args:
      processor: "sm_100f".

    Returns:
      int.
    """
    p = PROCESSORS.get(processor)
    return p.llvm_since if p and not p.ptx else 0

# Offload kinds a bundle entry ID may carry.
BUNDLE_KINDS = ["host", "openmp", "hip", "hipv4"]

# The family structs by the names the generated tables use.
_FAMILIES = {f.name: f for f in FAMILIES}

def split_target_id(id):
    """Splits "proc:feat+:feat-" without validating names (TargetID.cpp).

    Args:
      id: the target ID.

    Returns:
      (processor, features, error): features is a list of (name, on) in the
      given order. An empty id gives ("", [], "").
    """
    if id == "":
        return "", [], ""
    proc, _, rest = id.partition(":")
    if proc == "":
        return "", [], "malformed target ID %r: empty processor" % id
    feats = []

    # As LLVM, a trailing ':' ends the list ("gfx906:" is "gfx906").
    for _ in range(len(rest)):
        if rest == "":
            break
        item, _, rest = rest.partition(":")
        if item == "" or item[-1] not in ("+", "-"):
            return proc, feats, "malformed target ID %r: feature %r needs a + or - sign" % (id, item)
        name = item[:-1]
        for f in feats:
            if f[0] == name:
                return proc, feats, "malformed target ID %r: feature %r given more than once" % (id, name)
        feats.append((name, item[-1] == "+"))
    return proc, feats, ""

def _feature_name(f):
    return f[0]

def _target_key(t):
    return (t.bundle_id, t.name)

def _feature_string(f):
    return f[0] + ("+" if f[1] else "-")

def canonical_target_id(processor, features):
    """clang::getCanonicalTargetID: features sorted by name.

    Args:
      processor: the processor.
      features: list of (name, on).

    Returns:
      "gfx906:sramecc-:xnack+".
    """
    s = processor
    for f in sorted(features, key = _feature_name):
        s += ":" + _feature_string(f)
    return s

def parse_target_id(triple, id):
    """clang::parseTargetID for a triple (or just its arch).

    For AMDGPU the processor must be in TargetParser's table and is
    canonicalized ("tahiti" -> "gfx600"), and only the features that
    processor has (xnack, sramecc) are accepted. Other triples take the
    processor as is and accept no feature.

    Args:
      triple: a triple or its arch ("amdgcn-amd-amdhsa", "nvptx64").
      id: the target ID.

    Returns:
      (struct(processor, features, canonical), error).
    """
    arch = parse_arch(triple.partition("-")[0])
    proc, feats, err = split_target_id(id)
    if err:
        return None, err
    if proc == "":
        return None, "malformed target ID %r: empty processor" % id
    canon = proc
    supported = []
    if arch == "amdgcn":
        if proc not in AMDGCN_GPUS:
            return None, "unknown processor %r in target ID %r" % (proc, id)
        canon, supported = AMDGCN_GPUS[proc]
    elif arch == "r600":
        if proc not in R600_GPUS:
            return None, "unknown processor %r in target ID %r" % (proc, id)
        canon = R600_GPUS[proc]
    for f in feats:
        if f[0] not in supported:
            return None, "feature %r is not supported by %s (target ID %r; supported: %s)" % (
                f[0],
                canon,
                id,
                ", ".join(supported) or "none",
            )
    return struct(
        processor = canon,
        features = feats,
        canonical = canonical_target_id(canon, feats),
    ), ""

def parse_entry_id(s):
    """Parses and standardizes a bundle entry ID as the bundler does.

    "<kind>-<arch>-<vendor>-<os>-<env>[-<target id>]": the sixth field keeps
    any further dashes. The triple is normalized (amdhsa drops the
    environment); a target ID whose processor is not an OffloadArch name is
    dropped, as the bundler does. Kind and triple validity are reported in
    kind_valid and triple_valid, not as errors.

    Args:
      s: the bundle entry ID.

    Returns:
      (struct, error); struct.id is the standardized ID.
    """
    f = s.split("-", 5)
    if len(f) < 5:
        return None, ("Targets need to follow the format '<offload kind>-<target triple>', " +
                      "where '<target triple>' follows the format " +
                      "'<kind>-<arch>-<vendor>-<os>-<env>[-<target id>[:target features]]'.")
    names = f[1:5]
    raw_tid = f[5] if len(f) == 6 else ""
    tid = raw_tid if raw_tid.partition(":")[0] in _OFFLOAD_ARCH_SET else ""
    if parse_os(names[2]) == "amdhsa":
        comps = normalize_triple(names, 3).split("-") + [""]
    else:
        comps = normalize_triple(names, 4).split("-")
    return struct(
        raw = s,
        kind = f[0],
        arch = comps[0],
        vendor = comps[1],
        os = comps[2],
        env = comps[3],
        target_id = tid,
        raw_target_id = raw_tid,
        triple_string = "-".join(names),
        kind_valid = f[0] in BUNDLE_KINDS,
        triple_valid = parse_arch(names[0]) != "",
        id = "-".join([f[0]] + comps + [tid]),
    ), ""

def entry_id_error(e):
    """The bundler's "invalid target" message for a parsed entry ID.

    Args:
      e: struct from parse_entry_id.

    Returns:
      the message, or "" when kind and triple are valid.
    """
    if e.kind_valid and e.triple_valid:
        return ""
    msg = "invalid target '%s'" % e.raw
    if not e.kind_valid:
        msg += ", unknown offloading kind '%s'" % e.kind
    if not e.triple_valid:
        msg += ", unknown target triple '%s'" % e.triple_string
    return msg

def _edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
        prev = cur
    return prev[len(b)]

def _unknown_processor(spec, proc):
    best = ""
    best_d = 3
    for k in KNOWN_PROCESSORS:
        d = _edit_distance(proc.lower(), k)
        if d < best_d:
            best, best_d = k, d
    hint = " (did you mean %r?)" % best if best else ""
    return "unknown processor %r in target %r%s; known processors: %s" % (
        proc,
        spec,
        hint,
        ", ".join(KNOWN_PROCESSORS),
    )

def target_dir(name):
    """A file-name-safe form of a target name: ':' becomes '_'."""
    return name.replace(":", "_")

def _bundle_id(bundle_kind, triple, target_id):
    """The standardized bundle entry ID of a target the generated rows do not give.

    Entry IDs and triples not in HOST_TRIPLES are standardized by parsing,
    as the bundler does.
    """
    e, _ = parse_entry_id("%s-%s-%s" % (bundle_kind, triple if triple.count("-") == 3 else triple + "-", target_id))
    return e.id

def _target(spec, name, kind, processor, target_id, features, triple, bundle_kind, ptx, family = None, bundle_id = None):
    if bundle_id == None:
        bundle_id = _bundle_id(bundle_kind, triple, target_id) if bundle_kind else ""
    return struct(
        spec = spec,
        name = name,
        dir = target_dir(name),
        offload_kind = kind,
        family = family or family_of(triple),
        processor = processor,
        target_id = target_id,
        features = [_feature_string(f) for f in sorted(features, key = _feature_name)],
        triple = triple,
        bundle_kind = bundle_kind,
        bundle_id = bundle_id,
        ptx = ptx,
    )

def _bundle_kind(kind, code_object):
    k = KINDS[kind]
    return k.code_object_bundle_kind if code_object else k.bundle_kind

def _wrong_kind(spec, kind, family):
    """Why a kind does not take a target of a family, or ""."""
    if family.name in KINDS[kind].families:
        return ""
    return "target %r: %s" % (spec, family.wrong_kind % kinds_for_family(family))

def _resolve_entry_id(spec, kind):
    e, err = parse_entry_id(spec)
    if err:
        return None, "target %r: %s" % (spec, err)
    err = entry_id_error(e)
    if err:
        return None, err
    if e.kind == "host":
        return None, "target %r: host entries are added by the rule (see the host attribute), not listed in targets" % spec
    k = KINDS[kind]
    if e.kind not in (k.bundle_kind, k.code_object_bundle_kind):
        return None, "target %r: offload kind %r does not match the rule's kind %r" % (spec, e.kind, kind)
    if e.raw_target_id and not e.target_id:
        proc = e.raw_target_id.partition(":")[0]
        return None, _unknown_processor(spec, proc)
    triple = "-".join([e.arch, e.vendor, e.os] + ([e.env] if e.env else []))
    if not e.target_id:
        return _target(spec, triple, kind, "", "", [], triple, e.kind, False), ""
    tid, err = parse_target_id(e.arch, e.target_id)
    if err:
        return None, "target %r: %s" % (spec, err)
    return _target(spec, tid.canonical, kind, tid.processor, tid.canonical, tid.features, triple, e.kind, False), ""

def resolve_target(spec, kind, code_object = True):
    """Resolves one entry of a rule's targets attribute.

    A processor or host triple without features comes from _RESOLVED, made
    when this file loads from the generated rows; anything else is resolved
    here (_resolve).

    Accepted forms:
      * a target ID: "gfx906", "gfx90a:xnack+", "gfx11-generic", "sm_90a",
        "sm_100f", "amdgcnspirv" (processor checked against LLVM 22's
        OffloadArch table and the names LLVM 23 added, features against
        TargetParser; features sorted by name);
      * "compute_90", "compute_100f": PTX for the virtual architecture (kind "cuda");
      * a triple such as "x86_64-pc-linux-gnu": an OpenMP host-CPU device;
      * a full bundle entry ID, "hipv4-amdgcn-amd-amdhsa--gfx906".

    Args:
      spec: the string as written.
      kind: "hip", "cuda" or "openmp".
      code_object: for HIP, whether the image is a linked code object
        (entry kind "hipv4", as clang's fat binaries) or not ("hip").

    Returns:
      (struct, error). The struct's fields are documented on
      OffloadImageInfo (name, offload_kind, processor, target_id, features,
      triple, bundle_id, ...).
    """
    known = _RESOLVED.get((spec, kind, code_object))
    if known:
        return known, ""
    return _resolve(spec, kind, code_object)

def _resolve(spec, kind, code_object):
    """resolve_target without the table."""
    if kind not in KINDS:
        return None, "offload kind %r is not one of %s" % (kind, ", ".join(KIND_NAMES))
    if spec.count("-") >= 4:
        return _resolve_entry_id(spec, kind)
    proc = spec.partition(":")[0]
    p = PROCESSORS.get(proc)
    if p:
        return _resolve_processor(spec, p, kind, code_object)
    if proc in _TARGET_ARCH_SET:
        if spec != proc:
            return None, "target %r: only AMD processors take features (xnack, sramecc)" % spec
        return None, "target %r: processor %r is not supported by these rules (AMD and NVIDIA only)" % (spec, proc)
    host = HOST_TRIPLES.get(spec)
    if host:
        return _host_target(spec, kind, host.triple, host.bundle_triple)
    comps = spec.split("-")
    if len(comps) > 1 and parse_arch(comps[0]) != "":
        return _host_target(spec, kind, normalize_triple(comps, 4), None)
    return None, _unknown_processor(spec, proc)

def _resolve_processor(spec, p, kind, code_object):
    """A target naming a processor (PROCESSORS' row p), with features if any."""
    if p.ptx:
        if ":" in spec:
            return None, "target %r: NVIDIA targets take no features" % spec
        if not KINDS[kind].ptx:
            return None, "target %r: PTX-only targets need kind %s" % (spec, kinds_for_ptx())
        return _target(spec, spec, kind, p.processor, p.processor, [], p.triple, "", True, _FAMILIES[p.family], ""), ""
    family = _FAMILIES[p.family]
    if not p.takes_features:
        if ":" in spec:
            return None, "target %r: only AMD processors take features (xnack, sramecc)" % spec
    err = _wrong_kind(spec, kind, family)
    if err:
        return None, err
    _, feats, err = split_target_id(spec)
    if err:
        return None, "target %r: %s" % (spec, err)
    for f in feats:
        if f[0] not in p.features:
            return None, "target %r: feature %r is not supported by %s (target ID %r; supported: %s)" % (
                spec,
                f[0],
                p.processor,
                spec,
                ", ".join(p.features) or "none",
            )
    tid = canonical_target_id(p.processor, feats)
    bundle_kind = _bundle_kind(kind, code_object)
    bundle_id = ""
    if bundle_kind:
        bundle_id = "%s-%s-%s" % (bundle_kind, p.bundle_triple, tid if p.bundled else "")
    return _target(spec, tid, kind, p.processor, tid, feats, p.triple, bundle_kind, False, family, bundle_id), ""

def _host_target(spec, kind, triple, bundle_triple):
    """A triple as a target: an OpenMP host-CPU device."""
    err = _wrong_kind(spec, kind, HOST_CPU)
    if err:
        return None, err
    bundle_kind = _bundle_kind(kind, False)
    bundle_id = None  # parsed, as the bundler does
    if bundle_triple:
        bundle_id = "%s-%s-" % (bundle_kind, bundle_triple) if bundle_kind else ""
    return _target(spec, triple, kind, "", "", [], triple, bundle_kind, False, HOST_CPU, bundle_id), ""

def _resolve_known():
    """Every generated processor and host triple, resolved for every kind it is valid for.

    Each rule resolves its targets again on every analysis, and resolving
    (the bundle entry ID's triple parsed as LLVM does) was 43 % of the Starlark
    time of analysing 1,000 offload targets; a table built once, when this
    file loads, leaves rules a lookup.
    """
    table = {}
    for spec in list(PROCESSORS) + list(HOST_TRIPLES):
        for kind in KIND_NAMES:
            for code_object in (True, False):
                t, err = _resolve(spec, kind, code_object)
                if not err:
                    table[(spec, kind, code_object)] = t
    return table

_RESOLVED = _resolve_known()

def conflicting_targets(targets):
    """clang::getConflictTargetIDCombination over resolved targets.

    Per bundle kind and triple, a feature must be given in all target IDs of
    a processor or in none (gfx906 with gfx906:xnack+ conflicts).

    Args:
      targets: list of structs from resolve_target.

    Returns:
      "" or an error naming the two targets.
    """
    groups = {}
    for t in targets:
        if t.bundle_kind and t.target_id:
            groups.setdefault(t.bundle_kind + "-" + t.triple, []).append(t.target_id)
    for key in sorted(groups):
        seen = {}
        for id in sorted({i: True for i in groups[key]}):
            proc, feats, _ = split_target_id(id)
            if proc not in seen:
                seen[proc] = (id, [f[0] for f in feats])
                continue
            first, names = seen[proc]
            for f in feats:
                if f[0] not in names:
                    return "conflicting targets %r and %r: a feature must be given for all targets of a processor or for none" % (first, id)
    return ""

def resolve_targets(specs, kind, code_object = True):
    """Resolves a targets list: each entry, then duplicates and conflicts.

    Args:
      specs: list of string, as written.
      kind: "hip", "cuda" or "openmp".
      code_object: see resolve_target.

    Returns:
      (list of structs sorted by bundle ID then name, error).
    """
    out = []
    seen = {}
    for spec in specs:
        t, err = resolve_target(spec, kind, code_object)
        if err:
            return None, err
        key = t.bundle_id or t.name
        if key in seen:
            return None, "targets %r and %r are the same target (%s)" % (seen[key], spec, key)
        seen[key] = spec
        out.append(t)
    err = conflicting_targets(out)
    if err:
        return None, err
    return sorted(out, key = _target_key), ""
