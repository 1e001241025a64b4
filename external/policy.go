package external

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/system"
)

// Version is the protocol version this gridsched speaks.
const Version = 1

// Options configure an external policy.
type Options struct {
	// Timeout is the wall time the scheduler has for each answer (and to
	// exit at the end); 0: no limit.
	Timeout time.Duration
	// Deadlock is the simulated time the machine may stay idle (no job
	// running) while a waiting job would fit on the free processors,
	// before the run ends with a deadlock error.
	Deadlock float64
	// Oracle sends each job's actual run time (run_time) with it.
	Oracle bool
	// Overrun is told to the scheduler in hello ("kill" or "extend").
	Overrun string
	// Workload names the workload in hello.
	Workload string
	// Version is gridsched's version, told in hello.
	Version string
}

// Policy is an engine policy whose decisions an external scheduler makes
// over the decision protocol (docs/protocol.md). It is consulted on
// settled instants, as the built-in fcfs and easy are; the scheduler's
// actions go through the engine's Plan, with the same checks as a
// built-in policy's, and an action the engine would refuse ends the run
// with an error naming the message, the action, the job and the rule.
type Policy struct {
	opts Options
	sel  policy.NodeSelector
	dial func() (Conn, error)
	c    Conn

	jobs    []*engine.Job // by protocol id (engine job index), once submitted
	firstQ  int           // no job below this id is queued
	ev      []byte        // events since the last decide, comma separated
	msg     []byte
	seq     int64
	recvd   int // messages received
	hist    history
	err     error
	idle    float64 // since when the machine has been idle with a job that fits (NaN: it is not)
	started bool

	// The scheduler's wake conditions (from its last decision) and what
	// has happened since.
	wake      *wake
	woken     bool // an event that always wakes (timer, node, requeue) is waiting
	submitted bool // a job arrived since the last decision
	sizes     waitingSizes
}

// wake is a decision's "wake" field: the next decision request comes at
// the first settled instant where one of the conditions holds (or an
// event that always wakes is waiting).
type wake struct {
	Free   *int64 `json:"free"`
	Submit bool   `json:"submit"`
	Fits   bool   `json:"fits"`
}

// waitingSizes counts the waiting jobs by processors, for the "fits"
// condition: does a waiting job fit on the free processors?
type waitingSizes struct {
	n   []int32 // jobs waiting, by processors
	min int     // no waiting job has fewer processors (may be stale low)
	all int
}

func (w *waitingSizes) add(procs, d int) {
	for procs >= len(w.n) {
		w.n = append(w.n, 0)
	}
	if w.all == 0 || procs < w.min {
		w.min = procs
	}
	w.n[procs] += int32(d)
	w.all += d
}

// fits reports whether some waiting job needs at most free processors.
func (w *waitingSizes) fits(free int) bool {
	if w.all == 0 {
		return false
	}
	for w.min < len(w.n) && w.n[w.min] == 0 {
		w.min++
	}
	return w.min <= free
}

// due reports whether the scheduler asked to be consulted now.
func (p *Policy) due(v *engine.View) bool {
	w := p.wake
	switch {
	case w == nil || p.woken:
		return true
	case w.Free != nil && int64(v.FreePEs()) >= *w.Free:
		return true
	case w.Submit && p.submitted:
		return true
	case w.Fits && p.sizes.fits(v.FreePEs()):
		return true
	}
	return false
}

var (
	_ engine.ConsultingPolicy = (*Policy)(nil)
	_ engine.FinishingPolicy  = (*Policy)(nil)
)

// New returns a policy that talks to the scheduler dial connects to
// (started at the first decision). sel places jobs started without an
// allocation (nil: first-fit).
func New(dial func() (Conn, error), sel policy.NodeSelector, o Options) *Policy {
	if sel == nil {
		sel = policy.FirstFit{}
	}
	if o.Overrun == "" {
		o.Overrun = "kill"
	}
	return &Policy{opts: o, sel: sel, dial: dial, idle: math.NaN()}
}

// Command returns a dial function that starts argv as a child process.
func Command(argv []string, timeout time.Duration, stderrFile string) func() (Conn, error) {
	return func() (Conn, error) {
		c, err := startChild(argv, timeout, stderrFile)
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}

// Consultation implements engine.ConsultingPolicy: the scheduler decides
// once every job ending at an instant has released its processors.
func (p *Policy) Consultation() engine.Consultation { return engine.SettledInstants }

// Notify records the event for the next decision request.
func (p *Policy) Notify(v *engine.View, n engine.Notice) {
	if p.err != nil {
		return
	}
	start := len(p.ev)
	b := p.ev
	if start > 0 {
		b = append(b, ',')
	}
	switch n.Kind {
	case engine.NoticeSubmitted:
		j := n.Job
		for int(j.Index) >= len(p.jobs) {
			p.jobs = append(p.jobs, nil)
		}
		p.jobs[j.Index] = j
		p.submitted = true
		p.sizes.add(j.Procs, 1)
		b = append(b, `{"type":"submit","job":{"id":`...)
		b = strconv.AppendInt(b, int64(j.Index), 10)
		b = append(b, `,"trace_id":`...)
		b = strconv.AppendInt(b, j.ID, 10)
		b = append(b, `,"submit":`...)
		b = appendNum(b, j.Submit)
		b = append(b, `,"processors":`...)
		b = strconv.AppendInt(b, int64(j.Procs), 10)
		b = append(b, `,"estimate":`...)
		b = appendNum(b, j.Est)
		b = append(b, `,"user":`...)
		b = strconv.AppendInt(b, int64(j.User), 10)
		b = append(b, `,"group":`...)
		b = strconv.AppendInt(b, int64(j.Group), 10)
		b = append(b, `,"queue":`...)
		b = strconv.AppendInt(b, int64(j.Queue), 10)
		b = append(b, `,"partition":`...)
		b = strconv.AppendInt(b, int64(j.Partition), 10)
		if p.opts.Oracle {
			b = append(b, `,"run_time":`...)
			b = appendNum(b, j.Runtime)
		}
		b = append(b, `}}`...)
	case engine.NoticeEnded:
		b = append(b, `{"type":"end","time":`...)
		b = appendNum(b, v.Now())
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, int64(n.Job.Index), 10)
		b = append(b, `,"state":"`...)
		b = append(b, n.Job.State.String()...)
		b = append(b, `","alloc":`...)
		b = appendAlloc(b, n.Job.Alloc)
		b = append(b, '}')
	case engine.NoticeRequeued:
		b = append(b, `{"type":"requeue","time":`...)
		b = appendNum(b, v.Now())
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, int64(n.Job.Index), 10)
		b = append(b, '}')
		p.firstQ = min(p.firstQ, int(n.Job.Index))
		p.sizes.add(n.Job.Procs, 1)
		p.woken = true
	case engine.NoticeEstimateExtended:
		b = append(b, `{"type":"extend","time":`...)
		b = appendNum(b, v.Now())
		b = append(b, `,"id":`...)
		b = strconv.AppendInt(b, int64(n.Job.Index), 10)
		b = append(b, `,"estimate":`...)
		b = appendNum(b, n.Job.Est)
		b = append(b, '}')
	case engine.NoticeNodeDown, engine.NoticeNodeUp:
		if n.Kind == engine.NoticeNodeDown {
			b = append(b, `{"type":"node_down","time":`...)
		} else {
			b = append(b, `{"type":"node_up","time":`...)
		}
		b = appendNum(b, v.Now())
		b = append(b, `,"node":`...)
		b = strconv.AppendInt(b, int64(n.Node), 10)
		b = append(b, `,"processors":`...)
		b = strconv.AppendInt(b, int64(v.Node(n.Node).PEs), 10)
		b = append(b, '}')
		p.woken = true
	case engine.NoticeTimer:
		b = append(b, `{"type":"timer","time":`...)
		b = appendNum(b, v.Now())
		b = append(b, `,"tag":`...)
		b = strconv.AppendInt(b, n.Tag, 10)
		b = append(b, '}')
		p.woken = true
	default:
		b = b[:start]
	}
	p.ev = b
}

// Schedule sends a decision request with the events since the last one
// and applies the scheduler's answer.
func (p *Policy) Schedule(v *engine.View, plan *engine.Plan) {
	if p.err == nil && !p.started {
		p.start(v)
	}
	if p.err != nil {
		plan.Fail(p.err)
		return
	}
	if !p.due(v) {
		return // the events wait for the decision the scheduler asked for
	}
	p.woken, p.submitted = false, false
	p.seq++
	b := append(p.msg[:0], `{"type":"decide","seq":`...)
	b = strconv.AppendInt(b, p.seq, 10)
	b = append(b, `,"now":`...)
	b = appendNum(b, v.Now())
	b = append(b, `,"free":`...)
	b = strconv.AppendInt(b, int64(v.FreePEs()), 10)
	b = append(b, `,"events":[`...)
	b = append(b, p.ev...)
	b = append(b, "]}\n"...)
	p.msg = b
	p.ev = p.ev[:0]
	if err := p.send(b); err != nil {
		p.fail(plan, err)
		return
	}
	line, err := p.recv()
	if err != nil {
		p.fail(plan, err)
		return
	}
	var d reply
	if err := d.parse(line); err != nil {
		p.fail(plan, p.msgErr(v, "", err))
		return
	}
	switch {
	case d.Type == "error":
		p.fail(plan, p.msgErr(v, "", fmt.Errorf("the scheduler gave up: %s", d.Message)))
		return
	case d.Type != "decision":
		p.fail(plan, p.msgErr(v, "", fmt.Errorf("want a decision, got a %q message", d.Type)))
		return
	case d.Seq == nil || *d.Seq != p.seq:
		got := "none"
		if d.Seq != nil {
			got = strconv.FormatInt(*d.Seq, 10)
		}
		p.fail(plan, p.msgErr(v, "", fmt.Errorf("the decision answers seq %s, not %d", got, p.seq)))
		return
	}
	for i := range d.Actions {
		if err := p.apply(v, plan, &d.Actions[i]); err != nil {
			p.fail(plan, p.msgErr(v, fmt.Sprintf("action %d %s: ", i+1, d.Actions[i].raw), err))
			return
		}
	}
	if w := d.Wake; w != nil && w.Free != nil && *w.Free < 0 {
		p.fail(plan, p.msgErr(v, "", fmt.Errorf("wake: free must be >= 0, got %d", *w.Free)))
		return
	}
	p.wake = d.Wake
	p.checkIdle(v, plan)
}

// start connects to the scheduler and exchanges hello messages.
func (p *Policy) start(v *engine.View) {
	p.started = true
	c, err := p.dial()
	if err != nil {
		p.err = &Error{Kind: KindStart, Err: err}
		return
	}
	p.c = c
	b := append(p.msg[:0], `{"type":"hello","protocol":`...)
	b = strconv.AppendInt(b, Version, 10)
	b = append(b, `,"gridsched":`...)
	b = strconv.AppendQuote(b, p.opts.Version)
	b = append(b, `,"time_unit":"s","platform":`...)
	b = appendPlatform(b, v)
	b = append(b, `,"workload":{"name":`...)
	b = appendString(b, p.opts.Workload)
	b = append(b, `,"jobs":`...)
	b = strconv.AppendInt(b, int64(v.NumJobs()), 10)
	b = append(b, `},"options":{"oracle":`...)
	b = strconv.AppendBool(b, p.opts.Oracle)
	b = append(b, `,"overrun":`...)
	b = strconv.AppendQuote(b, p.opts.Overrun)
	b = append(b, `,"consultation":"settled","deadlock":`...)
	b = appendNum(b, p.opts.Deadlock)
	b = append(b, "}}\n"...)
	p.msg = b
	if err := p.send(b); err != nil {
		p.err = p.wrap(KindCrash, err)
		return
	}
	line, err := p.recv()
	if err != nil {
		p.err = p.wrap(kindOf(err), err)
		return
	}
	var h reply
	if err := h.parse(line); err != nil {
		p.err = p.msgErr(v, "", err)
		return
	}
	switch {
	case h.Type == "error":
		p.err = p.msgErr(v, "", fmt.Errorf("the scheduler gave up: %s", h.Message))
	case h.Type != "hello":
		p.err = p.msgErr(v, "", fmt.Errorf("want hello first, got a %q message", h.Type))
	case h.Protocol == nil || *h.Protocol != Version:
		got := "none"
		if h.Protocol != nil {
			got = strconv.Itoa(*h.Protocol)
		}
		p.err = p.msgErr(v, "", fmt.Errorf("the scheduler speaks protocol %s; this gridsched speaks %d", got, Version))
	}
}

func (p *Policy) send(b []byte) error {
	p.hist.add('>', b)
	if err := p.c.Send(b); err != nil {
		return p.wrap(kindOf(err), err)
	}
	return nil
}

func (p *Policy) recv() ([]byte, error) {
	line, err := p.c.Recv()
	if err != nil {
		return nil, p.wrap(kindOf(err), err)
	}
	p.recvd++
	p.hist.add('<', line)
	return line, nil
}

func kindOf(err error) Kind {
	if errors.Is(err, errTimeout) {
		return KindTimeout
	}
	if strings.Contains(err.Error(), "longer than") {
		return KindProtocol
	}
	return KindCrash
}

// fail ends the run with err: the scheduler is stopped at once.
func (p *Policy) fail(plan *engine.Plan, err error) {
	if p.err == nil {
		var e *Error
		if !errors.As(err, &e) {
			err = p.wrap(KindProtocol, err)
		}
		p.err = err
	}
	plan.Fail(p.err)
}

// wrap makes err an *Error of kind with the conversation's end quoted.
func (p *Policy) wrap(kind Kind, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Kind: kind, Err: err, Scheduler: p.describe(), Last: p.hist.lines()}
}

// msgErr is an error about the last message received (its number, the
// decision it answers and the instant).
func (p *Policy) msgErr(v *engine.View, where string, err error) error {
	kind := KindProtocol
	var ae *actionError
	if errors.As(err, &ae) {
		kind = KindAction
	}
	if strings.HasPrefix(err.Error(), "the scheduler gave up") {
		kind = KindGaveUp
	}
	ctx := fmt.Sprintf("message %d from the scheduler", p.recvd)
	if p.seq > 0 {
		ctx += fmt.Sprintf(" (answer to decide %d at t=%s)", p.seq, strconv.FormatFloat(v.Now(), 'g', -1, 64))
	} else {
		ctx += " (answer to hello)"
	}
	return &Error{Kind: kind, Err: fmt.Errorf("%s: %s%w", ctx, where, err), Scheduler: p.describe(), Last: p.hist.lines()}
}

func (p *Policy) describe() string {
	if p.c == nil {
		return "the external scheduler"
	}
	return p.c.Describe()
}

// Finish implements engine.FinishingPolicy: on success the scheduler is
// told the run is over and given its timeout to exit; otherwise it is
// stopped at once. A run that ended with jobs waiting on an idle machine
// that would have fitted them is a deadlock.
func (p *Policy) Finish(v *engine.View, err error) error {
	if err == nil && p.err != nil {
		err = p.err
	}
	if err == nil {
		err = p.endDeadlock(v)
	}
	if p.c == nil {
		return err
	}
	if err == nil {
		b := append(p.msg[:0], `{"type":"end","now":`...)
		b = appendNum(b, v.Now())
		b = append(b, "}\n"...)
		p.hist.add('>', b)
		p.c.Send(b) // a scheduler that has already exited misses nothing
		p.c.Close(true)
		return nil
	}
	p.c.Close(false)
	var e *Error
	if errors.As(err, &e) && e.Stderr == "" {
		e.Stderr = p.c.Stderr()
	}
	return err
}

// Decisions is the number of decision requests sent so far.
func (p *Policy) Decisions() int64 { return p.seq }

// Close stops the scheduler if it is still running (for callers that
// drive the engine themselves and do not call Finish).
func (p *Policy) Close() {
	if p.c != nil {
		p.c.Close(false)
	}
}

// history keeps the last few messages exchanged, for error messages.
type history struct {
	msgs [6][]byte
	dirs [6]byte
	n    int
}

const histClip = 300

func (h *history) add(dir byte, b []byte) {
	i := h.n % len(h.msgs)
	b = bytes.TrimRight(b, "\n")
	m := h.msgs[i][:0]
	if len(b) > histClip {
		m = append(m, b[:histClip]...)
		m = append(m, fmt.Sprintf("… (%d bytes)", len(b))...)
	} else {
		m = append(m, b...)
	}
	h.msgs[i], h.dirs[i] = m, dir
	h.n++
}

func (h *history) lines() []string {
	var out []string
	for k := max(0, h.n-len(h.msgs)); k < h.n; k++ {
		i := k % len(h.msgs)
		out = append(out, string(h.dirs[i])+" "+string(h.msgs[i]))
	}
	return out
}

// Kind classifies an external scheduler's failure.
type Kind string

const (
	KindStart    Kind = "cannot start"
	KindCrash    Kind = "crashed"
	KindTimeout  Kind = "timeout"
	KindProtocol Kind = "protocol error"
	KindAction   Kind = "invalid action"
	KindDeadlock Kind = "deadlock"
	KindGaveUp   Kind = "gave up"
)

// Error is an external scheduler's failure: what happened, the last
// messages exchanged and the end of its standard error. It wraps
// system.ErrRunFailed (a sweep records the run as failed and goes on),
// and engine.ErrInvalidPlan for an invalid action.
type Error struct {
	Kind      Kind
	Err       error
	Scheduler string
	Last      []string
	Stderr    string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %v", e.Scheduler, e.Kind, e.Err)
	if len(e.Last) > 0 {
		b.WriteString("\nlast messages (> to the scheduler, < from it):")
		for _, l := range e.Last {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	if e.Stderr != "" {
		b.WriteString("\nthe scheduler's standard error ended with:")
		for _, l := range strings.Split(e.Stderr, "\n") {
			b.WriteString("\n  | ")
			b.WriteString(l)
		}
	}
	return b.String()
}

func (e *Error) Unwrap() []error {
	errs := []error{e.Err, system.ErrRunFailed}
	if e.Kind == KindAction {
		errs = append(errs, engine.ErrInvalidPlan)
	}
	return errs
}

// reply is a message from the scheduler.
type reply struct {
	Type     string   `json:"type"`
	Seq      *int64   `json:"seq"`
	Protocol *int     `json:"protocol"`
	Name     *string  `json:"name"`
	Message  string   `json:"message"`
	Actions  []action `json:"actions"`
	Wake     *wake    `json:"wake"`
}

// fields each message type may have.
var replyFields = map[string][]string{
	"hello":    {"type", "protocol", "name"},
	"decision": {"type", "seq", "actions", "wake"},
	"error":    {"type", "message"},
}

func (r *reply) parse(line []byte) error {
	if parseDecision(line, r) {
		return nil
	}
	*r = reply{}
	return r.parseGeneral(line)
}

// parseGeneral is parse with encoding/json: every message type, and the
// error messages.
func (r *reply) parseGeneral(line []byte) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return errors.New("an empty line (want one JSON object per line)")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		return fmt.Errorf("not a JSON object (%v): %q", jsonErr(err), clip(line, 120))
	}
	var typ string
	if t, ok := raw["type"]; !ok || json.Unmarshal(t, &typ) != nil {
		return fmt.Errorf("no \"type\" string: %q", clip(line, 120))
	}
	allowed, ok := replyFields[typ]
	if !ok {
		return fmt.Errorf("unknown message type %q (want hello, decision or error)", typ)
	}
	for k := range raw {
		if !contains(allowed, k) {
			return fmt.Errorf("a %s message has no field %q (fields: %s)", typ, k, strings.Join(allowed, ", "))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(r); err != nil {
		return fmt.Errorf("%s message: %v", typ, jsonErr(err))
	}
	if typ == "decision" {
		var acts []json.RawMessage
		if a, ok := raw["actions"]; ok {
			json.Unmarshal(a, &acts)
		}
		if _, ok := raw["actions"]; !ok {
			return errors.New(`a decision message needs "actions" (a list, maybe empty)`)
		}
		for i := range r.Actions {
			if i < len(acts) {
				r.Actions[i].raw = string(acts[i])
			}
		}
	}
	return nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// jsonErr makes encoding/json's errors read as the protocol's.
func jsonErr(err error) string {
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) {
		if ute.Field != "" {
			return fmt.Sprintf("field %q: want %s, got a JSON %s", ute.Field, jsonType(ute.Type.String()), ute.Value)
		}
		return fmt.Sprintf("want %s, got a JSON %s", jsonType(ute.Type.String()), ute.Value)
	}
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), "json: "), "external.")
}

func jsonType(t string) string {
	switch strings.TrimLeft(t, "*[]0123456789") {
	case "int", "int64":
		return "an integer"
	case "float64":
		return "a number"
	case "string":
		return "a string"
	}
	if strings.HasPrefix(t, "[]") {
		return "a list"
	}
	return "an object"
}

// action is one element of a decision's actions.
type action struct {
	Start   *int64    `json:"start"`
	Alloc   [][]int64 `json:"alloc"`
	Reject  *int64    `json:"reject"`
	Preempt *int64    `json:"preempt"`
	Kill    *int64    `json:"kill"`
	Timer   *float64  `json:"timer"`
	Tag     *int64    `json:"tag"`
	raw     string
}

// actionError is an action the engine refuses: the rule it breaks.
type actionError struct {
	job  string
	rule string
	msg  string
}

func (e *actionError) Error() string {
	if e.job != "" {
		return fmt.Sprintf("%s: %s (rule: %s)", e.job, e.msg, e.rule)
	}
	return fmt.Sprintf("%s (rule: %s)", e.msg, e.rule)
}

// The rules an action may break.
const (
	RuleMalformed   = "malformed action"
	RuleUnknownJob  = "unknown job"
	RuleNotWaiting  = "not waiting"
	RuleNotRunning  = "not running"
	RuleNotEnough   = "not enough free processors"
	RuleAllocation  = "invalid allocation"
	RuleTimeInPast  = "time in the past"
	RuleBadTimeWord = "invalid time"
)

func (p *Policy) job(id int64) (*engine.Job, error) {
	if id < 0 || id >= int64(len(p.jobs)) || p.jobs[id] == nil {
		return nil, &actionError{job: fmt.Sprintf("job %d", id), rule: RuleUnknownJob, msg: "no job with this id has been submitted"}
	}
	return p.jobs[id], nil
}

func jobName(j *engine.Job) string { return fmt.Sprintf("job %d (trace id %d)", j.Index, j.ID) }

// apply validates one action against the current state and applies it
// through the plan. Everything the plan would refuse is refused here
// first, with the rule named.
func (p *Policy) apply(v *engine.View, plan *engine.Plan, a *action) error {
	verbs := 0
	for _, set := range []bool{a.Start != nil, a.Reject != nil, a.Preempt != nil, a.Kill != nil, a.Timer != nil} {
		if set {
			verbs++
		}
	}
	if verbs != 1 {
		return &actionError{rule: RuleMalformed, msg: "an action has exactly one of start, reject, preempt, kill, timer"}
	}
	if a.Alloc != nil && a.Start == nil {
		return &actionError{rule: RuleMalformed, msg: "alloc belongs to a start action"}
	}
	if a.Tag != nil && a.Timer == nil {
		return &actionError{rule: RuleMalformed, msg: "tag belongs to a timer action"}
	}
	switch {
	case a.Start != nil:
		j, err := p.job(*a.Start)
		if err != nil {
			return err
		}
		if j.State != engine.Queued {
			return &actionError{job: jobName(j), rule: RuleNotWaiting, msg: fmt.Sprintf("it is %s, not waiting", j.State)}
		}
		if j.Procs > v.FreePEs() {
			return &actionError{job: jobName(j), rule: RuleNotEnough, msg: fmt.Sprintf("it needs %d processors, %d are free", j.Procs, v.FreePEs())}
		}
		var alloc engine.Alloc
		if a.Alloc == nil {
			var ok bool
			alloc, ok = p.sel.Select(v, j, v.AllocBuffer())
			if !ok {
				return &actionError{job: jobName(j), rule: RuleNotEnough, msg: fmt.Sprintf("node selection cannot place its %d processors on the %d free ones", j.Procs, v.FreePEs())}
			}
		} else {
			var err error
			if alloc, err = checkAlloc(v, j, a.Alloc); err != nil {
				return err
			}
		}
		if err := plan.Start(j, alloc); err != nil {
			return &actionError{job: jobName(j), rule: RuleAllocation, msg: err.Error()}
		}
		p.sizes.add(j.Procs, -1)
		if p.firstQ == int(j.Index) {
			p.firstQ++
		}
	case a.Reject != nil:
		j, err := p.job(*a.Reject)
		if err != nil {
			return err
		}
		if j.State != engine.Queued {
			return &actionError{job: jobName(j), rule: RuleNotWaiting, msg: fmt.Sprintf("it is %s, not waiting", j.State)}
		}
		if err := plan.Reject(j); err != nil {
			return &actionError{job: jobName(j), rule: RuleNotWaiting, msg: err.Error()}
		}
		p.sizes.add(j.Procs, -1)
	case a.Preempt != nil || a.Kill != nil:
		id, requeue := a.Kill, false
		if a.Preempt != nil {
			id, requeue = a.Preempt, true
		}
		j, err := p.job(*id)
		if err != nil {
			return err
		}
		if j.State != engine.Running {
			return &actionError{job: jobName(j), rule: RuleNotRunning, msg: fmt.Sprintf("it is %s, not running", j.State)}
		}
		if err := plan.Preempt(j, requeue); err != nil {
			return &actionError{job: jobName(j), rule: RuleNotRunning, msg: err.Error()}
		}
		if requeue {
			p.firstQ = min(p.firstQ, int(j.Index))
			p.sizes.add(j.Procs, 1)
		}
	case a.Timer != nil:
		t := *a.Timer
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return &actionError{rule: RuleBadTimeWord, msg: "timer: not a finite time"}
		}
		if t < v.Now() {
			return &actionError{rule: RuleTimeInPast, msg: fmt.Sprintf("timer at t=%s is before now (t=%s)", strconv.FormatFloat(t, 'g', -1, 64), strconv.FormatFloat(v.Now(), 'g', -1, 64))}
		}
		var tag int64
		if a.Tag != nil {
			tag = *a.Tag
		}
		if err := plan.Timer(t, tag); err != nil {
			return &actionError{rule: RuleTimeInPast, msg: err.Error()}
		}
	}
	return nil
}

// checkAlloc turns the spans of a start action into an allocation,
// checking what Plan.Start would refuse.
func checkAlloc(v *engine.View, j *engine.Job, spans [][]int64) (engine.Alloc, error) {
	bad := func(format string, args ...any) error {
		return &actionError{job: jobName(j), rule: RuleAllocation, msg: fmt.Sprintf(format, args...)}
	}
	a := v.AllocBuffer()
	total := int64(0)
	next := int64(0)
	for k, s := range spans {
		if len(s) != 3 {
			return nil, bad("span %d %v: a span is [first node, nodes, processors on each]", k+1, s)
		}
		first, count, pes := s[0], s[1], s[2]
		if first < next || count <= 0 || pes <= 0 || first+count > int64(v.NumNodes()) {
			return nil, bad("span %d [%d, %d, %d]: spans are [first node, nodes, processors on each], with nodes and processors > 0, nodes in range (0 to %d) and increasing", k+1, first, count, pes, v.NumNodes()-1)
		}
		for n := first; n < first+count; n++ {
			if !v.NodeUp(int(n)) {
				return nil, bad("node %d is down", n)
			}
			if int64(v.NodeFree(int(n))) < pes {
				if v.NodeFree(int(n)) == 0 {
					return nil, &actionError{job: jobName(j), rule: RuleNotEnough, msg: fmt.Sprintf("node %d has no free processor, the allocation takes %d", n, pes)}
				}
				return nil, &actionError{job: jobName(j), rule: RuleNotEnough, msg: fmt.Sprintf("node %d has %d free processors, the allocation takes %d", n, v.NodeFree(int(n)), pes)}
			}
		}
		total += count * pes
		next = first + count
		a = a.AddRun(int(first), int(count), int(pes))
	}
	if total != int64(j.Procs) {
		return nil, bad("the allocation has %d processors, the job needs %d", total, j.Procs)
	}
	return a, nil
}

// checkIdle ends the run when the machine has been idle for Deadlock
// simulated seconds while a waiting job would fit.
func (p *Policy) checkIdle(v *engine.View, plan *engine.Plan) {
	if len(v.Running()) > 0 || v.Queued() == 0 {
		p.idle = math.NaN()
		return
	}
	j := p.fitting(v)
	if j == nil {
		p.idle = math.NaN()
		return
	}
	if math.IsNaN(p.idle) {
		p.idle = v.Now()
	}
	if v.Now()-p.idle >= p.opts.Deadlock && p.opts.Deadlock > 0 {
		p.fail(plan, p.wrap(KindDeadlock, fmt.Errorf("no job has run since t=%s while %s (%d processors, waiting since t=%s) would fit on the %d free processors; the deadlock check allows %s simulated seconds",
			fmtT(p.idle), jobName(j), j.Procs, fmtT(j.Submit), v.FreePEs(), fmtT(p.opts.Deadlock))))
	}
}

// endDeadlock: a run that ends with a waiting job that fits the idle
// machine was left waiting by the scheduler forever.
func (p *Policy) endDeadlock(v *engine.View) error {
	if v.Queued() == 0 || len(v.Running()) > 0 {
		return nil
	}
	j := p.fitting(v)
	if j == nil {
		return nil
	}
	return p.wrap(KindDeadlock, fmt.Errorf("the run ended at t=%s with %d jobs waiting on an idle machine; %s (%d processors, waiting since t=%s) fits on the %d free processors but was never started",
		fmtT(v.Now()), v.Queued(), jobName(j), j.Procs, fmtT(j.Submit), v.FreePEs()))
}

// fitting returns the first waiting job that fits on the free
// processors, or nil.
func (p *Policy) fitting(v *engine.View) *engine.Job {
	for p.firstQ < len(p.jobs) && p.jobs[p.firstQ].State != engine.Queued {
		p.firstQ++
	}
	for i := p.firstQ; i < len(p.jobs); i++ {
		if j := p.jobs[i]; j != nil && j.State == engine.Queued && j.Procs <= v.FreePEs() {
			return j
		}
	}
	return nil
}

func fmtT(t float64) string { return strconv.FormatFloat(t, 'g', -1, 64) }

// appendNum writes a finite number as JSON: integers without a fraction
// or exponent, others in the shortest form that reads back exactly.
func appendNum(b []byte, x float64) []byte {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.AppendInt(b, int64(x), 10)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

func appendString(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// appendAlloc writes spans as [[first node, nodes, processors on each], …].
func appendAlloc(b []byte, a engine.Alloc) []byte {
	b = append(b, '[')
	for i, s := range a {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(s.First), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(s.Count), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(s.PEs), 10)
		b = append(b, ']')
	}
	return append(b, ']')
}

// appendPlatform writes the platform as runs of equal nodes.
func appendPlatform(b []byte, v *engine.View) []byte {
	n := v.NumNodes()
	b = append(b, `{"nodes":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `,"processors":`...)
	b = strconv.AppendInt(b, int64(v.AvailPEs()), 10)
	b = append(b, `,"groups":[`...)
	for i := 0; i < n; {
		k := i + 1
		for k < n && v.Node(k).PEs == v.Node(i).PEs && v.Node(k).Speed == v.Node(i).Speed {
			k++
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"first":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"count":`...)
		b = strconv.AppendInt(b, int64(k-i), 10)
		b = append(b, `,"processors":`...)
		b = strconv.AppendInt(b, int64(v.Node(i).PEs), 10)
		b = append(b, `,"speed":`...)
		b = appendNum(b, v.Node(i).Speed)
		b = append(b, '}')
		i = k
	}
	return append(b, "]}"...)
}
