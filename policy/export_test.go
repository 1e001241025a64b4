package policy

// NewClassicListed is NewClassic keeping its waiting jobs in a list
// sorted at every pass, never in an index (for tests: the index must make
// the same decisions).
func NewClassicListed(s Spec, sel NodeSelector) *Classic {
	c := NewClassic(s, sel)
	c.idx, c.kt = nil, nil
	return c
}
