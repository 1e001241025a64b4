package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Stream returns a random stream for one random aspect of a run (arrivals,
// failures, a policy's tie-breaks, ...). The stream is a PCG generator
// seeded from the run seed and the stable name, so the same (seed, name)
// always yields the same sequence, and different names yield independent
// sequences. Use one stream per aspect: this is what gives two policies run
// on one seed common random numbers.
func Stream(seed uint64, name string) *rand.Rand { return rand.New(Source(seed, name)) }

// Source is the PCG source behind Stream, for libraries that take a
// rand.Source (gonum's distuv distributions).
func Source(seed uint64, name string) *rand.PCG {
	h := fnv.New64a()
	h.Write([]byte(name))
	n := h.Sum64()
	return rand.NewPCG(splitmix(seed^0x9e3779b97f4a7c15), splitmix(n+seed))
}

// splitmix is the SplitMix64 finaliser; it spreads nearby seeds apart.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
