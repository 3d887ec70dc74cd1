package bundler

import (
	"errors"
	"fmt"

	"github.com/rules-offload/rules_offload/lib/ar"
	"github.com/rules-offload/rules_offload/lib/ccob"
	"github.com/rules-offload/rules_offload/lib/container"
)

// inputError words an error of lib/container reading the input called
// name in LLVM's words: a compressed record that could not be decoded, or
// whose hash did not match, records declaring more than the limit, or data
// after one, as a failed decompression (prefix is LLVM's words for the
// kind of input); anything else as an error of the file.
func inputError(name, prefix string, err error) error {
	if re := (*container.RecordError)(nil); errors.As(err, &re) {
		return decompressError(name, prefix, re.Err)
	}
	if de := (*container.DeclaredError)(nil); errors.As(err, &de) {
		return decompressError(name, prefix, de.Err)
	}
	if t := (*container.TrailingError)(nil); errors.As(err, &t) {
		return inFile(name, "", errorf("%s: %v", prefix, err))
	}
	return fileError(name, err)
}

// hashFirst returns the input's hash mismatch, if any, instead of err: a
// corrupt payload explains whatever else went wrong.
func hashFirst(cfg *Config, in *container.Input, err error) error {
	if herr := in.Check(); herr != nil {
		return inputError(cfg.Inputs[0], decompressInput, herr)
	}
	return err
}

// decompressError reports that a compressed record of the file could not
// be decompressed in LLVM's words ("Failed to decompress input: <reason>"),
// naming the file after them: LLVM does not name it. LLVM 22 reports an
// unknown version as a header too small (it finds no header size for it);
// so does this, followed by the version. LLVM does not read the total
// size: it decompresses whatever follows the header, so a CCOB cut short
// fails in the codec; ours checks the size first, and says so after the
// codec failure's words.
func decompressError(name, prefix string, err error) error {
	var ve *container.VersionError
	switch {
	case errors.As(err, &ve):
		err = fmt.Errorf("%w: unknown version %d", ccob.ErrHeaderTooSmall, ve.Version)
	case errors.Is(err, ccob.ErrTotalSize):
		err = fmt.Errorf("%w: %w", ccob.ErrDecompress, err)
	}
	return inFile(name, "", fmt.Errorf("%s: %w", prefix, err))
}

// archiveError words an input that is no archive as LLVM does: it says
// "file too small to be an archive" for every input without the magic.
func archiveError(name string, err error) error {
	if errors.Is(err, ar.ErrNotArchive) {
		return inFile(name, "", errorf("%s: %v", ar.ErrTooSmall, err))
	}
	return inFile(name, "", err)
}

// faultGuard makes a memory fault in the calling goroutine an error in
// *err, naming file, instead of a crash (container.FaultGuard): use it as
//
//	defer faultGuard(&err, file)()
//
// in every goroutine that reads a mapped input.
func faultGuard(err *error, file string) func() {
	return container.FaultGuard(err, func(e error) error { return fileError(file, e) })
}
