package policy_test

import (
	"fmt"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// TestKineticCertificateAtCoarseClock: at a clock of 2^52 s (spacing 1
// s) the kinetic tournament's certificate for jobs 2 and 6, whose wfp3
// keys cross 4.85 s after 2^52, was 2^52 + 3 + 0.999 × 1.85, which rounds
// to 2^52 + 5: at 2^52 + 5, when job 5 ends, the match was not replayed
// and job 2 (key −5·∛4/2 = −3.97) started before job 6 (key −4), on
// nodes 0–3 where the sorted list puts it on 1–4 (found by
// TestPropertyClassicPendPlatformEvents's comparison with the list on the
// conservative attack's late clocks). A certificate is now rounded down.
func TestKineticCertificateAtCoarseClock(t *testing.T) {
	const T = 1 << 52
	var jobs []model.Job
	add := func(submit, run float64, procs int, est float64) {
		j := model.NewJob(int64(len(jobs)+1), submit, run, procs)
		j.Estimate = est
		jobs = append(jobs, j)
	}
	add(T, 1, 5, 1)
	add(T, 2, 4, 2)
	add(T, 1, 5, 1)
	add(T, 1, 2, 1)
	add(T, 2, 5, 2)
	add(T+1, 0, 1, -1)
	s, err := policy.ParseSpec("classic:order=wfp3,backfill=none")
	if err != nil {
		t.Fatal(err)
	}
	run := func(pol engine.Policy) []string {
		out, err := runClassicEvents(t, model.Uniform("u", 5, 1), jobs, nil, pol, engine.OverrunKill, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a := run(policy.NewClassic(s, policy.FirstFit{}))
	if got, want := a[1]+", "+a[5], fmt.Sprint(2, float64(T+5), float64(T+7), " completed 1-4, 6 ", float64(T+5), " ", float64(T+5), " completed 0"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if b := run(policy.NewClassicListed(s, policy.FirstFit{})); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("kinetic tournament %v\nsorted list %v", a, b)
	}
}
