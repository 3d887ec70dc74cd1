package bundler

import "github.com/rules-offload/rules_offload/lib/bundle"

// handler is how files of a job's type hold bundles, decided once per job
// as LLVM's CreateFileHandler decides it: text bundles behind the type's
// comment marker; binary bundles; or, for "o" and "a", an object's bundle
// sections when the file is an ELF object and a binary bundle otherwise.
type handler struct {
	fileType string
	kind     handlerKind
	comment  string // the text bundles' comment marker
}

type handlerKind int

const (
	invalidHandler handlerKind = iota // not a file type LLVM knows
	textHandler
	binaryHandler
	objectHandler
)

func handlerFor(fileType string) handler {
	h := handler{fileType: fileType}
	if comment, ok := bundle.CommentFor(fileType); ok {
		h.kind, h.comment = textHandler, comment
		return h
	}
	switch fileType {
	case "bc", "gch", "ast":
		h.kind = binaryHandler
	case "o", "a":
		h.kind = objectHandler
	}
	return h
}

// invalid is LLVM's error for a file type it has no handler for.
func (h handler) invalid() error {
	return errorf("'%s': invalid file type specified", h.fileType)
}
