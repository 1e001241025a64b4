// Package policy holds the single-cluster scheduling policies (FCFS, EASY
// backfilling, conservative backfilling), the parts they are built from
// (waiting queue, node selection, availability profile) and the registry
// that names them.
//
// A policy never changes the simulation itself: it reads an engine.View
// and acts through an engine.Plan, which the engine validates.
package policy
