package gen

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/gridsched/gridsched/internal/yamlx"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/workload"
)

// MaxJobs is the most jobs a model's parameters may ask to be made at
// once (a reservations workload's requests, its background): beyond it
// a generator would exhaust memory. The command line's --max-jobs sets
// it, with experiment.MaxJobs.
var MaxJobs = 10_000_000

// Generator produces jobs one at a time, in submit order.
type Generator interface {
	Next() model.Job
}

// Model is a registered workload model.
type Model struct {
	Name        string
	Description string
	// params returns a pointer to the model's parameter struct filled
	// with its defaults.
	params func() any
	build  func(params any, seed uint64) (Generator, error)
}

var models = map[string]*Model{}

func register(m *Model) {
	if _, dup := models[m.Name]; dup {
		panic("gen: duplicate model " + m.Name)
	}
	models[m.Name] = m
}

// Names lists the registered models.
func Names() []string {
	var ns []string
	for n := range models {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Lookup returns the model registered under name.
func Lookup(name string) (*Model, error) {
	m, ok := models[name]
	if !ok {
		return nil, fmt.Errorf("unknown workload model %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	return m, nil
}

// Params decodes the model's parameters: its defaults, then the YAML
// document doc (file name source, for messages; may be empty), then each
// override "key=value" ("a.b=value" for a nested key). Unknown keys and
// wrong types are errors that name the key and position.
func (m *Model) Params(source string, doc []byte, overrides []string) (any, error) {
	p := m.params()
	if err := yamlx.DecodeStrict(source, doc, p); err != nil {
		return nil, err
	}
	for _, o := range overrides {
		if err := yamlx.SetOverride(p, o); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Locate places an error of New about a parameter of the document doc
// ("key: …") at the key's value, "source:line:column: key: …"; an error
// about a parameter doc does not set (an override's) is returned as it
// is.
func (m *Model) Locate(source string, doc []byte, err error) error {
	if err == nil || len(doc) == 0 {
		return err
	}
	sc := yamlx.Check(source, doc, m.params())
	located := sc.Locate("", errors.New(strings.TrimPrefix(err.Error(), m.Name+": ")))
	var is *yamlx.Issue
	if errors.As(located, &is) && is.Path != "" {
		return located
	}
	return err
}

// DefaultsYAML is the model's default parameters as one-line YAML.
func (m *Model) DefaultsYAML() (string, error) {
	return yamlx.Flow(m.params())
}

// Stream calls emit with the next n jobs of g (fewer if g runs out),
// without holding them: a million jobs take constant memory.
func Stream(g Generator, n int, emit func(*model.Job) error) error {
	for i := 0; i < n; i++ {
		j, ok := next(g)
		if !ok {
			return nil
		}
		if err := emit(&j); err != nil {
			return err
		}
	}
	return nil
}

// New builds a generator from decoded parameters (see Params).
func (m *Model) New(params any, seed uint64) (Generator, error) {
	g, err := m.build(params, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Name, err)
	}
	return g, nil
}

// Generate returns n jobs of the model with default parameters changed by
// doc and overrides.
func Generate(name string, doc []byte, overrides []string, n int, seed uint64) ([]model.Job, error) {
	m, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	p, err := m.Params("parameters", doc, overrides)
	if err != nil {
		return nil, err
	}
	g, err := m.New(p, seed)
	if err != nil {
		return nil, err
	}
	return Take(g, n), nil
}

// Take returns the next n jobs of g. A finite model is asked for "all"
// with a huge n: the slice then grows as jobs come (reserving room for a
// million jobs up front cleared 190 MB per run of a trace-derived
// workload of a few thousand jobs).
func Take(g Generator, n int) []model.Job {
	out := make([]model.Job, 0, min(n, 1<<12))
	for i := 0; i < n; i++ {
		j, ok := next(g)
		if !ok {
			break
		}
		out = append(out, j)
	}
	return out
}

// finite is a generator that can run out (trace-derived workloads).
type finite interface {
	Generator
	Done() bool
}

func next(g Generator) (model.Job, bool) {
	if f, ok := g.(finite); ok && f.Done() {
		return model.Job{}, false
	}
	return g.Next(), true
}

// sliceGen replays jobs.
type sliceGen struct {
	jobs []model.Job
	i    int
}

func (s *sliceGen) Next() model.Job { s.i++; return s.jobs[s.i-1] }
func (s *sliceGen) Done() bool      { return s.i >= len(s.jobs) }

// traceResGen is the trace-reservations generator: its jobs and the
// cluster they were made for.
type traceResGen struct {
	sliceGen
	plat *model.Platform
}

// Platformer is a generator whose jobs are made for a given platform
// (used when the experiment names none).
type Platformer interface {
	Platform() *model.Platform
}

// Platform is the cluster the jobs were converted for.
func (g *traceResGen) Platform() *model.Platform { return g.plat }

// Nodes is the cluster's node count.
func (g *traceResGen) Nodes() int { return len(g.plat.Nodes) }

// TraceReservationFile is the parameter struct of trace-reservations:
// the conversion's parameters and the trace's path.
type TraceReservationFile struct {
	TraceReservationParams `yaml:",inline"`
	Trace                  string `yaml:"trace"`
	// Jobs, when set, are the trace already loaded (an experiment loads
	// it once for all its runs); they are only read.
	Jobs []model.Job `yaml:"-"`
}

func init() {
	register(&Model{
		Name:        "lublin",
		Description: "Lublin & Feitelson 2003 rigid parallel jobs (typeless by default; job_types: true for batch + interactive)",
		params:      func() any { p := DefaultLublinParams(); return &p },
		build: func(p any, seed uint64) (Generator, error) {
			return NewLublin(*p.(*LublinParams), seed)
		},
	})
	register(&Model{
		Name:        "grid",
		Description: "computational-grid workload of seed 004: sites, pure runtime, deadlines, migration costs",
		params:      func() any { p := DefaultGridParams(); return &p },
		build:       func(p any, seed uint64) (Generator, error) { return NewGrid(*p.(*GridParams), seed) },
	})
	register(&Model{
		Name:        "reservations",
		Description: "advance-reservation requests of seed 000 §3.1 (Poisson arrivals, book-ahead, windows, levels)",
		params:      func() any { p := DefaultReservationParams(); return &p },
		build: func(p any, seed uint64) (Generator, error) {
			return NewReservations(*p.(*ReservationParams), seed)
		},
	})
	register(&Model{
		Name:        "trace-reservations",
		Description: "a trace with a fraction of its jobs turned into quad/dual/careless reservations (seed 000 §3.1); needs trace: PATH",
		params:      func() any { return &TraceReservationFile{TraceReservationParams: DefaultTraceReservationParams()} },
		build: func(p any, seed uint64) (Generator, error) {
			f := p.(*TraceReservationFile)
			if f.Trace == "" {
				return nil, fmt.Errorf("trace: the path of the trace to convert is required")
			}
			src := f.Jobs
			if src == nil {
				w, err := workload.Load(f.Trace, workload.Rules{}, workload.Transform{})
				if err != nil {
					return nil, err
				}
				src = w.Jobs
			}
			jobs, err := FromTrace(src, f.TraceReservationParams, seed)
			if err != nil {
				return nil, err
			}
			workload.SortBySubmit(jobs)
			return &traceResGen{sliceGen: sliceGen{jobs: jobs}, plat: f.Platform()}, nil
		},
	})
	register(&Model{
		Name:        "gang",
		Description: "gang jobs of seed 003 §1: Poisson arrivals, exponential service, sizes 1–16 (prob. q) or 17–32",
		params:      func() any { p := DefaultGangParams(); return &p },
		build:       func(p any, seed uint64) (Generator, error) { return NewGang(*p.(*GangParams), seed) },
	})
}

// Sizer is a generator that knows the system size its jobs are made for
// (written to the SWF header as MaxNodes and MaxProcs).
type Sizer interface {
	Nodes() int
}

// Nodes is 2^UHi, the largest job size.
func (g *Grid) Nodes() int { return int(math.Round(math.Exp2(g.p.UHi))) }

// Nodes is the largest gang size.
func (g *Gang) Nodes() int { return max(g.p.SmallMax, g.p.LargeMax) }

// checker is a parameter struct that can validate itself.
type checker interface{ check() error }

// Check validates decoded parameters without building a generator (so
// it is cheap: nothing is generated or loaded).
func (m *Model) Check(params any) error {
	if c, ok := params.(checker); ok {
		if err := c.check(); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return nil
}

func (p *LublinParams) check() error {
	q := *p
	q.defaults()
	return q.validate()
}
func (p *GridParams) check() error        { return p.validate() }
func (p *GangParams) check() error        { return p.validate() }
func (p *ReservationParams) check() error { return p.validate() }
func (p *TraceReservationFile) check() error {
	if p.Trace == "" {
		return fmt.Errorf("trace: the path of the trace to convert is required")
	}
	return p.validate()
}

// ParamLabel is the axis label a model gives its parameter key (the
// field's `label` tag: its meaning, symbol and unit), if it gives one.
func ParamLabel(model, key string) (string, bool) {
	m, ok := models[model]
	if !ok {
		return "", false
	}
	return fieldLabel(reflect.TypeOf(m.params()), key)
}

// fieldLabel finds the field of struct type t (or a pointer to one)
// whose yaml name is key, looking into inlined structs.
func fieldLabel(t reflect.Type, key string) (string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "", false
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if strings.Contains(opts, "inline") {
			if l, ok := fieldLabel(f.Type, key); ok {
				return l, true
			}
			continue
		}
		if name == key {
			l := f.Tag.Get("label")
			return l, l != ""
		}
	}
	return "", false
}
