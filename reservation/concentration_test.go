package reservation

import (
	"math"
	"testing"
)

// The concentration metrics are a sum over the preempted tasks: it must
// not depend on a map's iteration order (byte-identical outputs). Costs of
// very different magnitudes make a sum in another order differ in its
// last bits, so fifty evaluations would disagree under random order.
func TestConcentrationIsDeterministic(t *testing.T) {
	p := &Policy{victims: map[int32]*victim{}}
	for i := int32(0); i < 200; i++ {
		c := math.Pow(10, float64(i%17)-8) * (1 + float64(i)/7)
		p.victims[i] = &victim{n: HeavyVictim + int(i%3), cost: c}
		p.cost += c
	}
	first := map[string]float64{}
	p.concentration(first)
	for range 50 {
		m := map[string]float64{}
		p.concentration(m)
		for k, v := range first {
			if math.Float64bits(m[k]) != math.Float64bits(v) {
				t.Fatalf("%s: %v then %v: the sum depends on the iteration order", k, v, m[k])
			}
		}
	}
}
