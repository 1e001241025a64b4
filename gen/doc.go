// Package gen holds the synthetic workload generators: Lublin–Feitelson
// 2003 (rigid parallel jobs), the computational-grid workload model of
// seed 004, and the workloads the other seed papers drive their
// experiments with (advance reservations, seed 000; gang jobs, seed 003).
//
// Every generator is registered by name with typed parameters that are
// decoded strictly (an unknown key is an error naming it) and validated
// (an out-of-range value is an error naming the parameter). Each random
// aspect of a model draws from its own stream, sim.Stream(seed,
// "model/aspect"), so changing one aspect's parameters does not change the
// draws of the others, and generation is deterministic per seed.
// Generators stream: they produce one job at a time.
package gen
