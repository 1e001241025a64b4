package engine

import "strconv"

// Span is a run of Count consecutive nodes starting at node First, each
// giving PEs processors to one job.
type Span struct {
	First, Count, PEs int32
}

// Alloc is the set of processors a job runs on, as spans in increasing
// node order.
type Alloc []Span

// PEs is the number of processors in the allocation.
func (a Alloc) PEs() int {
	n := 0
	for _, s := range a {
		n += int(s.Count) * int(s.PEs)
	}
	return n
}

// Add appends count processors on node to the allocation, merging with the
// last span when the node follows it with the same processor count.
func (a Alloc) Add(node, pes int) Alloc {
	if n := len(a); n > 0 {
		l := &a[n-1]
		if int(l.First+l.Count) == node && int(l.PEs) == pes {
			l.Count++
			return a
		}
	}
	return append(a, Span{First: int32(node), Count: 1, PEs: int32(pes)})
}

// AddRun appends count consecutive nodes from first, pes processors each.
func (a Alloc) AddRun(first, count, pes int) Alloc {
	if n := len(a); n > 0 {
		l := &a[n-1]
		if int(l.First+l.Count) == first && int(l.PEs) == pes {
			l.Count += int32(count)
			return a
		}
	}
	return append(a, Span{First: int32(first), Count: int32(count), PEs: int32(pes)})
}

// String formats the nodes of the allocation as Batsim does for
// allocated_resources: space-separated node indices and inclusive ranges,
// e.g. "0-3 7 9-10".
func (a Alloc) String() string { return string(a.Append(make([]byte, 0, 8*len(a)))) }

// Append appends the String form of the allocation to b.
func (a Alloc) Append(b []byte) []byte {
	n0 := len(b)
	last := int32(-2)
	start := int32(-2)
	flush := func() {
		if start < 0 {
			return
		}
		if len(b) > n0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(start), 10)
		if last > start {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(last), 10)
		}
	}
	for _, s := range a {
		if s.First == last+1 && start >= 0 {
			last = s.First + s.Count - 1
			continue
		}
		flush()
		start, last = s.First, s.First+s.Count-1
	}
	flush()
	return b
}
