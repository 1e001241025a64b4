package policy

import "math"

// domMax keeps, per class of fitClass (row: the processor class, column:
// the duration class), the last earliest fit found for the class's
// corner, and answers for a class the largest of those of every class it
// dominates (no larger in either dimension): a two-dimensional Fenwick
// tree of maxima, O(log rows · log cols) per update and per question
// (issue 30). Values are stamped with a generation; a stale stamp reads
// as none, so a new generation drops every value without clearing.
type domMax struct {
	rows, cols int
	v          []float64
	gen        []uint64
}

// fits grows the tree to hold row r, dropping every value when it must
// (the values are bounds a search may start from, never needed).
func (d *domMax) fits(r int) {
	if r < d.rows {
		return
	}
	rows := max(d.rows, 64)
	for rows <= r {
		rows *= 2
	}
	d.rows, d.cols = rows, fitDC
	d.v = make([]float64, rows*d.cols)
	d.gen = make([]uint64, rows*d.cols)
}

// raise records x for the class at row r, column c.
func (d *domMax) raise(r, c int, x float64, gen uint64) {
	d.fits(r)
	for i := r + 1; i <= d.rows; i += i & -i {
		row := (i - 1) * d.cols
		for j := c + 1; j <= d.cols; j += j & -j {
			k := row + j - 1
			if d.gen[k] != gen {
				d.gen[k], d.v[k] = gen, x
			} else if x > d.v[k] {
				d.v[k] = x
			}
		}
	}
}

// most is the largest value recorded in generation gen for a class at row
// r or below and column c or below; -Inf if none.
func (d *domMax) most(r, c int, gen uint64) float64 {
	m := math.Inf(-1)
	r = min(r, d.rows-1)
	for i := r + 1; i > 0; i -= i & -i {
		row := (i - 1) * d.cols
		for j := c + 1; j > 0; j -= j & -j {
			if k := row + j - 1; d.gen[k] == gen && d.v[k] > m {
				m = d.v[k]
			}
		}
	}
	return m
}
