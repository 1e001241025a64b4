package engine

// PermuteSameTimeEnds makes e handle the completions that share an instant
// in the order permute chooses (for tests that check a policy's decisions
// do not depend on that order).
func PermuteSameTimeEnds(e *Engine, permute func(n int, swap func(i, j int))) {
	e.permuteEnds = permute
}
