package container

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rules-offload/rules_offload/internal/hostile"
	"github.com/rules-offload/rules_offload/lib/budget"
	"github.com/rules-offload/rules_offload/lib/ccob"
)

// records walks the records of input with opt (a budget and spill files
// made for it where unset), reading each payload whole; it returns what
// each decoded to, its offset, span and hash error, and the walk's error.
func records(t *testing.T, input []byte, opt RecordsOptions) ([]string, error) {
	if opt.Budget == nil {
		opt.Budget = budget.New(0)
	}
	temps := Temps{Dir: t.TempDir()}
	defer temps.Close()
	opt.Spill = temps.New
	var got []string
	err := CCOBRecords(bytes.NewReader(input), int64(len(input)), opt, func(rec *CCOBRecord) error {
		return rec.Look(func(p io.ReaderAt, whole bool) error {
			b := make([]byte, rec.Header.UncompressedSize)
			if _, err := p.ReadAt(b, 0); err != nil && err != io.EOF {
				return err
			}
			got = append(got, fmt.Sprintf("%s@%d+%d hash %v", b, rec.Offset, rec.Used, rec.HashErr != nil))
			return nil
		})
	})
	return got, err
}

// Records come in order, past zero padding, with where they start and how
// much of the input they span, however they are decoded first; data
// after a record that is no record is a *TrailingError where it starts.
func TestCCOBRecordsSequence(t *testing.T) {
	a, b := compressed(t, "first bundle"), compressed(t, "second")
	input := append(append(append([]byte(nil), a...), 0, 0, 0), b...)
	want := fmt.Sprintf("[first bundle@0+%d hash false second@%d+%d hash false]", len(a), len(a)+3, len(b))
	for _, opt := range []RecordsOptions{{}, {Prefix: 4}, {Prefix: 64}, {Prefix: 4, Enough: func([]byte, int64) bool { return true }}} {
		got, err := records(t, input, opt)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("prefix %d: got %v, %v; want %s", opt.Prefix, got, err, want)
		}
	}
	_, err := records(t, append(append([]byte(nil), input...), 0, 'x'), RecordsOptions{})
	var te *TrailingError
	if !errors.As(err, &te) || te.Offset != int64(len(input)+1) {
		t.Errorf("trailing data: %v; want a *TrailingError at %d", err, len(input)+1)
	}
}

// A record whose hash does not match is the walk's *RecordError, or with
// KeepMismatched is looked inside with HashErr set and ends the walk.
func TestCCOBRecordsHashMismatch(t *testing.T) {
	bad := compressed(t, "damaged")
	bad[24] ^= 1
	input := append(append(append([]byte(nil), compressed(t, "good")...), bad...), compressed(t, "after")...)
	got, err := records(t, input, RecordsOptions{})
	var re *RecordError
	if !errors.As(err, &re) || !errors.Is(err, ccob.ErrHashMismatch) || len(got) != 1 {
		t.Errorf("got %v, %v; want the first record, then a *RecordError for the mismatch", got, err)
	}
	got, err = records(t, input, RecordsOptions{KeepMismatched: true, Prefix: 64})
	if err != nil || len(got) != 2 || !strings.HasPrefix(got[1], "damaged@") || !strings.HasSuffix(got[1], "hash true") {
		t.Errorf("KeepMismatched: got %v, %v; want two records, the second with its mismatch, and no third", got, err)
	}
}

// A look that reads past the kept prefix reads the record decoded again,
// whole, and is done once: the budget ends charged the record and what
// the look charged, once each.
func TestCCOBRecordLookPastPrefix(t *testing.T) {
	payload := strings.Repeat("0123456789", 100)
	input := compressed(t, payload)
	b := budget.New(0)
	temps := Temps{Dir: t.TempDir()}
	defer temps.Close()
	var looks []string
	err := CCOBRecords(bytes.NewReader(input), int64(len(input)), RecordsOptions{Budget: b, Spill: temps.New, Prefix: 100}, func(rec *CCOBRecord) error {
		return rec.Look(func(p io.ReaderAt, whole bool) error {
			b.Reserve(7) // what a look inside charges
			last := make([]byte, 10)
			_, err := p.ReadAt(last, int64(len(payload)-10))
			looks = append(looks, fmt.Sprintf("whole %v: %q", whole, last))
			return err
		})
	})
	if err != nil || fmt.Sprint(looks) != `[whole false: "0123456789"]` {
		t.Fatalf("looks %v, %v; want one, at the prefix, reading past it", looks, err)
	}
	if b.Used() != uint64(len(payload))+7 {
		t.Errorf("budget used %d, want %d: the record and one look", b.Used(), len(payload)+7)
	}
}

// With Enough, a record declaring 1 GiB is decoded only as far as Enough
// asks (its hash, wrong here, is never compared), but charged whole.
func TestCCOBRecordsEnoughDecodesPrefix(t *testing.T) {
	input := hostile.CCOB([]byte("header"), 1<<30-6)
	b := budget.New(0)
	enough := func(kept []byte, size int64) bool { return len(kept) >= 6 && size == 1<<30 }
	err := CCOBRecords(bytes.NewReader(input), int64(len(input)), RecordsOptions{Budget: b, Prefix: 1 << 20, Enough: enough,
		Spill: func() (*os.File, error) { return nil, errors.New("spilled") }}, func(rec *CCOBRecord) error {
		if rec.Kept >= 1<<20 || rec.Used != int64(len(input)) {
			t.Errorf("kept %d bytes, used %d; want fewer than the prefix, and the record's %d", rec.Kept, rec.Used, len(input))
		}
		return rec.Look(func(p io.ReaderAt, whole bool) error {
			head := make([]byte, 6)
			_, err := p.ReadAt(head, 0)
			if string(head) != "header" || whole {
				t.Errorf("looked at %q, whole %v", head, whole)
			}
			return err
		})
	})
	if err != nil || b.Used() != 1<<30 {
		t.Fatalf("%v, budget used %d; want no error and the declared 1 GiB charged", err, b.Used())
	}
}

// The walk is a layer of compressed data while it lasts, and only then:
// inside compressed data it is refused (budget.ErrNested) before anything
// is decoded, and after it a sibling walk is not nested. Records that
// together declare more than the budget are refused before the first is
// decoded.
func TestCCOBRecordsNestingAndBudget(t *testing.T) {
	input := compressed(t, "payload")
	b := budget.New(0)
	for i := range 2 {
		if _, err := records(t, input, RecordsOptions{Budget: b}); err != nil {
			t.Fatalf("walk %d: %v", i, err)
		}
	}
	b.Enter(budget.Container)
	if _, err := records(t, input, RecordsOptions{Budget: b}); !errors.Is(err, budget.ErrNested) {
		t.Errorf("inside compressed data: %v; want budget.ErrNested", err)
	}
	two := append(append([]byte(nil), input...), input...)
	got, err := records(t, two, RecordsOptions{Budget: budget.New(10)})
	if !errors.Is(err, budget.ErrExceeded) || !strings.HasPrefix(err.Error(), "compressed bundles: ") || len(got) != 0 {
		t.Errorf("over budget: got %v, %v; want the declared sizes refused first", got, err)
	}
}

// A record's kept prefix is let go when its visit ends: a walk of many
// records holds one prefix at a time, whatever the visitor keeps of
// them. What still reads the payload afterwards fails, saying why.
func TestCCOBRecordPrefixLetGo(t *testing.T) {
	a := compressed(t, "first bundle")
	input := append(append([]byte(nil), a...), a...)
	var payloads []io.ReaderAt
	err := CCOBRecords(bytes.NewReader(input), int64(len(input)), RecordsOptions{Budget: budget.New(0), Prefix: 64}, func(rec *CCOBRecord) error {
		return rec.Look(func(p io.ReaderAt, whole bool) error {
			payloads = append(payloads, p)
			return nil
		})
	})
	if err != nil || len(payloads) != 2 {
		t.Fatalf("%v, %d records", err, len(payloads))
	}
	for i, p := range payloads {
		if _, err := p.ReadAt(make([]byte, 5), 0); !errors.Is(err, errReleased) {
			t.Errorf("record %d read after its visit: %v; want errReleased", i, err)
		}
	}
}

// Records inside compressed data keep half the prefix of the layer around
// them, down to minPrefix: prefixes held together stay about twice the
// outermost's at any depth.
func TestNestedPrefixHalves(t *testing.T) {
	for _, c := range []struct{ prefix, layer, want int }{
		{16 << 20, 0, 16 << 20}, {16 << 20, 1, 16 << 20}, {16 << 20, 2, 8 << 20}, {16 << 20, 9, 64 << 10},
		{16 << 20, 64, 64 << 10}, {1000, 3, 1000}, {0, 5, 0},
	} {
		if got := nestedPrefix(c.prefix, c.layer); got != c.want {
			t.Errorf("nestedPrefix(%d, %d) = %d, want %d", c.prefix, c.layer, got, c.want)
		}
	}
	payload := strings.Repeat("x", 300<<10)
	input := compressed(t, payload)
	b := budget.New(0)
	b.AllowNested()
	b.Enter(budget.Container) // inside one record already
	err := CCOBRecords(bytes.NewReader(input), int64(len(input)), RecordsOptions{Budget: b, Prefix: 256 << 10}, func(rec *CCOBRecord) error {
		if rec.Kept != 128<<10 {
			t.Errorf("kept %d bytes at layer 2, want %d", rec.Kept, 128<<10)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A look that fails on a prefix decoded with Enough (its hash never
// compared) has the record decoded whole: a hash mismatch is the error,
// not what the look made of the damage.
func TestCCOBRecordFailedLookComparesHash(t *testing.T) {
	bad := compressed(t, "damaged payload")
	bad[24] ^= 1
	lookErr := errors.New("the look failed")
	temps := Temps{Dir: t.TempDir()}
	defer temps.Close()
	opt := RecordsOptions{Budget: budget.New(0), Spill: temps.New, Prefix: 4, Enough: func([]byte, int64) bool { return true }}
	var rec0 *CCOBRecord
	err := CCOBRecords(bytes.NewReader(bad), int64(len(bad)), opt, func(rec *CCOBRecord) error {
		rec0 = rec
		return rec.Look(func(io.ReaderAt, bool) error { return lookErr })
	})
	if !errors.Is(err, ccob.ErrHashMismatch) || rec0.Err() == nil {
		t.Errorf("got %v; want the hash mismatch, kept by Err", err)
	}
}
