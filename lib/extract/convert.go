package extract

import (
	"fmt"
	"io"
	"strings"

	"github.com/rules-offload/rules_offload/lib/bundle"
	"github.com/rules-offload/rules_offload/lib/offloadbin"
	"github.com/rules-offload/rules_offload/lib/targetid"
)

// ToOffloadBinary writes the device images as version-1 OffloadBinaries
// stored back to back — what clang's new offload driver embeds — with the
// "arch" and "triple" strings clang's driver passes to the packager. Host
// entries are skipped.
func ToOffloadBinary(w io.Writer, ims []*Image) error {
	for _, im := range ims {
		if im.OffloadKind == "host" {
			continue
		}
		kind, err := offloadKind(im.OffloadKind)
		if err != nil {
			return err
		}
		strs := []offloadbin.KV{{Key: "arch", Value: im.TargetID}, {Key: "triple", Value: strings.TrimSuffix(im.Triple, "-")}}
		if _, err := offloadbin.Write(w, im.ImageKind, kind, 0, strs, im.Open(), im.Size); err != nil {
			return err
		}
	}
	return nil
}

func offloadKind(k string) (offloadbin.OffloadKind, error) {
	switch k {
	case "hip", "hipv4":
		return offloadbin.OffloadHIP, nil
	case "openmp":
		return offloadbin.OffloadOpenMP, nil
	}
	return 0, fmt.Errorf("bundle entries of kind %q have no OffloadBinary offload kind", k)
}

// ToBundle writes the images as a binary bundle (the HIP fat binary format
// for hip images). OffloadBinary kinds map to bundle kinds: hip → hipv4,
// openmp → openmp; CUDA and SYCL images have no bundle kind. A non-empty
// hostTriple adds the empty host entry that OpenMP bundles need.
func ToBundle(w io.Writer, ims []*Image, hostTriple string, align int64) error {
	var ids []string
	var sizes []int64
	var srcs []io.Reader
	if hostTriple != "" {
		id, err := standardID("host", hostTriple, "")
		if err != nil {
			return err
		}
		ids, sizes, srcs = append(ids, id), append(sizes, 0), append(srcs, strings.NewReader(""))
	}
	seen := map[string]bool{}
	for _, im := range ims {
		id, err := bundleID(im)
		if err != nil {
			return err
		}
		if seen[id] {
			return fmt.Errorf("two images for the same bundle entry %s", id)
		}
		seen[id] = true
		ids, sizes, srcs = append(ids, id), append(sizes, im.Size), append(srcs, im.Open())
	}
	return bundle.WriteBinary(w, ids, sizes, srcs, align)
}

func bundleID(im *Image) (string, error) {
	if im.BundleID != "" {
		return im.BundleID, nil
	}
	kind := map[string]string{"hip": "hipv4", "openmp": "openmp"}[im.OffloadKind]
	if kind == "" {
		return "", fmt.Errorf("images of offload kind %q cannot go into a clang-offload-bundler bundle", im.OffloadKind)
	}
	return standardID(kind, im.Triple, im.TargetID)
}

// standardID builds kind-arch-vendor-os-env-targetID from a triple of any
// length and returns the bundler's standardized form of it.
func standardID(kind, triple, tid string) (string, error) {
	comps := strings.Split(strings.TrimSuffix(triple, "-"), "-")
	for len(comps) < 4 {
		comps = append(comps, "")
	}
	id, err := targetid.ParseEntryID(kind + "-" + strings.Join(comps[:4], "-") + "-" + tid)
	if err != nil {
		return "", err
	}
	if err := id.ValidateError(); err != nil {
		return "", err
	}
	return id.String(), nil
}
