// Package sim is the deterministic discrete-event kernel of gridsched: virtual
// time, a totally ordered event queue and seeded random streams. It performs
// no I/O, never reads the wall clock and imports nothing else of gridsched.
//
// Determinism contract: events are ordered by (Time, Class, Seq). Seq is a
// counter the owner of the queue increments for every pushed event, so two
// events can never compare equal and the pop order is a pure function of
// the push order. Random numbers come only from streams derived from a run
// seed and a stable name (see Stream), so two policies simulated with the
// same seed see the same random draws for every aspect they share.
package sim

// Time is virtual time in seconds since the start of the simulation.
type Time = float64
