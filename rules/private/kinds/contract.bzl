"""What a kind answers, phase by phase: one constructor per phase, with defaults.

A kind (cuda.bzl, hip.bzl, openmp.bzl) is offload_kind(...) of a name, the
device families it takes and five phases; each phase spells only where the
kind differs from the defaults, so a kind file reads like a table. The rules
ask kind.<phase>.<field> and never test the kind's name:

  compile: a device compile (actions/compile.bzl, device_compiles.bzl,
           sdk_check.bzl).
  bundle:  offload_bundle's and offload_package's containers of images.
  host:    offload_library's host half and the container its device code
           goes in (whole program).
  link:    relocatable device code: its compiles, the device link, the
           registration of the linked images (offload_device_link).
  runtime: the runtime library a program links.
"""

load(":common.bzl", "add_nothing", "current_entry_layout", "no_device_link", "no_error", "no_target_list_flags", "no_wavefront", "no_whole_program_link", "no_wrap_flags")

def compile_phase(
        language_flags,
        device_only_flags = [],
        cuid = False,
        target_list_flags = no_target_list_flags,
        add_flags = add_nothing,
        wavefront = no_wavefront,
        sdk_error = no_error,
        gpu_objects_are_bitcode = False):
    """A kind's device compiles.

    Args:
      language_flags: clang's language flags.
      device_only_flags: flags of a device-only compile after
        --offload-device-only.
      cuid: whether compiles take a -cuid.
      target_list_flags: function(targets) -> the flags every device compile
        of a rule adds from the rule's whole target list, as clang's driver
        derives them from all --offload-arch values (__CUDA_ARCH_LIST__).
      add_flags: function(args, clang, target, emit_flags, copts): adds the
        SDK flags of one device compile to args.
      wavefront: function(clang, target) -> the __AMDGCN_WAVEFRONT_SIZE to
        define for a device compile, or 0.
      sdk_error: function(clang, target, flags) -> why the toolchain's SDK
        cannot build target, or "".
      gpu_objects_are_bitcode: whether a GPU object compile makes LTO bitcode.

    Returns:
      struct.
    """
    return struct(
        language_flags = language_flags,
        device_only_flags = device_only_flags,
        cuid = cuid,
        target_list_flags = target_list_flags,
        add_flags = add_flags,
        wavefront = wavefront,
        sdk_error = sdk_error,
        gpu_objects_are_bitcode = gpu_objects_are_bitcode,
    )

def bundle_phase(
        ext = ".bundle",
        error = "",
        code_objects = False,
        bitcode_copts_error = no_error,
        links_sources = False,
        link_compile = None):
    """A kind's images in offload_bundle and offload_package.

    Args:
      ext: offload_bundle's default extension of an object bundle without a
        host object.
      error: why offload_bundle refuses the kind, or "".
      code_objects: whether its object images are code objects the runtime
        loads (HIP fat binaries).
      bitcode_copts_error: function(copts) -> why copts would make bitcode
        where code objects are expected, or "".
      links_sources: whether several sources make one image per target (a
        device link of -fgpu-rdc code).
      link_compile: (flags, extension) of the compiles that link; None: the
        family's (families.bzl link_compile).

    Returns:
      struct.
    """
    return struct(
        ext = ext,
        error = error,
        code_objects = code_objects,
        bitcode_copts_error = bitcode_copts_error,
        links_sources = links_sources,
        link_compile = link_compile,
    )

def host_phase(
        flags,
        wavefront = no_wavefront,
        device_with_host = False,
        fat_binary = "",
        fat_binary_object = False,
        whole_program_link = no_whole_program_link):
    """A kind's host compiles in offload_library.

    Args:
      flags: function(clang, targets, cuid) -> the flags that make a
        compile the host half.
      wavefront: function(clang) -> the __AMDGCN_WAVEFRONT_SIZE to define for
        the host compile, or 0.
      device_with_host: whether a source's device compiles run in one action
        with its host compile.
      fat_binary: the container (actions/containers.bzl) of a whole-program
        library's images; "" for none.
      fat_binary_object: whether that container goes in an object of its
        own, which the host object refers to.
      whole_program_link: function(clang, targets) -> struct(compile_flags,
        ext, container) or None: a whole-program library's images made as
        clang's new driver makes them, per (target, source) a compile
        (compile_flags, to ext) and a device link, in the container named
        instead of fat_binary; None: compiled as the compile plan says.

    Returns:
      struct.
    """
    return struct(
        flags = flags,
        wavefront = wavefront,
        device_with_host = device_with_host,
        fat_binary = fat_binary,
        fat_binary_object = fat_binary_object,
        whole_program_link = whole_program_link,
    )

def link_phase(
        rdc_plan,
        container,
        image_kind,
        image_ext = ".img",
        always_rdc = False,
        device_link = no_device_link,
        wrap_flags = no_wrap_flags,
        entry_layout = current_entry_layout):
    """A kind's relocatable device code, its device link and registration.

    Args:
      rdc_plan: function(clang, target) -> (struct(flags, ext, image_kind,
        files) of relocatable device compiles, error); files: list of depset
        the flags name.
      container: the container offload_device_link writes.
      image_kind: the image kind of a linked image.
      image_ext: the extension of a linked image's file name (".o" where
        the OffloadBinary's image kind comes from it, as
        llvm-offload-binary decides it).
      always_rdc: whether libraries are always relocatable device code
        (linked per program).
      device_link: function(clang, target) -> struct(flags, trailing, files)
        of a relocatable device link that replaces the family's flags
        (trailing: after the objects), or None for the family's.
      wrap_flags: function(clang version) -> more flags of its `offload wrap`
        in offload_device_link.
      entry_layout: function(clang version) -> the offload entry layout of
        its host objects ("" or "legacy").

    Returns:
      struct.
    """
    return struct(
        rdc_plan = rdc_plan,
        container = container,
        image_kind = image_kind,
        image_ext = image_ext,
        always_rdc = always_rdc,
        device_link = device_link,
        wrap_flags = wrap_flags,
        entry_layout = entry_layout,
    )

def runtime_phase(libraries, recorded):
    """A kind's runtime library.

    Args:
      libraries: function(clang, runtime) -> (struct(static, dynamic, flags)
        or None, error): the runtime to link for the runtime attribute.
      recorded: basename prefixes of the runtime libraries that
        offload_registration_test replaces with its recording stand-in
        (rules/private/registration).

    Returns:
      struct.
    """
    return struct(libraries = libraries, recorded = recorded)

def offload_kind(
        name,
        families,
        compile,
        bundle,
        host,
        link,
        runtime,
        ptx = False,
        bundle_kind = "",
        code_object_bundle_kind = ""):
    """A kind: its name, the targets it takes, its bundle entry kinds and its phases.

    Args:
      name: "hip", "cuda", "openmp": the attribute value, and the key of the
        toolchain's kind_copts/kind_files.
      families: names of the device families (families.bzl) whose
        processors the kind takes.
      compile: compile_phase(...).
      bundle: bundle_phase(...).
      host: host_phase(...).
      link: link_phase(...).
      runtime: runtime_phase(...).
      ptx: whether it takes PTX-only targets (compute_XX).
      bundle_kind: the bundle entry ID's offload kind of its images; "" where
        the bundler has none.
      code_object_bundle_kind: the same for images that are linked code
        objects.

    Returns:
      struct.
    """
    return struct(
        name = name,
        families = families,
        ptx = ptx,
        bundle_kind = bundle_kind,
        code_object_bundle_kind = code_object_bundle_kind,
        compile = compile,
        bundle = bundle,
        host = host,
        link = link,
        runtime = runtime,
    )
