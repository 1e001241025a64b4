// Package all registers every built-in system: import it for its side
// effect (the command line, and tests that need every system, do).
// Adding a system: add its package here.
package all

import (
	_ "github.com/gridsched/gridsched/cloud"       // seed 003: the elastic cloud
	_ "github.com/gridsched/gridsched/external"    // schedulers in other processes (the decision protocol)
	_ "github.com/gridsched/gridsched/hgrid"       // seed 001: the hierarchical grid
	_ "github.com/gridsched/gridsched/reservation" // seed 000: advance reservations, resource failure
	_ "github.com/gridsched/gridsched/unstable"    // seed 002: unstable resources
)
