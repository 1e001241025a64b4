package model

import (
	"fmt"
	"math"
)

// Unknown marks a numeric field whose value is not known (SWF's −1).
const Unknown = -1

// Job is one rigid job as a workload describes it. Times are in seconds.
//
// The fields every simulation reads are the job's own; the trace's
// pass-through fields (TraceFields) and the other models' fields
// (ModelFields) are behind two embedded pointers, so that a job whose
// source gives none of them costs 56 bytes instead of 192 (issue 19):
// NewJob points both at shared values with every field unknown. Read
// them as fields of the job (j.User, j.Site: promoted). The values behind
// the pointers are shared between jobs and immutable: never assign
// through them (j.Site = 3 would change every job that shares the
// value); build a new value and attach it:
//
//	m := *j.ModelFields
//	m.Site = 3
//	j.ModelFields = &m
//
// (or share equal values: Shared). engine.New checks that the shared
// unknown values are still unknown. A Job must come from NewJob (or have
// both pointers set): the zero Job has nil pointers.
type Job struct {
	ID       int64   // job number (SWF field 1)
	Submit   float64 // submit time (field 2)
	Runtime  float64 // actual runtime at speed 1 (field 4)
	Procs    int     // processors used: allocated (field 5), else requested (field 8)
	Estimate float64 // requested time (field 9); <= 0 means none given

	*TraceFields // fields carried through from the trace unchanged
	*ModelFields // fields used by the grid, reservation and cloud models
}

// TraceFields are the fields of a trace record that gridsched carries
// through unchanged (schedule.swf, workload statistics and conversions);
// Unknown when the source does not give them.
type TraceFields struct {
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
}

// ModelFields are the optional fields used by the grid, reservation and
// cloud models. The float fields are NaN when not given, the integers
// Unknown.
type ModelFields struct {
	Deadline      float64 // absolute deadline, NaN if none
	Site          int     // submission site, Unknown if none
	MigrationCost float64 // pure migration cost, NaN if none
	WindowStart   float64 // reservation window: earliest start, NaN if none
	WindowEnd     float64 // reservation window: latest end, NaN if none
	Level         int     // capability level a reservation demands, Unknown if none
}

// UnknownTraceFields and UnknownModelFields are the values with every
// field unknown.
var (
	UnknownTraceFields = TraceFields{
		TraceWait: Unknown, AvgCPU: Unknown, UsedMem: Unknown, ReqProcs: Unknown,
		ReqMem: Unknown, Status: Unknown, User: Unknown, Group: Unknown,
		Executable: Unknown, Queue: Unknown, Partition: Unknown, Preceding: Unknown,
		Think: Unknown,
	}
	UnknownModelFields = ModelFields{
		Deadline: math.NaN(), Site: Unknown, MigrationCost: math.NaN(),
		WindowStart: math.NaN(), WindowEnd: math.NaN(), Level: Unknown,
	}
)

// The values NewJob's jobs share (copies of the Unknown values, so that
// CheckShared can tell whether one was written through a job).
var (
	unknownTrace = UnknownTraceFields
	unknownModel = UnknownModelFields
)

// NewJob returns a job with every optional field set to "unknown" (the
// shared unknown TraceFields and ModelFields).
func NewJob(id int64, submit, runtime float64, procs int) Job {
	return Job{
		ID: id, Submit: submit, Runtime: runtime, Procs: procs, Estimate: Unknown,
		TraceFields: &unknownTrace, ModelFields: &unknownModel,
	}
}

// Own gives j copies of its TraceFields and ModelFields of its own, for a
// reader that fills them in place; Compact shares them again.
func (j *Job) Own() {
	t, m := *j.TraceFields, *j.ModelFields
	j.TraceFields, j.ModelFields = &t, &m
}

// Compact points j's TraceFields and ModelFields back at the shared
// unknown values when every field of them is unknown.
func (j *Job) Compact() {
	if *j.TraceFields == UnknownTraceFields {
		j.TraceFields = &unknownTrace
	}
	if m := j.ModelFields; math.IsNaN(m.Deadline) && math.IsNaN(m.MigrationCost) && math.IsNaN(m.WindowStart) && math.IsNaN(m.WindowEnd) && m.Site == Unknown && m.Level == Unknown {
		j.ModelFields = &unknownModel
	}
}

// CheckShared reports an error if a field of the unknown values NewJob's
// jobs share was assigned through a job (a programming error: see Job).
func CheckShared() error {
	if unknownTrace != UnknownTraceFields {
		return fmt.Errorf("model: the shared unknown TraceFields were changed through a job (%+v); attach a new value instead", unknownTrace)
	}
	if m := unknownModel; !(math.IsNaN(m.Deadline) && math.IsNaN(m.MigrationCost) && math.IsNaN(m.WindowStart) && math.IsNaN(m.WindowEnd) && m.Site == Unknown && m.Level == Unknown) {
		return fmt.Errorf("model: the shared unknown ModelFields were changed through a job (%+v); attach a new value instead", m)
	}
	return nil
}

// Shared hands out one pointer per distinct TraceFields value, so that
// jobs with equal pass-through fields (a generator's: status 1, requested
// processors = processors) share them. Not safe for concurrent use; the
// zero value is ready.
type Shared struct {
	m map[TraceFields]*TraceFields
}

// Trace returns the shared pointer for t.
func (s *Shared) Trace(t TraceFields) *TraceFields {
	if p, ok := s.m[t]; ok {
		return p
	}
	if s.m == nil {
		s.m = map[TraceFields]*TraceFields{}
	}
	p := new(TraceFields) // not &t: t would then be allocated on every call
	*p = t
	s.m[t] = p
	return p
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
