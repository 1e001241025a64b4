package model

import "math"

// Unknown marks a numeric field whose value is not known (SWF's −1).
const Unknown = -1

// Job is one rigid job as a workload describes it. Times are in seconds.
// Fields a source does not provide are Unknown (integers) or NaN for the
// optional float fields (Deadline, MigrationCost, WindowStart, WindowEnd).
type Job struct {
	ID       int64   // job number (SWF field 1)
	Submit   float64 // submit time (field 2)
	Runtime  float64 // actual runtime at speed 1 (field 4)
	Procs    int     // processors used: allocated (field 5), else requested (field 8)
	Estimate float64 // requested time (field 9); <= 0 means none given

	// Fields carried through from the trace unchanged.
	TraceWait  float64 // wait time in the log (field 3)
	AvgCPU     float64 // field 6
	UsedMem    float64 // field 7, KB per processor
	ReqProcs   int     // field 8
	ReqMem     float64 // field 10
	Status     int     // field 11: 1 completed, 0 failed, 5 cancelled, −1 unknown
	User       int     // field 12
	Group      int     // field 13
	Executable int     // field 14
	Queue      int     // field 15 (0 = interactive)
	Partition  int     // field 16
	Preceding  int64   // field 17
	Think      float64 // field 18

	// Optional fields used by the grid, reservation and cloud models.
	Deadline      float64 // absolute deadline, NaN if none
	Site          int     // submission site, Unknown if none
	MigrationCost float64 // pure migration cost, NaN if none
	WindowStart   float64 // reservation window: earliest start, NaN if none
	WindowEnd     float64 // reservation window: latest end, NaN if none
	Level         int     // capability level a reservation demands, Unknown if none
}

// NewJob returns a job with every optional field set to "unknown".
func NewJob(id int64, submit, runtime float64, procs int) Job {
	nan := math.NaN()
	return Job{
		ID: id, Submit: submit, Runtime: runtime, Procs: procs, Estimate: Unknown,
		TraceWait: Unknown, AvgCPU: Unknown, UsedMem: Unknown, ReqProcs: Unknown,
		ReqMem: Unknown, Status: Unknown, User: Unknown, Group: Unknown,
		Executable: Unknown, Queue: Unknown, Partition: Unknown, Preceding: Unknown,
		Think: Unknown, Deadline: nan, Site: Unknown, MigrationCost: nan,
		WindowStart: nan, WindowEnd: nan, Level: Unknown,
	}
}

// MinEstimate is the smallest estimate a scheduler sees, in seconds. A
// job with no requested time and runtime 0 would otherwise have a zero
// estimate, i.e. a reservation that occupies no time at all, which lets a
// conservative scheduler promise its processors to another job at the
// same instant.
const MinEstimate = 1.0

// SchedEstimate is the runtime estimate a scheduler sees: the requested
// time when the job has one, else the actual runtime (a "perfect"
// estimate, the usual convention for traces without requested times),
// and never less than MinEstimate when it would be zero.
func (j *Job) SchedEstimate() float64 {
	e := j.Runtime
	if j.Estimate > 0 {
		e = j.Estimate
	}
	if e <= 0 {
		return MinEstimate
	}
	return e
}
