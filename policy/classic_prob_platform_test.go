package policy_test

import (
	"fmt"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
)

// TestProbabilisticHeadWiderThanUp: probabilistic backfilling with a
// queue head wider than the processors up. Node 2 of 3 is down over
// [0, 10]; job 1 runs on node 0 over [0, 8]; at 1 the head, job 2, needs
// all 3 processors and job 3 (1 processor) is a candidate. The bottleneck
// rows reach at most the processors up (2), and reading the head's
// column 3 panicked (index out of range; found by
// TestPropertyClassicPendPlatformEvents). The head cannot start before the
// platform changes whatever a candidate does: the chance is 0 and job 3
// starts at 1, as EASY backfills behind a head whose shadow time is +Inf.
func TestProbabilisticHeadWiderThanUp(t *testing.T) {
	for _, spec := range []string{"easy-probabilistic", "easy-probabilistic:consult=pyss", "easy-probabilistic:threshold=0"} {
		s, err := policy.ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		jobs := []model.Job{model.NewJob(1, 0, 8, 1), model.NewJob(2, 1, 5, 3), model.NewJob(3, 1, 5, 1)}
		e := engine.New(model.Uniform("u", 3, 1), jobs, policy.NewClassic(s, policy.FirstFit{}), engine.Options{})
		e.FailNode(0, 2, false)
		e.RepairNode(10, 2)
		if err := e.Run(); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		js := e.Jobs()
		got := fmt.Sprintf("job 2 [%v, %v], job 3 [%v, %v]", js[1].Start, js[1].End, js[2].Start, js[2].End)
		if want := "job 2 [10, 15], job 3 [1, 6]"; got != want {
			t.Errorf("%s: %s, want %s", spec, got, want)
		}
	}
}
