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

func (b *bitset) set(i int) {
	for l := range b.lv {
		w := i >> 6
		was := b.lv[l][w]
		b.lv[l][w] = was | 1<<(uint(i)&63)
		if was != 0 {
			return
		}
		i = w
	}
}

func (b *bitset) clear(i int) {
	for l := range b.lv {
		w := i >> 6
		b.lv[l][w] &^= 1 << (uint(i) & 63)
		if b.lv[l][w] != 0 {
			return
		}
		i = w
	}
}

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
