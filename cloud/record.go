package cloud

import (
	"bufio"
	"io"
	"math"
	"strconv"

	"github.com/gridsched/gridsched/metrics"
	"github.com/gridsched/gridsched/output"
)

// Point is the state of the cloud after one scheduling instant (times in
// the model's hours).
type Point struct {
	Time                    float64
	Leased, Booting         int     // VMs leased (booting included), booting
	Busy, Idle              int     // VMs running a task; ready, leased and idle (not reserved)
	LeaseTime, Cost         float64 // so far: Σ lease time (VM·h), cost (billed as Params say)
	Dispatcher, QueuedTasks int     // jobs in the dispatcher, tasks in the VM queues
	QueuedJobs, Running     int     // jobs in the VM queues (or migrating), jobs running
	ALF                     float64 // formula (3)
	Starving, Migrations    int     // starving jobs waiting, migrations so far
	Paused                  bool    // demand control paused normal scheduling
}

// Recorder keeps one point per scheduling instant (the last one when
// several share a time).
type Recorder struct {
	Points []Point
}

// Record makes the run keep a time series (call before Run).
func (s *Sim) Record() *Recorder {
	s.rec = &Recorder{}
	return s.rec
}

// sample records the state after an instant: O(leased VMs).
func (s *Sim) sample() {
	r := s.rec
	p := Point{Time: s.now, Leased: len(s.pool), Booting: s.booting, Dispatcher: len(s.disp), Migrations: s.Migrations,
		QueuedJobs: s.nQueued, Running: s.nRunning, LeaseTime: s.relLease, Cost: s.relCost}
	for _, v := range s.pool {
		lt := s.now - v.LeasedAt
		p.LeaseTime += lt
		p.Cost += s.billed(lt)
		p.QueuedTasks += v.nq
		switch {
		case v.running != nil:
			p.Busy++
		case v.idle(s.now):
			p.Idle++
		}
	}
	if len(s.pool) > 0 {
		p.ALF = float64(p.QueuedTasks) / float64(len(s.pool))
	}
	if s.naive {
		for _, j := range s.starv {
			if j.state == jQueued || j.state == jDispatcher {
				p.Starving++
			}
		}
	} else {
		p.Starving = s.ix.starving
	}
	p.Paused = p.Starving > 0
	if n := len(r.Points); n > 0 && r.Points[n-1].Time == p.Time {
		r.Points[n-1] = p
		return
	}
	r.Points = append(r.Points, p)
}

// billed is the cost of a lease of length lt (billing granularity and
// price of the parameters).
func (s *Sim) billed(lt float64) float64 {
	if s.p.Billing > 0 {
		lt = math.Ceil(lt/s.p.Billing-1e-9) * s.p.Billing
	}
	return lt * s.p.Price
}

func appendF(b []byte, v float64) []byte {
	if math.IsNaN(v) {
		return b
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// SeriesColumns are the columns of the cloud series file.
var SeriesColumns = []string{"time", "leased_vms", "booting_vms", "busy_vms", "idle_vms", "lease_time", "cost",
	"dispatcher_jobs", "queued_jobs", "queued_tasks", "running_jobs", "alf", "starving_jobs", "migrations", "paused"}

// WriteSeries writes the cloud series as CSV (times in hours).
func (r *Recorder) WriteSeries(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for i, c := range SeriesColumns {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(c)
	}
	bw.WriteByte('\n')
	var b []byte
	for _, p := range r.Points {
		b = appendF(b[:0], p.Time)
		for _, v := range []int{p.Leased, p.Booting, p.Busy, p.Idle} {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = append(b, ',')
		b = appendF(b, p.LeaseTime)
		b = append(b, ',')
		b = appendF(b, p.Cost)
		for _, v := range []int{p.Dispatcher, p.QueuedJobs, p.QueuedTasks, p.Running} {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = append(b, ',')
		b = appendF(b, p.ALF)
		for _, v := range []int{p.Starving, p.Migrations} {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(v), 10)
		}
		if p.Paused {
			b = append(b, ",1\n"...)
		} else {
			b = append(b, ",0\n"...)
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteCommonSeries writes the series in the columns every run's
// series.csv has (output.WriteSeries): processors are VMs, available ones
// the leased VMs that have booted, queued jobs those in the dispatcher
// and the VM queues.
func (r *Recorder) WriteCommonSeries(w io.Writer) error {
	pts := make([]metrics.Point, len(r.Points))
	for i, p := range r.Points {
		pts[i] = metrics.Point{Time: p.Time, Busy: p.Busy, Avail: p.Leased - p.Booting, Queued: p.Dispatcher + p.QueuedJobs, Running: p.Running}
	}
	return output.WriteSeries(w, metrics.SeriesOf(pts))
}
