package sim

import (
	"container/heap"
	"math/rand/v2"
	"sort"
	"testing"

	"pgregory.net/rapid"
)

// TestQueueOrder checks that Pop returns events in (Time, Class, Seq)
// order for arbitrary push sequences, including ties on time and class.
func TestQueueOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var q Queue
		n := rapid.IntRange(0, 300).Draw(t, "n")
		var want []Event
		for i := 0; i < n; i++ {
			e := Event{
				Time:  float64(rapid.IntRange(0, 20).Draw(t, "time")),
				Class: Class(rapid.IntRange(0, 3).Draw(t, "class")),
				Ref:   int32(i),
			}
			e.Seq = q.Push(e)
			want = append(want, e)
			// Interleave some pops to exercise the heap in every shape.
			if rapid.Bool().Draw(t, "pop") && q.Len() > 0 {
				got := q.Pop()
				sort.SliceStable(want, func(a, b int) bool { return want[a].Before(&want[b]) })
				if got != want[0] {
					t.Fatalf("pop = %+v, want %+v", got, want[0])
				}
				want = want[1:]
			}
		}
		sort.SliceStable(want, func(a, b int) bool { return want[a].Before(&want[b]) })
		for i := range want {
			got := q.Pop()
			if got != want[i] {
				t.Fatalf("pop %d = %+v, want %+v", i, got, want[i])
			}
		}
		if q.Len() != 0 {
			t.Fatalf("queue not empty")
		}
	})
}

func TestStreamDeterministicAndDistinct(t *testing.T) {
	a, b := Stream(42, "arrivals"), Stream(42, "arrivals")
	c := Stream(42, "failures")
	d := Stream(43, "arrivals")
	same, diffName, diffSeed := true, 0, 0
	for i := 0; i < 100; i++ {
		x, y, z, w := a.Uint64(), b.Uint64(), c.Uint64(), d.Uint64()
		same = same && x == y
		if x != z {
			diffName++
		}
		if x != w {
			diffSeed++
		}
	}
	if !same {
		t.Error("same seed and name gave different sequences")
	}
	if diffName < 99 || diffSeed < 99 {
		t.Errorf("streams not independent: %d/100 differ by name, %d/100 by seed", diffName, diffSeed)
	}
}

type stdHeap []Event

func (h stdHeap) Len() int           { return len(h) }
func (h stdHeap) Less(i, j int) bool { return h[i].Before(&h[j]) }
func (h stdHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *stdHeap) Push(x any)        { *h = append(*h, x.(Event)) }
func (h *stdHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// BenchmarkQueue compares the 4-ary heap with container/heap on a
// hold model: a queue of 10,000 events, each pop followed by a push.
func BenchmarkQueue(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	b.Run("4ary", func(b *testing.B) {
		var q Queue
		for i := 0; i < 10000; i++ {
			q.Push(Event{Time: r.Float64() * 1000})
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			e := q.Pop()
			e.Time += r.Float64() * 1000
			q.Push(e)
		}
	})
	b.Run("container-heap", func(b *testing.B) {
		h := &stdHeap{}
		var seq uint64
		for i := 0; i < 10000; i++ {
			seq++
			heap.Push(h, Event{Time: r.Float64() * 1000, Seq: seq})
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			e := heap.Pop(h).(Event)
			e.Time += r.Float64() * 1000
			seq++
			e.Seq = seq
			heap.Push(h, e)
		}
	})
}
