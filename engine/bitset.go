package engine

import "math/bits"

// bitset is a hierarchical bit set over node indices: level 0 has one bit
// per node, level k+1 one bit per non-zero word of level k. next(i) finds
// the first set bit at or after i in O(log₆₄ n) words, which keeps
// first-fit node selection cheap on platforms of 100,000 nodes.
type bitset struct {
	lv [][]uint64
}

func newBitset(n int) *bitset {
	b := &bitset{}
	for {
		words := (n + 63) / 64
		if words == 0 {
			words = 1
		}
		b.lv = append(b.lv, make([]uint64, words))
		if words == 1 {
			return b
		}
		n = words
	}
}

// grow makes room for n bits, keeping the set ones.
func (b *bitset) grow(n int) {
	if n <= len(b.lv[0])*64 {
		return
	}
	nb := newBitset(n)
	for i := b.next(0); i >= 0; i = b.next(i + 1) {
		nb.set(i)
	}
	*b = *nb
}

func (b *bitset) set(i int) { b.setFrom(0, i) }

func (b *bitset) clear(i int) { b.clearFrom(0, i) }

func (b *bitset) has(i int) bool { return b.lv[0][i>>6]&(1<<(uint(i)&63)) != 0 }

// next returns the smallest set index >= i, or -1.
func (b *bitset) next(i int) int { return b.nextAt(0, i) }

func (b *bitset) nextAt(l, i int) int {
	words := b.lv[l]
	w := i >> 6
	if w >= len(words) || i < 0 {
		return -1
	}
	if m := words[w] & (^uint64(0) << (uint(i) & 63)); m != 0 {
		return w<<6 + bits.TrailingZeros64(m)
	}
	if l+1 == len(b.lv) {
		for w++; w < len(words); w++ {
			if words[w] != 0 {
				return w<<6 + bits.TrailingZeros64(words[w])
			}
		}
		return -1
	}
	nw := b.nextAt(l+1, w+1)
	if nw < 0 {
		return -1
	}
	return nw<<6 + bits.TrailingZeros64(words[nw])
}

// clearMask clears the bits of mask in level-0 word w.
func (b *bitset) clearMask(w int, mask uint64) {
	b.lv[0][w] &^= mask
	if b.lv[0][w] == 0 && len(b.lv) > 1 {
		b.clearFrom(1, w)
	}
}

// setMask sets the bits of mask in level-0 word w.
func (b *bitset) setMask(w int, mask uint64) {
	was := b.lv[0][w]
	b.lv[0][w] = was | mask
	if was == 0 && mask != 0 && len(b.lv) > 1 {
		b.setFrom(1, w)
	}
}

func (b *bitset) clearFrom(l, i int) {
	for ; l < len(b.lv); l++ {
		w := i >> 6
		b.lv[l][w] &^= 1 << (uint(i) & 63)
		if b.lv[l][w] != 0 {
			return
		}
		i = w
	}
}

func (b *bitset) setFrom(l, i int) {
	for ; l < len(b.lv); l++ {
		w := i >> 6
		was := b.lv[l][w]
		b.lv[l][w] = was | 1<<(uint(i)&63)
		if was != 0 {
			return
		}
		i = w
	}
}

// word returns level-0 word w.
func (b *bitset) word(w int) uint64 { return b.lv[0][w] }

// nextWord returns the smallest level-0 word index >= w that is not zero,
// or -1.
func (b *bitset) nextWord(w int) int {
	if w >= len(b.lv[0]) || w < 0 {
		return -1
	}
	if len(b.lv) == 1 {
		for ; w < len(b.lv[0]); w++ {
			if b.lv[0][w] != 0 {
				return w
			}
		}
		return -1
	}
	return b.nextAt(1, w)
}

// rangeMask calls f(w, mask) for each level-0 word w that [lo, hi)
// touches, with the bits of that word inside the range.
func rangeMask(lo, hi int, f func(w int, mask uint64)) {
	for lo < hi {
		w := lo >> 6
		end := min(hi, (w+1)<<6)
		width := uint(end - lo)
		var m uint64
		if width == 64 {
			m = ^uint64(0)
		} else {
			m = (uint64(1)<<width - 1) << (uint(lo) & 63)
		}
		f(w, m)
		lo = end
	}
}

// clearRange clears bits [lo, hi).
func (b *bitset) clearRange(lo, hi int) { rangeMask(lo, hi, b.clearMask) }

// setRange sets bits [lo, hi).
func (b *bitset) setRange(lo, hi int) { rangeMask(lo, hi, b.setMask) }

// allSet reports whether every bit in [lo, hi) is set, a word at a time.
func (b *bitset) allSet(lo, hi int) bool {
	ok := true
	rangeMask(lo, hi, func(w int, m uint64) {
		if b.lv[0][w]&m != m {
			ok = false
		}
	})
	return ok
}
