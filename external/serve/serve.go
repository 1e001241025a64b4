// Package serve runs simulations on request over gridsched's standard
// input and output (gridsched serve): the client sends a run request, and
// when the run's policy is external the client is its scheduler, over the
// same lines (the decision protocol of package external); every run ends
// with a result message. One process serves many runs, and a trace is read
// once for all the runs that use it: the Python package's simulate() and
// its learning environment (episodes are windows of a trace) use it.
package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/external"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/output"
	"github.com/gridsched/gridsched/simulate"
	"github.com/gridsched/gridsched/system"
	"github.com/gridsched/gridsched/workload"
)

// Config is a run request's configuration: simulate's options, plus a
// window of the loaded workload.
type Config struct {
	Workload      string   `json:"workload"` // trace or workload file; "" = the built-in workload
	Jobs          int      `json:"jobs"`     // built-in workload: number of jobs (default 2000)
	Load          float64  `json:"load"`     // built-in workload: offered load (default 0.8)
	Window        *Window  `json:"window"`
	Platform      string   `json:"platform"` // platform YAML file
	Nodes         int      `json:"nodes"`
	Policy        string   `json:"policy"`    // default easy
	Scheduler     string   `json:"scheduler"` // policy external: this command instead of the client
	Seed          *uint64  `json:"seed"`      // default 1
	Overrun       string   `json:"overrun"`   // kill (default) or extend
	Estimates     string   `json:"estimates"` // requested (default), exact, gridsim
	Skip          int      `json:"skip"`
	First         int      `json:"first"`
	ArrivalScale  float64  `json:"arrival_scale"`
	MaxProcs      int      `json:"max_procs"`
	KeepCancelled bool     `json:"keep_cancelled"`
	ClampWide     bool     `json:"clamp_wide"`
	WholeNodes    bool     `json:"whole_nodes"`
	NodeSelect    string   `json:"node_select"`
	ModelParams   []string `json:"model_params"` // section.key=value, as --model-param
	Oracle        bool     `json:"oracle"`
	Deadlock      float64  `json:"deadlock"`
	Timeout       float64  `json:"timeout"`
	Out           string   `json:"out"` // write jobs.csv, summary.json, … here
}

// Window selects jobs Start … Start+Jobs−1 of the loaded workload (in
// arrival order, after the skip rules and the platform fit).
type Window struct {
	Start int `json:"start"`
	Jobs  int `json:"jobs"`
}

// request is a client's message between runs.
type request struct {
	Type   string          `json:"type"`
	Config json.RawMessage `json:"config"`
}

type loaded struct {
	w   *workload.Workload
	p   *model.Platform
	err error
}

// Server serves runs; its cache keeps every workload it has loaded.
type Server struct {
	rd    *bufio.Reader
	w     io.Writer
	cache map[string]*loaded
}

// New returns a server reading requests from r and answering on w.
func New(r io.Reader, w io.Writer) *Server {
	return &Server{rd: bufio.NewReaderSize(r, 64<<10), w: w, cache: map[string]*loaded{}}
}

// Serve answers requests until the input ends (nil) or cannot be read or
// written.
func (s *Server) Serve() error {
	in := external.NewStream(s.rd, s.w, "the client (gridsched serve)")
	for {
		line, err := in.Recv()
		if err != nil {
			return nil // end of input: done
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var req request
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			if err := s.send(map[string]any{"type": "result", "error": fmt.Sprintf("request: not a request (%v)", err)}); err != nil {
				return err
			}
			continue
		}
		var msg map[string]any
		switch req.Type {
		case "policies":
			msg = map[string]any{"type": "policies", "names": system.PolicyNames()}
		case "run":
			msg = s.run(req.Config, in)
		case "workload":
			msg = s.describe(req.Config, in)
		default:
			msg = map[string]any{"type": "result", "error": fmt.Sprintf("request: unknown type %q (want run, workload or policies)", req.Type)}
		}
		if err := s.send(msg); err != nil {
			return err
		}
	}
}

func (s *Server) send(msg map[string]any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = s.w.Write(append(b, '\n'))
	return err
}

// prepare decodes a request's configuration (strictly), checks it and
// loads its workload (cached).
func (s *Server) prepare(raw json.RawMessage, in external.Conn) (*Config, simulate.Config, *workload.Workload, *model.Platform, error) {
	var c Config
	if len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, simulate.Config{}, nil, nil, fmt.Errorf("config: %v", err)
		}
	}
	cfg, err := c.simulateConfig(in)
	if err != nil {
		return nil, cfg, nil, nil, err
	}
	w, p, err := s.load(&cfg, &c)
	return &c, cfg, w, p, err
}

// run runs one request and returns its result message.
func (s *Server) run(raw json.RawMessage, in external.Conn) map[string]any {
	fail := func(err error) map[string]any { return map[string]any{"type": "result", "error": err.Error()} }
	c, cfg, w, p, err := s.prepare(raw, in)
	if err != nil {
		return fail(err)
	}
	if c.Window != nil {
		if w, err = c.Window.apply(w); err != nil {
			return fail(err)
		}
	}
	res, err := simulate.RunLoaded(cfg, w, p)
	if err != nil {
		return fail(err)
	}
	var sum bytes.Buffer
	if err := output.WriteSummaryJSON(&sum, &res.Summary); err != nil {
		return fail(err)
	}
	msg := map[string]any{"type": "result", "summary": json.RawMessage(bytes.TrimSpace(sum.Bytes()))}
	if c.Out != "" {
		if err := res.WriteDir(c.Out); err != nil {
			return fail(err)
		}
		msg["out"] = c.Out
	}
	return msg
}

// describe loads a request's workload (kept for later runs) and tells
// its size: the jobs a window may select from, and the platform's
// processors.
func (s *Server) describe(raw json.RawMessage, in external.Conn) map[string]any {
	_, _, w, p, err := s.prepare(raw, in)
	if err != nil {
		return map[string]any{"type": "workload", "error": err.Error()}
	}
	msg := map[string]any{"type": "workload", "name": w.Name, "jobs": len(w.Jobs)}
	if p != nil {
		msg["processors"] = p.TotalPEs()
		msg["nodes"] = len(p.Nodes)
	}
	return msg
}

// simulateConfig checks a request's configuration and makes the run's.
func (c *Config) simulateConfig(in external.Conn) (simulate.Config, error) {
	cfg := simulate.Config{
		WorkloadPath: c.Workload, BuiltinJobs: c.Jobs, BuiltinLoad: c.Load,
		Policy: c.Policy, PlatformPath: c.Platform, Nodes: c.Nodes, Seed: 1,
		NodeSelect: c.NodeSelect, WholeNodes: c.WholeNodes,
		Rules:     workload.Rules{KeepCancelled: c.KeepCancelled, ClampWide: c.ClampWide},
		Transform: workload.Transform{Skip: c.Skip, First: c.First, Scale: c.ArrivalScale, MaxProcs: c.MaxProcs, Estimates: c.Estimates},
		Series:    c.Out != "",
	}
	if c.Seed != nil {
		cfg.Seed = *c.Seed
	}
	if cfg.Policy == "" {
		cfg.Policy = "easy"
	}
	for _, x := range []struct {
		name string
		bad  bool
	}{
		{"jobs", c.Jobs < 0}, {"load", c.Load < 0 || math.IsNaN(c.Load) || math.IsInf(c.Load, 0)},
		{"nodes", c.Nodes < 0}, {"deadlock", c.Deadlock < 0}, {"timeout", c.Timeout < 0},
	} {
		if x.bad {
			return cfg, fmt.Errorf("run config: %s: out of range", x.name)
		}
	}
	if err := cfg.Transform.Validate(); err != nil {
		return cfg, fmt.Errorf("run config: %w", err)
	}
	switch c.Overrun {
	case "", "kill":
	case "extend":
		cfg.Overrun = engine.OverrunExtend
	default:
		return cfg, fmt.Errorf("run config: overrun: want kill or extend, got %q", c.Overrun)
	}
	secs := map[string]any{}
	for _, kv := range c.ModelParams {
		if err := system.SetParam(secs, kv); err != nil {
			return cfg, err
		}
	}
	if cfg.Policy == external.Name {
		p := &external.Params{Command: c.Scheduler, Oracle: c.Oracle, Deadlock: c.Deadlock, Timeout: c.Timeout}
		if c.Scheduler == "" {
			p.Dial = func() (external.Conn, error) { return in, nil }
		}
		secs["external"] = p
	} else if c.Scheduler != "" || c.Oracle {
		return cfg, errors.New("run config: scheduler and oracle are for policy external")
	}
	if err := system.CheckPolicy(cfg.Policy, func(k string) bool { _, ok := secs[k]; return ok }); err != nil {
		return cfg, err
	}
	prep, err := system.Prepare(secs, nil)
	if err != nil {
		return cfg, err
	}
	cfg.Sections, cfg.Prepared = secs, prep
	return cfg, nil
}

// load reads the workload and decides the platform, once per distinct
// file and options (a built-in workload is made each time: it depends on
// the seed).
func (s *Server) load(cfg *simulate.Config, c *Config) (*workload.Workload, *model.Platform, error) {
	if cfg.WorkloadPath == "" {
		return simulate.Load(cfg)
	}
	_, loop := system.Loop(cfg.Policy)
	k, _ := json.Marshal([]any{cfg.WorkloadPath, cfg.Rules, cfg.Transform, cfg.PlatformPath, cfg.Nodes, cfg.WholeNodes, c.ModelParams, loop})
	key := string(k)
	if l, ok := s.cache[key]; ok {
		return l.w, l.p, l.err
	}
	w, p, err := simulate.Load(cfg)
	s.cache[key] = &loaded{w, p, err}
	return w, p, err
}

// apply cuts the window out of a loaded workload (the jobs are shared,
// not copied: runs never change them).
func (win *Window) apply(w *workload.Workload) (*workload.Workload, error) {
	if win.Start < 0 || win.Jobs < 1 || win.Start+win.Jobs > len(w.Jobs) {
		return nil, fmt.Errorf("run config: window {start: %d, jobs: %d}: the workload has %d jobs (want 0 <= start, 1 <= jobs, start + jobs <= %d)", win.Start, win.Jobs, len(w.Jobs), len(w.Jobs))
	}
	out := *w
	out.Jobs = w.Jobs[win.Start : win.Start+win.Jobs : win.Start+win.Jobs]
	out.Name = fmt.Sprintf("%s[%d:%d]", strings.TrimSpace(w.Name), win.Start, win.Start+win.Jobs)
	out.Skipped = map[string]int{}
	return &out, nil
}
