package external_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/external"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/policytest"
	"github.com/gridsched/gridsched/system"
	"github.com/gridsched/gridsched/workload"
)

func testCase(t *testing.T, n int) (*model.Platform, []model.Job) {
	t.Helper()
	jobs, err := workload.Builtin(3, n, 32, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	return model.Uniform("32 nodes", 32, 1), jobs
}

// runExternal runs jobs on p under the external scheduler cmd.
func runExternal(p *model.Platform, jobs []model.Job, cmd string) error {
	argv, err := external.SplitCommand(cmd)
	if err != nil {
		return err
	}
	_, err = policytest.Run(p, jobs, external.New(external.Command(argv, time.Minute, ""), nil, external.Options{Deadlock: external.DefaultDeadlock}), engine.OverrunKill)
	return err
}

func newPolicy(t *testing.T, cmd string, o external.Options) *external.Policy {
	t.Helper()
	argv, err := external.SplitCommand(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if o.Timeout == 0 {
		o.Timeout = 20 * time.Second
	}
	if o.Deadlock == 0 {
		o.Deadlock = external.DefaultDeadlock
	}
	return external.New(external.Command(argv, o.Timeout, ""), nil, o)
}

// children lists this process's child processes that still exist (in
// any state, zombies included).
func children() []string {
	me := strconv.Itoa(os.Getpid())
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 1 && f[1] == me {
			out = append(out, e.Name()+" ("+f[0]+")")
		}
	}
	return out
}

// noChildren fails t if a scheduler (or anything) this process started
// is still there: running or a zombie.
func noChildren(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return // no /proc: nothing to look at
	}
	if c := children(); len(c) > 0 {
		t.Fatalf("child processes left behind: %v", c)
	}
}

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// TestHelperSameAsFCFS: the protocol itself changes no decision: FCFS
// over it gives the built-in fcfs's schedule, job for job.
func TestHelperSameAsFCFS(t *testing.T) {
	p, jobs := testCase(t, 300)
	want, err := policytest.Run(p, jobs, policy.NewFCFS(policy.FirstFit{}), engine.OverrunKill)
	if err != nil {
		t.Fatal(err)
	}
	got, err := policytest.Run(p, jobs, newPolicy(t, helperCommand(), external.Options{}), engine.OverrunKill)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := policytest.Schedule(want), policytest.Schedule(got); a != b {
		t.Fatalf("schedules differ:\n%s", firstDiff(a, b))
	}
	noChildren(t)
}

func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range la {
		if i >= len(lb) || la[i] != lb[i] {
			other := ""
			if i < len(lb) {
				other = lb[i]
			}
			return "built-in: " + la[i] + "\nexternal: " + other
		}
	}
	return "(lengths differ)"
}

// TestFailures: every way a scheduler can fail ends the run with an
// error of its kind that names what went wrong and quotes the last
// messages; the engine's state stays valid and no process is left.
func TestFailures(t *testing.T) {
	cases := []struct {
		name    string
		modes   []string
		o       external.Options
		kind    external.Kind
		wants   []string
		invalid bool // an invalid action: wraps engine.ErrInvalidPlan
	}{
		{"crash", []string{"crash=5"}, external.Options{}, external.KindCrash,
			[]string{"exited with status 3", "crashing on purpose at decision 5", `> {"type":"decide","seq":5`}, false},
		{"invalid JSON", []string{"garbage=4"}, external.Options{}, external.KindProtocol,
			[]string{"message 5 from the scheduler (answer to decide 4", "not a JSON object", "this is not JSON"}, false},
		{"wrong seq", []string{`reply=3:{"type":"decision","seq":99,"actions":[]}`}, external.Options{}, external.KindProtocol,
			[]string{"answers seq 99, not 3"}, false},
		{"no actions", []string{`reply=2:{"type":"decision","seq":2}`}, external.Options{}, external.KindProtocol,
			[]string{`needs "actions"`}, false},
		{"unknown field", []string{`reply=2:{"type":"decision","seq":2,"actions":[],"why":1}`}, external.Options{}, external.KindProtocol,
			[]string{`no field "why"`}, false},
		{"not an object", []string{`reply=2:[1,2]`}, external.Options{}, external.KindProtocol,
			[]string{"not a JSON object"}, false},
		{"gives up", []string{`reply=2:{"type":"error","message":"out of ideas"}`}, external.Options{}, external.KindGaveUp,
			[]string{"the scheduler gave up: out of ideas"}, false},
		{"unknown job", []string{"act=1:unknown"}, external.Options{}, external.KindAction,
			[]string{"action 1 {\"start\":999999}", "job 999999: no job with this id has been submitted (rule: unknown job)"}, true},
		{"already running", []string{"act=3:running"}, external.Options{}, external.KindAction,
			[]string{"it is running, not waiting (rule: not waiting)"}, true},
		{"not enough processors", []string{"act=1:toobig"}, external.Options{}, external.KindAction,
			[]string{"needs 32 processors, 20 are free (rule: not enough free processors)"}, true},
		{"time in the past", []string{"act=2:past"}, external.Options{}, external.KindAction,
			[]string{"is before now", "(rule: time in the past)"}, true},
		{"preempt a waiting job", []string{"act=1:preempt-waiting"}, external.Options{}, external.KindAction,
			[]string{"it is queued, not running (rule: not running)"}, true},
		{"node out of range", []string{"act=1:bad-node"}, external.Options{}, external.KindAction,
			[]string{"(rule: invalid allocation)"}, true},
		{"two verbs", []string{"act=1:two-verbs"}, external.Options{}, external.KindAction,
			[]string{"exactly one of start, reject, preempt, kill, timer (rule: malformed action)"}, true},
		{"unknown action key", []string{"act=1:unknown-key"}, external.Options{}, external.KindProtocol,
			[]string{`unknown field "launch"`}, false},
		{"protocol version", []string{"hello=2"}, external.Options{}, external.KindProtocol,
			[]string{"the scheduler speaks protocol 2; this gridsched speaks 1", "(answer to hello)"}, false},
		{"timeout", []string{"sleep=3"}, external.Options{Timeout: 300 * time.Millisecond}, external.KindTimeout,
			[]string{"no answer within 300ms"}, false},
		{"deadlock at the end", []string{"idle"}, external.Options{}, external.KindDeadlock,
			[]string{"jobs waiting on an idle machine", "was never started"}, false},
		{"deadlock by timers", []string{"timers"}, external.Options{Deadlock: 3600}, external.KindDeadlock,
			[]string{"no job has run since t=", "the deadlock check allows 3600 simulated seconds"}, false},
	}
	p, jobs := testCase(t, 200)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := policytest.Run(p, jobs, newPolicy(t, helperCommand(c.modes...), c.o), engine.OverrunKill)
			if err == nil {
				t.Fatal("the run succeeded")
			}
			var xe *external.Error
			if !errors.As(err, &xe) || xe.Kind != c.kind {
				t.Fatalf("want a %q error, got %v", c.kind, err)
			}
			msg := err.Error()
			for _, w := range c.wants {
				if !strings.Contains(msg, w) {
					t.Errorf("the error does not say %q:\n%s", w, msg)
				}
			}
			if !strings.Contains(msg, "last messages (> to the scheduler, < from it)") {
				t.Errorf("the error quotes no messages:\n%s", msg)
			}
			if !errors.Is(err, system.ErrRunFailed) {
				t.Error("the error does not wrap system.ErrRunFailed (a sweep would stop)")
			}
			if errors.Is(err, engine.ErrInvalidPlan) != c.invalid {
				t.Errorf("wraps engine.ErrInvalidPlan: %v, want %v", !c.invalid, c.invalid)
			}
			if err := policytest.CheckState(e); err != nil {
				t.Errorf("engine state after the failure: %v", err)
			}
			noChildren(t)
		})
	}
}

// TestKillAtRandomPoints: a scheduler killed at a random decision,
// before reading it or halfway through its answer, or from outside at a
// random moment, ends the run with a clear error, a valid engine state
// and no process left behind.
func TestKillAtRandomPoints(t *testing.T) {
	p, jobs := testCase(t, 400)
	r := rand.New(rand.NewPCG(31, 1))
	for i := 0; i < 16; i++ {
		k := 1 + r.IntN(300)
		phase := []string{"read", "write"}[r.IntN(2)]
		e, err := policytest.Run(p, jobs, newPolicy(t, helperCommand(fmt.Sprintf("die=%d:%s", k, phase)), external.Options{}), engine.OverrunKill)
		var xe *external.Error
		if !errors.As(err, &xe) || xe.Kind != external.KindCrash || !strings.Contains(err.Error(), "killed by signal 9") {
			t.Fatalf("killed at decision %d (%s): want a crash by signal 9, got %v", k, phase, err)
		}
		if err := policytest.CheckState(e); err != nil {
			t.Fatalf("killed at decision %d (%s): engine state: %v", k, phase, err)
		}
		noChildren(t)
	}
	// From outside, at a random moment of a longer run.
	p, jobs = testCase(t, 3000)
	dir := t.TempDir()
	for i := 0; i < 6; i++ {
		pidfile := filepath.Join(dir, fmt.Sprintf("pid%d", i))
		wait := time.Duration(r.IntN(200)) * time.Millisecond
		done := make(chan struct{})
		go func() {
			defer close(done)
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				if b, err := os.ReadFile(pidfile); err == nil && len(b) > 0 {
					pid, _ := strconv.Atoi(string(b))
					time.Sleep(wait)
					syscall.Kill(pid, syscall.SIGKILL)
					return
				}
				time.Sleep(time.Millisecond)
			}
		}()
		e, err := policytest.Run(p, jobs, newPolicy(t, helperCommand("pidfile="+pidfile), external.Options{}), engine.OverrunKill)
		<-done
		if err == nil {
			continue // the run finished before the kill: nothing to see
		}
		if !strings.Contains(err.Error(), "killed by signal 9") {
			t.Fatalf("killed after %v: %v", wait, err)
		}
		if err := policytest.CheckState(e); err != nil {
			t.Fatalf("killed after %v: engine state: %v", wait, err)
		}
		noChildren(t)
	}
}

// TestProcessGroupKilled: what the scheduler started itself goes with it,
// after a failure and after a normal end.
func TestProcessGroupKilled(t *testing.T) {
	p, jobs := testCase(t, 100)
	for _, mode := range []string{"crash=3", "fcfs"} {
		path := filepath.Join(t.TempDir(), "grandchild")
		_, err := policytest.Run(p, jobs, newPolicy(t, helperCommand("grandchild="+path, mode), external.Options{}), engine.OverrunKill)
		if (err == nil) != (mode == "fcfs") {
			t.Fatalf("%s: %v", mode, err)
		}
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		pid, _ := strconv.Atoi(string(b))
		deadline := time.Now().Add(5 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("%s: the scheduler's own child (pid %d) outlived the run", mode, pid)
		}
		noChildren(t)
	}
}

// TestCannotStart: a command that does not exist is a clear error.
func TestCannotStart(t *testing.T) {
	p, jobs := testCase(t, 10)
	_, err := policytest.Run(p, jobs, newPolicy(t, "no-such-scheduler-gridsched --flag", external.Options{}), engine.OverrunKill)
	if err == nil || !strings.Contains(err.Error(), "cannot start scheduler no-such-scheduler-gridsched --flag") || !errors.Is(err, system.ErrRunFailed) {
		t.Fatalf("got %v", err)
	}
}

func TestSplitCommand(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{"python3 python/examples/easy.py", []string{"python3", "python/examples/easy.py"}, ""},
		{`  a   b	c  `, []string{"a", "b", "c"}, ""},
		{`sched --name 'two words' "and \"more\"" x\ y`, []string{"sched", "--name", "two words", `and "more"`, "x y"}, ""},
		{`a 'it''s' "x"y ''`, []string{"a", "its", "xy", ""}, ""},
		{`run $(touch pwned) ; rm -rf / | cat > out && $HOME ~ *`, []string{"run", "$(touch", "pwned)", ";", "rm", "-rf", "/", "|", "cat", ">", "out", "&&", "$HOME", "~", "*"}, ""},
		{"`id`", []string{"`id`"}, ""},
		{`"a\b"`, []string{`a\b`}, ""},
		{"", nil, "empty"},
		{"   ", nil, "empty"},
		{`a 'b`, nil, "unclosed single quote"},
		{`a "b`, nil, "unclosed double quote"},
		{`a b\`, nil, "ends with a backslash"},
	} {
		got, err := external.SplitCommand(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: want an error with %q, got %q, %v", c.in, c.err, got, err)
			}
			continue
		}
		if err != nil || strings.Join(got, "\x00") != strings.Join(c.want, "\x00") || len(got) != len(c.want) {
			t.Errorf("%q: got %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
