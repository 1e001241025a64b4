package workload

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/sim"
)

// Builtin generates the small built-in demonstration workload used when
// no trace is given: n rigid jobs for a machine of pes processors at an
// offered load of about load. Sizes: serial with probability 0.25, else
// 2^x with x ~ U(0, log2 pes), rounded to a power of two with probability
// 0.6; runtimes log-normal (median 600 s, σ = 1.5, 1 s to 36 h);
// estimates the runtime times U(1, 4), rounded up to a minute; arrivals
// Poisson with the mean inter-arrival time that gives the load. Each
// aspect has its own random stream (common random numbers).
//
// It is a stand-in with plausible shape, not a validated model; the
// workload models of the seed papers live in their own generators.
func Builtin(seed uint64, n, pes int, load float64) ([]model.Job, error) {
	if n <= 0 || pes <= 0 || !(load > 0) {
		return nil, fmt.Errorf("builtin workload: jobs, processors and load must be positive (got %d, %d, %g)", n, pes, load)
	}
	sizeR := sim.Stream(seed, "builtin/size")
	estR := sim.Stream(seed, "builtin/estimate")
	run := distuv.LogNormal{Mu: math.Log(600), Sigma: 1.5, Src: sim.Source(seed, "builtin/runtime")}
	hi := math.Log2(float64(pes))
	// Mean work per job, from the distributions above, sets the arrival rate.
	meanRun := math.Exp(run.Mu + run.Sigma*run.Sigma/2)
	meanPar := 1.0
	if hi > 0 {
		meanPar = (float64(pes) - 1) / (hi * math.Ln2)
	}
	meanSize := 0.25 + 0.75*meanPar
	arr := distuv.Exponential{Rate: float64(pes) * load / (meanRun * meanSize), Src: sim.Source(seed, "builtin/arrival")}
	jobs := make([]model.Job, n)
	var shared model.Shared // the trace fields: about 20 × log2(pes) distinct values
	t := 0.0
	for i := range jobs {
		procs := 1
		if sizeR.Float64() >= 0.25 {
			x := sizeR.Float64() * hi
			if sizeR.Float64() < 0.6 {
				x = math.Round(x)
			}
			procs = min(pes, max(1, int(math.Round(math.Exp2(x)))))
		}
		r := math.Round(min(max(run.Rand(), 1), 36*3600))
		j := model.NewJob(int64(i+1), math.Floor(t), r, procs)
		j.Estimate = math.Ceil(r*(1+3*estR.Float64())/60) * 60
		tf := model.UnknownTraceFields
		tf.ReqProcs, tf.Status, tf.User = procs, 1, 1+int(sizeR.Uint64N(20))
		j.TraceFields = shared.Trace(tf)
		jobs[i] = j
		t += arr.Rand()
	}
	return jobs, nil
}
