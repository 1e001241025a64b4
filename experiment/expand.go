package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"iter"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/internal/yamlx"
	"github.com/gridsched/gridsched/metrics"
	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/sim"
	"github.com/gridsched/gridsched/simulate"
	"github.com/gridsched/gridsched/swf"
	"github.com/gridsched/gridsched/system"
	"github.com/gridsched/gridsched/workload"
)

// Param is one varied parameter of a configuration.
type Param struct {
	Key   string
	Value any
}

// Config is one point of the sweep.
type Config struct {
	Index  int
	ID     string // "key=value,key=value", stable across runs and machines
	Params []Param
	// Canon is the canonical configuration (Canonical), made with the
	// configuration.
	Canon string
}

// Canonical is the configuration's identity in a store: its parameters
// sorted by key, each value in canonical JSON (`policy="easy",x=1`), so
// that a run is keyed by what it simulates, not by how its name is
// displayed: 1 and 1.0 are one value, the text "1" another.
func (c *Config) Canonical() string {
	if c.Canon != "" {
		return c.Canon
	}
	ps := slices.Clone(c.Params)
	slices.SortStableFunc(ps, func(a, b Param) int { return strings.Compare(a.Key, b.Key) })
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Key + "=" + CanonicalValue(p.Value)
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, ",")
}

// CanonicalValue is a parameter value in canonical JSON (numbers in their
// shortest form, mappings with sorted keys), or its YAML flow form when
// JSON cannot hold it.
func CanonicalValue(v any) string {
	if b, err := json.Marshal(v); err == nil {
		return string(b)
	}
	return FormatValue(v)
}

// Param returns the value of key in c, formatted, or "".
func (c *Config) Param(key string) string {
	for _, p := range c.Params {
		if p.Key == key {
			return FormatValue(p.Value)
		}
	}
	return ""
}

// FormatValue formats a parameter value the same way everywhere.
func FormatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case uint64:
		return strconv.FormatUint(x, 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case string:
		return x
	}
	s, err := yamlx.Flow(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return s
}

// dimension is one axis of the sweep: a grid key, the zipped keys
// together, or the policy list.
type dimension struct {
	keys   []string
	values [][]any // values[i] = one value per key
}

// Configs expands the spec: the cartesian product of the grid keys (in
// name order), the zipped lists (one axis) and the policy list (the
// innermost axis, so a configuration's neighbours differ by policy).
// ConfigSeq gives the same configurations one at a time.
func (s *Spec) Configs() []Config {
	return slices.Collect(s.ConfigSeq())
}

// ConfigSeq yields the configurations of Configs in order, each made when
// it is reached (configuration i is decoded from i, mixed radix over the
// axes, the last axis fastest): a large grid is never held whole.
func (s *Spec) ConfigSeq() iter.Seq[Config] {
	return func(yield func(Config) bool) {
		n, ok := s.ConfigCount() // validation refuses more than MaxConfigs
		if !ok {
			return
		}
		dims := s.dimensions()
		for i := 0; i < n; i++ {
			if !yield(configAt(dims, i)) {
				return
			}
		}
	}
}

// dimensions are the axes of the expansion, outermost first.
func (s *Spec) dimensions() []dimension {
	var dims []dimension
	for _, k := range sortedKeys(s.Grid) {
		d := dimension{keys: []string{k}}
		for _, v := range s.Grid[k] {
			d.values = append(d.values, []any{v})
		}
		dims = append(dims, d)
	}
	if len(s.Zip) > 0 {
		keys := sortedKeys(s.Zip)
		d := dimension{keys: keys}
		for i := range s.Zip[keys[0]] {
			row := make([]any, len(keys))
			for k, key := range keys {
				row[k] = s.Zip[key][i]
			}
			d.values = append(d.values, row)
		}
		dims = append(dims, d)
	}
	if len(s.Policies) > 0 && s.Grid["policy"] == nil && s.Zip["policy"] == nil {
		d := dimension{keys: []string{"policy"}}
		for _, p := range s.Policies {
			d.values = append(d.values, []any{p})
		}
		dims = append(dims, d)
	}
	return dims
}

// configAt is configuration i of the expansion over dims.
func configAt(dims []dimension, i int) Config {
	pick := make([]int, len(dims))
	rest := i
	for d := len(dims) - 1; d >= 0; d-- {
		pick[d] = rest % len(dims[d].values)
		rest /= len(dims[d].values)
	}
	c := Config{Index: i}
	parts := make([]string, 0, len(dims))
	for d, dim := range dims {
		vals := dim.values[pick[d]]
		for k, key := range dim.keys {
			c.Params = append(c.Params, Param{Key: key, Value: vals[k]})
			parts = append(parts, key+"="+FormatValue(vals[k]))
		}
	}
	c.ID = strings.Join(parts, ",")
	if c.ID == "" {
		c.ID = "default"
	}
	c.Canon = c.Canonical()
	return c
}

// RunConfig is what one configuration simulates.
type RunConfig struct {
	Workload   WorkloadSpec `yaml:"workload"`
	Platform   PlatformSpec `yaml:"platform"`
	Policy     string       `yaml:"policy"`
	Overrun    string       `yaml:"overrun"`
	NodeSelect string       `yaml:"node_select"`
	WholeNodes bool         `yaml:"whole_nodes"`
	// Sections are the systems' parameters (a copy of the spec's, with
	// the configuration's values set), by section key.
	Sections map[string]any `yaml:"-"`
}

// Resolve applies the configuration's parameters to the spec's base.
func (c *Config) Resolve(s *Spec) (*RunConfig, error) {
	rc := &RunConfig{Workload: s.Workload, Platform: s.Platform, Overrun: s.Overrun, NodeSelect: s.NodeSelect, WholeNodes: s.WholeNodes,
		Sections: cloneSections(s.Sections)}
	if len(s.Policies) > 0 {
		rc.Policy = s.Policies[0]
	}
	rc.Workload.Params = maps.Clone(s.Workload.Params)
	for _, p := range c.Params {
		if k, ok := strings.CutPrefix(p.Key, "workload.params."); ok {
			if rc.Workload.Params == nil {
				rc.Workload.Params = map[string]any{}
			}
			rc.Workload.Params[k] = p.Value
			continue
		}
		v, err := yamlx.Flow(p.Value)
		if err != nil {
			return nil, err
		}
		if sys, rest, ok := section(p.Key); ok {
			// A system's parameter: set on the configuration's copy of
			// its section (made from the defaults if the spec has none).
			if rc.Sections == nil {
				rc.Sections = map[string]any{}
			}
			sec, ok := rc.Sections[sys.Section]
			if !ok {
				sec = sys.NewParams()
				rc.Sections[sys.Section] = sec
			}
			if err := yamlx.DecodeStrict(p.Key+"="+v, yamlx.PathDoc(rest, v), sec); err != nil {
				return nil, err
			}
			continue
		}
		if err := yamlx.DecodeStrict(p.Key+"="+v, yamlx.PathDoc(p.Key, v), rc); err != nil {
			return nil, err
		}
	}
	if rc.Workload.Model != "" {
		if _, _, err := rc.modelParams(); err != nil {
			return nil, err
		}
	}
	if _, err := rc.prepare(s); err != nil {
		return nil, err
	}
	return rc, nil
}

// prepare prepares the configuration's sections (package system): checked,
// with defaults, built once (a hierarchy's tree).
func (rc *RunConfig) prepare(s *Spec) (system.Prepared, error) {
	return system.Prepare(cloneSections(rc.Sections), func(f string) string { return s.resolvePath(f, false) })
}

func (rc *RunConfig) modelParams() (*gen.Model, any, error) {
	m, err := gen.Lookup(rc.Workload.Model)
	if err != nil {
		return nil, nil, err
	}
	var doc []byte
	if len(rc.Workload.Params) > 0 {
		s, err := yamlx.Flow(rc.Workload.Params)
		if err != nil {
			return nil, nil, err
		}
		doc = []byte(s)
	}
	p, err := m.Params("workload.params", doc, nil)
	if err == nil {
		err = m.Check(p)
	}
	return m, p, err
}

// Run is one simulation of the sweep.
type Run struct {
	Config *Config
	Rep    int
	Seed   uint64
	Key    string
}

// RunSeed is the seed of replication rep: derived from the spec seed and
// the replication number only, so every configuration of a replication
// sees the same workload and random draws (common random numbers).
func RunSeed(specSeed uint64, rep int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "gridsched/replication/%d/%d", specSeed, rep)
	return h.Sum64()
}

// NewRun makes replication rep of configuration c.
func (s *Spec) NewRun(c *Config, rep int) Run {
	return Run{Config: c, Rep: rep, Seed: RunSeed(s.Seed, rep), Key: c.Canonical() + "#" + strconv.Itoa(rep)}
}

// TracesDir is where trace names of specs are looked up: the
// GRIDSCHED_TRACES environment variable, else ../shared/traces.
func TracesDir() string {
	if d := os.Getenv("GRIDSCHED_TRACES"); d != "" {
		return d
	}
	return DefaultTracesDir
}

// DefaultTracesDir is the traces folder used when GRIDSCHED_TRACES is
// unset (relative to the current directory).
var DefaultTracesDir = filepath.Join("..", "shared", "traces")

// traceCandidates are the places a trace name is looked up, in order:
// the spec's folder, GRIDSCHED_TRACES, the default folder.
func (s *Spec) traceCandidates(name string) []string {
	var c []string
	if s.Dir != "" {
		c = append(c, filepath.Join(s.Dir, name))
	}
	if d := os.Getenv("GRIDSCHED_TRACES"); d != "" {
		c = append(c, filepath.Join(d, name))
	}
	return append(c, filepath.Join(DefaultTracesDir, name))
}

// FindTrace resolves a trace name of the spec, or says every place it
// looked.
func (s *Spec) FindTrace(name string) (string, error) {
	if filepath.IsAbs(name) {
		if fileExists(name) {
			return name, nil
		}
		return "", fmt.Errorf("trace %s: no such file", name)
	}
	cands := s.traceCandidates(name)
	for _, p := range cands {
		if fileExists(p) {
			return p, nil
		}
	}
	where := "the spec's folder (none: a built-in spec)"
	if s.Dir != "" {
		where = "the spec's folder " + s.Dir
	}
	env := "GRIDSCHED_TRACES (unset)"
	if d := os.Getenv("GRIDSCHED_TRACES"); d != "" {
		env = "GRIDSCHED_TRACES=" + d
	}
	return "", fmt.Errorf("trace %q not found in %s, in %s, nor in the default folder %s (relative to the current directory); set GRIDSCHED_TRACES to the traces folder", name, where, env, DefaultTracesDir)
}

// resolvePath finds a file named in a spec: absolute; relative to the
// spec's folder; else (traces) in GRIDSCHED_TRACES, then the default
// folder.
func (s *Spec) resolvePath(name string, trace bool) string {
	if trace {
		if p, err := s.FindTrace(name); err == nil {
			return p
		}
		return filepath.Join(TracesDir(), name)
	}
	if filepath.IsAbs(name) {
		return name
	}
	if s.Dir != "" {
		if p := filepath.Join(s.Dir, name); fileExists(p) {
			return p
		}
	}
	return name
}

// CheckRecords is how many records of each trace CheckFiles reads.
const CheckRecords = 1000

// CheckFiles resolves every file the configurations read (traces,
// platform files, the files of systems' sections such as a hierarchy's
// tree) and parses each platform file once: run it before creating a
// result store, so a missing trace fails the start instead of a run
// halfway through. The files are found from the spec and its grid and
// zip values, without resolving each configuration (a 10^5-configuration
// grid is checked in a moment) and reads the header and first
// CheckRecords records of each trace; errors name the file's position in
// the spec when the spec was read from a file.
func (s *Spec) CheckFiles() error {
	if s.schema != nil { // the files the spec names, at their positions
		if errs := s.fileErrors(s.schema); len(errs) > 0 {
			return errors.Join(errs...)
		}
	}
	ins, err := s.inputRefs()
	if err != nil {
		return err
	}
	var errs []error
	for _, in := range ins {
		if in.Role == "trace" {
			p, err := s.FindTrace(in.Name)
			if err == nil {
				// Its first records, cheaply: a file in the wrong format or
				// malformed from the start fails here, before the store.
				_, err = workload.Load(p, workload.Rules{}, workload.Transform{First: CheckRecords})
			}
			if err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if !fileExists(in.Path) {
			errs = append(errs, fmt.Errorf("%s: %s: no such file", in.Role, in.Name))
			continue
		}
		if in.Role == "platform" {
			data, err := os.ReadFile(in.Path)
			if err == nil {
				_, err = model.ParsePlatform(in.Path, data)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("platform.file: %w", err))
			}
		}
	}
	return errors.Join(errs...)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Execute simulates one run and returns its metrics, with the spec's
// paired metrics (Pairing) when the run's policy has them.
func (s *Spec) Execute(r Run, cache *Cache) (map[string]float64, error) {
	res, err := cache.resolve(s, r.Config)
	if err != nil {
		return nil, err
	}
	m, err := s.execute(r, res, res.rc.Policy, cache)
	if err != nil || s.Pairing == nil || !s.Pairing.applies(res.rc.Policy) {
		return m, err
	}
	base, err := s.execute(r, res, s.Pairing.Base, cache)
	if err != nil {
		return nil, fmt.Errorf("pairing base %s: %w", s.Pairing.Base, err)
	}
	s.Pairing.add(m, base)
	return m, nil
}

// execute simulates run r of a resolved configuration under policy pol.
func (s *Spec) execute(r Run, res *resolvedEntry, pol string, cache *Cache) (map[string]float64, error) {
	rc := res.rc
	w := rc.Workload
	cfg := simulate.Config{
		Policy: pol, Nodes: rc.Platform.Nodes, Seed: r.Seed,
		NodeSelect: rc.NodeSelect, WholeNodes: rc.WholeNodes, Prepared: res.prepared,
		Rules:     workload.Rules{KeepCancelled: w.KeepCancelled, ClampWide: w.ClampWide},
		Transform: workload.Transform{Skip: w.Skip, First: w.First, Scale: w.ArrivalScale, MaxProcs: w.MaxProcs, Estimates: w.Estimates},
	}
	if rc.Overrun == "extend" {
		cfg.Overrun = engine.OverrunExtend
	}
	if rc.Platform.File != "" {
		cfg.PlatformPath = s.resolvePath(rc.Platform.File, false)
	}
	if p := buildPlatform(&rc.Platform, r.Seed); p != nil {
		cfg.Platform = p
	}
	if p := res.prepared.Platform(); p != nil {
		cfg.Platform = p
	}
	var wl *workload.Workload
	var plat *model.Platform
	var err error
	if w.Trace != "" {
		cfg.WorkloadPath = s.resolvePath(w.Trace, true)
		wl, plat, err = cache.load(&cfg)
		if cfg.Platform != nil {
			plat = cfg.Platform // this run's own platform (same shape as the cached one)
		}
	} else if _, loop := system.Loop(pol); loop {
		wl, _, err = cache.generate(r, res, &cfg)
	} else {
		wl, plat, err = cache.generate(r, res, &cfg)
		if err == nil && w.AdmittedByBoth {
			wl, err = cache.admittedByBoth(admittedKey(r), res, &cfg, wl, plat)
		}
	}
	if err != nil {
		return nil, err
	}
	out, err := simulate.RunLoaded(cfg, wl, plat)
	if err != nil {
		return nil, err
	}
	return out.Metrics(), nil
}

// buildPlatform makes the platform a spec describes with pes, mips or
// unstable nodes (nil for the plain cases simulate handles). The unstable
// nodes are drawn by a stream of the replication's seed: every policy of
// a replication sees the same platform.
func buildPlatform(ps *PlatformSpec, seed uint64) *model.Platform {
	if ps.PEs == 0 && ps.MIPS == 0 && ps.Unstable == 0 && ps.UnstableFraction == 0 && ps.PStable == nil && ps.Levels == 0 {
		return nil
	}
	n := ps.Nodes
	if n == 0 {
		return nil
	}
	pes := max(ps.PEs, 1)
	p := model.Uniform(fmt.Sprintf("%d nodes × %d PE", n, pes), n, pes)
	k := ps.Unstable
	if ps.UnstableFraction > 0 {
		k = int(math.Round(ps.UnstableFraction * float64(n)))
	}
	k = min(k, n)
	pStable := 1.0
	if ps.PStable != nil {
		pStable = *ps.PStable
	}
	order := sim.Stream(seed, "platform/unstable-nodes").Perm(n)
	for i := range p.Nodes {
		p.Nodes[i].MIPS = ps.MIPS
		p.Nodes[i].Stability, p.Nodes[i].Delay = pStable, ps.DStable
	}
	for _, i := range order[:k] {
		p.Nodes[i].Stability, p.Nodes[i].Delay = ps.PUnstable, ps.DUnstable
	}
	if k > 0 {
		p.Name += fmt.Sprintf(", %d unstable (p=%g, d=%g)", k, ps.PUnstable, ps.DUnstable)
	}
	if ps.Levels > 0 {
		// Capability levels uniform on 1..levels (seed 000 §3.1), drawn
		// per replication, the same for every mechanism.
		lv := sim.Stream(seed, "platform/levels")
		for i := range p.Nodes {
			p.Nodes[i].Capability = 1 + lv.IntN(ps.Levels)
		}
		p.Name += fmt.Sprintf(", capability levels 1–%d", ps.Levels)
	}
	return p
}

// generate builds a model workload for one run (seeded by the run).
func generate(res *resolvedEntry, cfg *simulate.Config) (*workload.Workload, *model.Platform, error) {
	rc := res.rc
	g, err := res.model.New(withNodes(res.params, rc.Platform.Nodes), cfg.Seed)
	if err != nil {
		return nil, nil, err
	}
	n := rc.Workload.Jobs
	if n <= 0 {
		n = 1 << 31
	}
	jobs := gen.Take(g, n)
	var h swf.Header
	if sz, ok := g.(gen.Sizer); ok {
		h = swf.Header{{Key: "MaxProcs", Value: strconv.Itoa(sz.Nodes())}}
	}
	wl, err := workload.FromJobs(rc.Workload.Model, jobs, h, cfg.Rules, cfg.Transform)
	if err != nil {
		return nil, nil, err
	}
	if pm, ok := g.(gen.Platformer); ok && cfg.Platform == nil && cfg.PlatformPath == "" && cfg.Nodes == 0 {
		cfg.Platform = pm.Platform()
	}
	plat, err := simulate.PlatformFor(cfg, wl)
	if err != nil {
		return nil, nil, err
	}
	return wl, plat, simulate.Prepare(cfg, wl, plat)
}

// withNodes gives a reservations workload that names no resource count
// the platform's node count (seed 000: tasks are queued round-robin on
// the resources, and background_cover sizes each queue), so a sweep over
// platform.nodes needs no zipped workload parameter.
func withNodes(params any, nodes int) any {
	if p, ok := params.(*gen.ReservationParams); ok && p.Resources == 0 && nodes > 0 {
		q := *p
		q.Resources = nodes
		return &q
	}
	return params
}

// admittedKey names what the requests admitted by both policies depend
// on: the replication's seed and the configuration's parameters other
// than the policy and the flexibility (the admission runs use their own
// policies and flexibility AdmittedAt). Runs with one key share the
// admission runs (Cache.admittedByBoth).
func admittedKey(r Run) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", r.Seed)
	for _, p := range r.Config.Params {
		if p.Key != "policy" && p.Key != "workload.params.flexibility" {
			b.WriteString("|" + p.Key + "=" + FormatValue(p.Value))
		}
	}
	return b.String()
}

// admittedByBoth is admittedBoth, computed once per key: in a sweep over
// policies and flexibilities every run of a replication keeps the same
// requests, and the two admission simulations are most of a run's cost.
func (c *Cache) admittedByBoth(key string, res *resolvedEntry, cfg *simulate.Config, wl *workload.Workload, plat *model.Platform) (*workload.Workload, error) {
	c.mu.Lock()
	if c.admitted == nil {
		c.admitted = map[string]*admittedEntry{}
	}
	e, ok := c.admitted[key]
	if !ok {
		e = &admittedEntry{}
		c.admitted[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.keep, e.err = admittedBoth(res, cfg, plat) })
	if e.err != nil {
		return nil, e.err
	}
	return keepAdmitted(wl, e.keep), nil
}

// admittedEntry holds, by rank among the requests, those both policies
// admitted (read only once made).
type admittedEntry struct {
	once sync.Once
	keep map[int]bool
	err  error
}

// admittedBoth implements seed 000's experiments 3 and 4.2 (figures
// 7–8, 11–12): generate the same requests (same seed) with flexibility
// AdmittedAt, run SRRM_r and DRRM on the platform, and return the ranks
// (arrival order among the requests) of the requests both admitted;
// keepAdmitted keeps those in the run's own workload (its flexibility).
func admittedBoth(res *resolvedEntry, cfg *simulate.Config, plat *model.Platform) (map[int]bool, error) {
	var params any
	switch p := res.params.(type) {
	case *gen.ReservationParams:
		q := *p
		q.Flexibility = res.rc.Workload.AdmittedAt
		params = &q
	case *gen.TraceReservationFile:
		q := *p
		q.Flexibility = res.rc.Workload.AdmittedAt
		params = &q
	default:
		return nil, fmt.Errorf("admitted_by_both needs the reservations or trace-reservations model, not %q", res.rc.Workload.Model)
	}
	g, err := res.model.New(withNodes(params, res.rc.Platform.Nodes), cfg.Seed)
	if err != nil {
		return nil, err
	}
	n := res.rc.Workload.Jobs
	if n <= 0 {
		n = 1 << 31
	}
	base, err := workload.FromJobs(res.rc.Workload.Model, gen.Take(g, n), nil, cfg.Rules, cfg.Transform)
	if err != nil {
		return nil, err
	}
	var both map[int64]bool
	for _, pol := range []string{"srrm-r", "drrm"} {
		c := *cfg
		c.Policy = pol
		c.Prepared = system.Prepared{} // the admission runs see the requests alone (no failure)
		out, err := simulate.RunLoaded(c, base, plat)
		if err != nil {
			return nil, err
		}
		adm := out.Policy.(interface{ Admitted() map[int64]bool }).Admitted()
		if both == nil {
			both = adm
			continue
		}
		for id := range both {
			if !adm[id] {
				delete(both, id)
			}
		}
	}
	// Requests are matched by their rank among the requests (their
	// arrival order, the same at every flexibility), not by job ID: the
	// background (and so the IDs) may be sized per configuration.
	rank := map[int64]int{}
	for _, j := range base.Jobs {
		if j.Queue != gen.TypeTask {
			rank[j.ID] = len(rank)
		}
	}
	keep := map[int]bool{}
	for id := range both {
		keep[rank[id]] = true
	}
	return keep, nil
}

// keepAdmitted keeps of wl the non-reserved tasks and the requests whose
// rank is in keep.
func keepAdmitted(wl *workload.Workload, keep map[int]bool) *workload.Workload {
	kept := &workload.Workload{Name: wl.Name + " (admitted by both)", Header: wl.Header, Skipped: wl.Skipped, Records: wl.Records}
	k := 0
	for _, j := range wl.Jobs {
		if j.Queue == gen.TypeTask {
			kept.Jobs = append(kept.Jobs, j)
			continue
		}
		if keep[k] {
			kept.Jobs = append(kept.Jobs, j)
		}
		k++
	}
	return kept
}

// MetricNames lists the registered metrics (package system) in their
// fixed order: the core ones, then each system's.
func MetricNames() []string { return system.MetricKeys() }

// IsMetric reports whether name is a registered metric.
func IsMetric(name string) bool {
	_, ok := system.MetricInfo(name)
	return ok
}

// MetricValues extracts every metric from an engine run's summary.
func MetricValues(s *metrics.Summary) map[string]float64 { return simulate.MetricValues(s) }
