package model

import (
	"math"
	"testing"
	"unsafe"
)

// TestJobSize: the hot job is the fields every simulation reads plus two
// pointers (issue 19: 192 bytes per job before the split).
func TestJobSize(t *testing.T) {
	if n := unsafe.Sizeof(Job{}); n != 56 {
		t.Errorf("model.Job is %d bytes, want 56 (5 fields + 2 pointers)", n)
	}
}

// TestSharedUnknown: NewJob's jobs share the unknown values, read them as
// fields, and CheckShared sees a write through a job.
func TestSharedUnknown(t *testing.T) {
	a, b := NewJob(1, 0, 1, 1), NewJob(2, 0, 1, 1)
	if a.TraceFields != b.TraceFields || a.ModelFields != b.ModelFields {
		t.Fatal("NewJob's jobs do not share their unknown fields")
	}
	if a.User != Unknown || a.Status != Unknown || a.Site != Unknown || !math.IsNaN(a.Deadline) || !math.IsNaN(a.WindowEnd) {
		t.Errorf("unknown fields read %+v %+v", *a.TraceFields, *a.ModelFields)
	}
	if err := CheckShared(); err != nil {
		t.Fatal(err)
	}
	a.User = 7 // the mistake Job's comment warns about
	if b.User != 7 {
		t.Fatal("the write did not go to the shared value (test is wrong)")
	}
	if CheckShared() == nil {
		t.Error("CheckShared missed a write to the shared trace fields")
	}
	a.User = Unknown
	a.Site = 3
	if CheckShared() == nil {
		t.Error("CheckShared missed a write to the shared model fields")
	}
	a.Site = Unknown
	if err := CheckShared(); err != nil {
		t.Fatal(err)
	}

	// The documented way: attach a changed copy.
	m := *a.ModelFields
	m.Site = 3
	a.ModelFields = &m
	if a.Site != 3 || b.Site != Unknown || CheckShared() != nil {
		t.Errorf("attached copy: a.Site %d, b.Site %d, %v", a.Site, b.Site, CheckShared())
	}
}

func TestOwnCompact(t *testing.T) {
	j := NewJob(1, 0, 1, 1)
	j.Own()
	if j.TraceFields == &unknownTrace || j.ModelFields == &unknownModel {
		t.Fatal("Own kept a shared value")
	}
	j.Compact()
	if j.TraceFields != &unknownTrace || j.ModelFields != &unknownModel {
		t.Error("Compact did not share all-unknown values again")
	}
	j.Own()
	j.Queue, j.WindowStart = 2, 5
	j.Compact()
	if j.TraceFields == &unknownTrace || j.ModelFields == &unknownModel || j.Queue != 2 || j.WindowStart != 5 {
		t.Error("Compact dropped known fields")
	}
	if err := CheckShared(); err != nil {
		t.Fatal(err)
	}
}

func TestSharedTrace(t *testing.T) {
	var s Shared
	x := UnknownTraceFields
	x.ReqProcs, x.Status = 4, 1
	y := x
	p, q := s.Trace(x), s.Trace(y)
	if p != q || *p != x {
		t.Errorf("equal values not shared: %p %p", p, q)
	}
	y.User = 3
	if r := s.Trace(y); r == p || r.User != 3 || p.User != Unknown {
		t.Errorf("different values shared or changed: %+v %+v", *p, *r)
	}
	if n := testing.AllocsPerRun(100, func() { s.Trace(x) }); n != 0 {
		t.Errorf("a hit allocates (%g allocations)", n)
	}
}
