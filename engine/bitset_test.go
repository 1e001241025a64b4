package engine

import (
	"testing"

	"pgregory.net/rapid"
)

// TestBitsetMatchesNaive drives the hierarchical bitset (single bits,
// masks, ranges, growth) and a []bool with the same operations.
func TestBitsetMatchesNaive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 300000).Draw(t, "n")
		b := newBitset(n)
		ref := make([]bool, n)
		for i, ops := 0, rapid.IntRange(1, 60).Draw(t, "ops"); i < ops; i++ {
			lo := rapid.IntRange(0, len(ref)-1).Draw(t, "lo")
			hi := rapid.IntRange(lo, min(len(ref), lo+200)).Draw(t, "hi")
			switch rapid.IntRange(0, 4).Draw(t, "op") {
			case 0:
				b.set(lo)
				ref[lo] = true
			case 1:
				b.clear(lo)
				ref[lo] = false
			case 2:
				b.setRange(lo, hi)
				for k := lo; k < hi; k++ {
					ref[k] = true
				}
			case 3:
				b.clearRange(lo, hi)
				for k := lo; k < hi; k++ {
					ref[k] = false
				}
			case 4:
				grow := len(ref) + rapid.IntRange(0, 5000).Draw(t, "grow")
				b.grow(grow)
				ref = append(ref, make([]bool, grow-len(ref))...)
			}
			q := rapid.IntRange(0, len(ref)-1).Draw(t, "q")
			want := -1
			for k := q; k < len(ref); k++ {
				if ref[k] {
					want = k
					break
				}
			}
			if got := b.next(q); got != want {
				t.Fatalf("next(%d) = %d, want %d", q, got, want)
			}
			wantW := -1
			for k := q &^ 63; k < len(ref); k++ {
				if ref[k] {
					wantW = k >> 6
					break
				}
			}
			if got := b.nextWord(q >> 6); got != wantW {
				t.Fatalf("nextWord(%d) = %d, want %d", q>>6, got, wantW)
			}
			a := rapid.IntRange(0, len(ref)-1).Draw(t, "a")
			z := rapid.IntRange(a, min(len(ref), a+300)).Draw(t, "z")
			all := true
			for k := a; k < z; k++ {
				all = all && ref[k]
			}
			if got := b.allSet(a, z); got != all {
				t.Fatalf("allSet(%d, %d) = %v, want %v", a, z, got, all)
			}
		}
	})
}

func TestAllocString(t *testing.T) {
	var a Alloc
	a = a.Add(0, 1).Add(1, 1).Add(2, 1).Add(7, 1).AddRun(9, 2, 1)
	if got := a.String(); got != "0-2 7 9-10" {
		t.Fatalf("%q", got)
	}
	// Adjacent spans with different processor counts still print as one range.
	b := Alloc{{First: 0, Count: 2, PEs: 4}, {First: 2, Count: 1, PEs: 1}}
	if got := b.String(); got != "0-2" || b.PEs() != 9 {
		t.Fatalf("%q %d", got, b.PEs())
	}
}

// TestFill: fill sets every element, whatever the length (the doubling
// copy's last step is partial).
func TestFill(t *testing.T) {
	for n := 0; n <= 200; n++ {
		s := make([]int32, n+2)
		fill(s[1:n+1], 7)
		for k, v := range s {
			if want := int32(7); (k == 0 || k == n+1) && v != 0 || k > 0 && k <= n && v != want {
				t.Fatalf("n %d: s[%d] = %d", n, k, v)
			}
		}
	}
}
