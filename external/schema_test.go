package external_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/external"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/policytest"
)

// recorder keeps every line of a conversation: "> " sent, "< " received.
type recorder struct {
	external.Conn
	lines []string
}

func (r *recorder) Send(b []byte) error {
	r.lines = append(r.lines, "> "+strings.TrimRight(string(b), "\n"))
	return r.Conn.Send(b)
}

func (r *recorder) Recv() ([]byte, error) {
	b, err := r.Conn.Recv()
	if err == nil {
		r.lines = append(r.lines, "< "+string(b))
	}
	return b, err
}

// transcript runs jobs on p under the scheduler cmd and returns the
// conversation.
func transcript(t *testing.T, p *model.Platform, jobs []model.Job, cmd string, o external.Options) []string {
	t.Helper()
	argv, err := external.SplitCommand(cmd)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	dial := func() (external.Conn, error) {
		c, err := external.Command(argv, time.Minute, "")()
		rec.Conn = c
		return rec, err
	}
	if o.Deadlock == 0 {
		o.Deadlock = external.DefaultDeadlock
	}
	if _, err := policytest.Run(p, jobs, external.New(dial, nil, o), engine.OverrunKill); err != nil {
		t.Fatal(err)
	}
	return rec.lines
}

func compile(t *testing.T, ref string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(external.Schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("protocol.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("protocol.schema.json" + ref)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validate checks every line of a conversation against the schema of its
// direction.
func validate(t *testing.T, lines []string) {
	t.Helper()
	out, in := compile(t, "#/$defs/toScheduler"), compile(t, "#/$defs/toGridsched")
	for _, l := range lines {
		s := out
		if strings.HasPrefix(l, "< ") {
			s = in
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(l[2:]))
		if err != nil {
			t.Fatalf("not JSON: %s", l)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s\ndoes not match the schema: %v", l, err)
		}
	}
}

// TestTranscriptsMatchSchema: every message of real conversations (a
// workload with timers, requeues, estimates extended, node failures, an
// oracle) matches protocol.schema.json, and messages that break the
// protocol do not.
func TestTranscriptsMatchSchema(t *testing.T) {
	p, jobs := testCase(t, 60)
	lines := transcript(t, p, jobs, helperCommand(), external.Options{Oracle: true, Version: "test"})
	argv, _ := external.SplitCommand(helperCommand())
	rec := &recorder{}
	dial := func() (external.Conn, error) {
		c, err := external.Command(argv, time.Minute, "")()
		rec.Conn = c
		return rec, err
	}
	// Job 1 outlives its estimate; job 2 loses its node and is requeued.
	p2, jobs2 := docCase()
	jobs2[0].Estimate, jobs2[1].Runtime, jobs2[1].Estimate = 50, 300, 400
	pol := external.New(dial, nil, external.Options{Deadlock: external.DefaultDeadlock, Overrun: "extend"})
	_, err := policytest.Run(p2, jobs2, pol, engine.OverrunExtend, func(e *engine.Engine) {
		e.FailNode(120, 0, true)
		e.RepairNode(200, 0)
		e.Timer(170, 7)
	})
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, rec.lines...)
	for _, want := range []string{`"type":"submit"`, `"run_time":`, `"type":"end","time"`, `"type":"node_down"`, `"type":"node_up"`, `"type":"timer"`, `"type":"requeue"`, `"type":"extend"`, `{"type":"end","now"`} {
		if !strings.Contains(strings.Join(lines, "\n"), want) {
			t.Errorf("no %s in the conversations", want)
		}
	}
	validate(t, lines)
	in := compile(t, "#/$defs/toGridsched")
	for _, bad := range []string{
		`{"type":"decision","seq":1}`,
		`{"type":"decision","seq":1,"actions":[{"start":1,"reject":2}]}`,
		`{"type":"decision","seq":1,"actions":[{"start":-1}]}`,
		`{"type":"decision","seq":1,"actions":[{"start":1,"alloc":[[0,1]]}]}`,
		`{"type":"hello","protocol":2}`,
		`{"type":"decision","seq":1,"actions":[],"extra":true}`,
	} {
		v, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if in.Validate(v) == nil {
			t.Errorf("the schema accepts %s", bad)
		}
	}
}

// docCase is the worked example of docs/protocol.md: four
// single-processor nodes, EASY; job 2 backfills around job 1's
// reservation.
func docCase() (*model.Platform, []model.Job) {
	mk := func(id int64, submit, run float64, procs int, est float64) model.Job {
		j := model.NewJob(id, submit, run, procs)
		j.Estimate = est
		return j
	}
	return model.Uniform("4 nodes", 4, 1), []model.Job{
		mk(1, 0, 100, 2, 100), mk(2, 0, 50, 4, 60), mk(3, 10, 80, 2, 90), mk(4, 20, 30, 1, 200),
	}
}

// TestProtocolDocTranscript: the transcript in docs/protocol.md is the
// conversation of gridsched with python/examples/easy.py on docCase
// (GRIDSCHED_UPDATE_DOCS=1 rewrites it), and matches the schema.
func TestProtocolDocTranscript(t *testing.T) {
	p, jobs := docCase()
	lines := transcript(t, p, jobs, python(t, "easy.py"), external.Options{Version: "v1.0.0", Workload: "example"})
	validate(t, lines)
	got := "```\n" + strings.Join(lines, "\n") + "\n```\n"
	path := filepath.Join("..", "docs", "protocol.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- transcript: generated by TestProtocolDocTranscript -->\n", "<!-- transcript end -->"
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		t.Fatalf("%s has no transcript markers", path)
	}
	have := string(doc[i+len(begin) : j])
	if have == got {
		return
	}
	if os.Getenv("GRIDSCHED_UPDATE_DOCS") != "" {
		out := append(append(append([]byte{}, doc[:i+len(begin)]...), got...), doc[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the transcript in %s is not the conversation (GRIDSCHED_UPDATE_DOCS=1 rewrites it); the conversation:\n%s", path, got)
}

// TestProtocolDocNamesEveryRule: docs/protocol.md's table names every
// rule an action can break.
func TestProtocolDocNamesEveryRule(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{external.RuleMalformed, external.RuleUnknownJob, external.RuleNotWaiting, external.RuleNotRunning,
		external.RuleNotEnough, external.RuleAllocation, external.RuleTimeInPast, external.RuleBadTimeWord} {
		if !bytes.Contains(doc, []byte("| "+r+" |")) {
			t.Errorf("docs/protocol.md does not name the rule %q", r)
		}
	}
}
