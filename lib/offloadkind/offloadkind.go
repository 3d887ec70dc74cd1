// Package offloadkind is the one Go vocabulary of the offload kind, the
// programming model a device image belongs to (OpenMP, CUDA, HIP, SYCL).
//
// The values are LLVM's object::OffloadKind (llvm/Object/OffloadBinary.h),
// which clang's driver and the OffloadBinary format share: bit flags, so an
// OffloadBinary entry's kind field is a Kind as stored and a value that is
// not exactly one kind (OpenMP|HIP, a future bit) survives a read and a
// write unchanged. Formats that spell the kind their own way convert at
// their edge: the bundler's entry-ID kinds (host, hipv4) with FromBundle and
// BundleName, the offload-wrapper's --kind with the wrapper's ParseKind.
package offloadkind

// Kind is an offload kind; its value is LLVM's OFK_* number.
type Kind uint16

// The offload kinds (LLVM's OFK_*).
const (
	None   Kind = 0
	OpenMP Kind = 1 << 0
	CUDA   Kind = 1 << 1
	HIP    Kind = 1 << 2
	SYCL   Kind = 1 << 3
)

// Parse is LLVM's getOffloadKind: openmp, cuda, hip and sycl are known,
// anything else (case matters) is None.
func Parse(s string) Kind {
	switch s {
	case "openmp":
		return OpenMP
	case "cuda":
		return CUDA
	case "hip":
		return HIP
	case "sycl":
		return SYCL
	}
	return None
}

// String is LLVM's getOffloadKindName: "none" for None and for any value
// that is not exactly one known kind.
func (k Kind) String() string {
	switch k {
	case OpenMP:
		return "openmp"
	case CUDA:
		return "cuda"
	case HIP:
		return "hip"
	case SYCL:
		return "sycl"
	}
	return "none"
}

// FromBundle maps a clang-offload-bundler entry-ID kind to a Kind: openmp,
// and hip and hipv4 (the same model; hipv4 marks a linked code object) to
// HIP. The host entry and unknown kinds give false.
func FromBundle(s string) (Kind, bool) {
	switch s {
	case "openmp":
		return OpenMP, true
	case "hip", "hipv4":
		return HIP, true
	}
	return None, false
}
