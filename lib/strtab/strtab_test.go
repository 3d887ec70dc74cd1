package strtab

import "testing"

// llvm-offload-binary-22's string table for {triple,abc,arch,bc,x,c,y}
// gives "\0y\0x\0arch\0triple\0abc\0" with bc and c inside abc.
func TestStringTable(t *testing.T) {
	tab, off := Build([]string{"triple", "abc", "arch", "bc", "x", "c", "y"})
	if string(tab) != "\x00y\x00x\x00arch\x00triple\x00abc\x00" {
		t.Fatalf("table %q", tab)
	}
	abc := off["abc"]
	if off["bc"] != abc+1 || off["c"] != abc+2 {
		t.Errorf("tail merge: abc %d bc %d c %d", abc, off["bc"], off["c"])
	}
	for s, o := range off {
		if got := tab[o : int(o)+len(s)]; string(got) != s || tab[int(o)+len(s)] != 0 {
			t.Errorf("%q at %d reads %q", s, o, got)
		}
	}
}

func TestStringTableEmpty(t *testing.T) {
	tab, off := Build([]string{"", "a", ""})
	if string(tab) != "\x00a\x00" || off[""] != 0 || off["a"] != 1 {
		t.Fatalf("table %q offsets %v", tab, off)
	}
	tab, _ = Build(nil)
	if string(tab) != "\x00" {
		t.Fatalf("empty table %q", tab)
	}
}
