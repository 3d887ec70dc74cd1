package container

// NVIDIA's objects carry their device code as fat binaries in sections:
// nvcc's whole-program objects and nvlink's device-link objects (nvcc
// -dlink) in .nv_fatbin, nvcc's relocatable device code (-rdc=true, CUDA
// 11.8 to 13) in __nv_relfatbin, whose cubins are relocatable, for nvlink
// to link. The section holds the fat binary as fatbinary writes it, so
// the fat binary walk (NVFatbin) lists its images; an archive of such
// objects (nvcc -lib) is walked member by member.

// RelFatbinSection is the section of nvcc's relocatable device code.
const RelFatbinSection = "__nv_relfatbin"

// nvFatbinSection reports whether an ELF section of this name holds an
// NVIDIA fat binary.
func nvFatbinSection(name string) bool {
	return name == ".nv_fatbin" || name == RelFatbinSection
}
