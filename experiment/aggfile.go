package experiment

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gridsched/gridsched/internal/buildinfo"
)

// AggFile is an experiment's compact aggregates: what the verdict rules
// read of its runs, and nothing else. It is written from a store by
// BuildAggregates (which evaluates every claim and reference and keeps
// each answer the engine asked for), committed under
// docs/reproduction/LABEL/data/NAME.csv, and read back by ReadAggFile:
// as Data it gives the same answers, so the reproduction tables
// regenerate byte for byte without the store. The format is
// docs/reproduction/README.md's:
//
//	# gridsched verdict aggregates (docs/reproduction/README.md); written by gridsched verdicts export
//	# experiment: NAME
//	# label: quick
//	# spec: SPEC-HASH
//	# code: CODE-IDENTITY
//	# date: 2026-01-31
//	# runs: 1234
//	kind,config,base,metric,n,mean,sd,base_mean,diff_mean,diff_sd,config_id,PARAM...
//	config,0,,,,,,,,,"policy=easy,x=1",easy,1
//	stat,0,,makespan,30,1234.5,67.8,,,,,,
//	pair,1,0,makespan,30,1200.1,,1234.5,-34.4,12.3,,,
//
// A config row names a configuration (its index, name and parameter
// values); a stat row is a metric over one configuration's replications
// (n, mean, sample sd; n = 0: no run has it); a pair row is a metric over
// the replications two configurations share (the same seed), with the
// subject's and the base's means over them and the mean and sd of the
// per-replication differences.
type AggFile struct {
	AggInfo
	configs []DataConfig
	stats   map[statKey]Stat
	pairs   map[pairKey]PairStat
	missing map[string]bool
}

// AggInfo is an aggregate file's header.
type AggInfo struct {
	Experiment string
	Label      string
	SpecHash   string
	Code       string // the code identity that made the runs ("" unknown)
	Date       string // when the aggregates were written (YYYY-MM-DD)
	Runs       int
	Store      string // the store's digest (Store.Digest), "" in files written before it was recorded
}

type statKey struct {
	cfg    int
	metric string
}

type pairKey struct {
	subject, base int
	metric        string
}

// Configs lists the configurations.
func (f *AggFile) Configs() []DataConfig { return f.configs }

// Stat answers from the recorded stats; an answer not recorded is noted
// (Missing) and is empty.
func (f *AggFile) Stat(cfg int, metric string) Stat {
	s, ok := f.stats[statKey{cfg, metric}]
	if !ok {
		f.miss(fmt.Sprintf("stat %d %s", cfg, metric))
	}
	return s
}

// Pair answers from the recorded pairs, like Stat.
func (f *AggFile) Pair(subject, base int, metric string) PairStat {
	p, ok := f.pairs[pairKey{subject, base, metric}]
	if !ok {
		f.miss(fmt.Sprintf("pair %d %d %s", subject, base, metric))
	}
	return p
}

func (f *AggFile) miss(what string) {
	if f.missing == nil {
		f.missing = map[string]bool{}
	}
	f.missing[what] = true
}

// Missing lists the questions the file could not answer (its claims
// changed since it was written): regenerate it from the store.
func (f *AggFile) Missing() []string { return sortedKeys(f.missing) }

// recorder is Data that records every answer of the Data it wraps.
type recorder struct {
	d     Data
	stats map[statKey]Stat
	pairs map[pairKey]PairStat
}

func (r *recorder) Configs() []DataConfig { return r.d.Configs() }

func (r *recorder) Stat(cfg int, metric string) Stat {
	k := statKey{cfg, metric}
	s, ok := r.stats[k]
	if !ok {
		s = r.d.Stat(cfg, metric)
		r.stats[k] = s
	}
	return s
}

func (r *recorder) Pair(subject, base int, metric string) PairStat {
	k := pairKey{subject, base, metric}
	p, ok := r.pairs[k]
	if !ok {
		p = r.d.Pair(subject, base, metric)
		r.pairs[k] = p
	}
	return p
}

// BuildAggregates evaluates every claim and reference of s on the runs
// and returns the aggregates that answer them (and every configuration);
// for an experiment of a doc's results table (DocTables), the statistics
// the table shows: of its metrics, at the configurations it selects.
func BuildAggregates(s *Spec, rows []Row, info AggInfo) *AggFile {
	rec := &recorder{d: NewRowsData(rows), stats: map[statKey]Stat{}, pairs: map[pairKey]PairStat{}}
	for i := range s.Claims {
		Evaluate(s, &s.Claims[i], rec)
	}
	for i := range s.References {
		refStat(&s.References[i], rec)
	}
	for _, t := range DocTables {
		if !slices.Contains(t.Experiments, s.Name) {
			continue
		}
		for _, c := range rec.Configs() {
			if !matches(c.Params, t.Where) {
				continue
			}
			for _, m := range t.statMetrics() {
				if slices.Contains(s.Metrics, m) {
					rec.Stat(c.Index, m)
				}
			}
		}
	}
	info.Runs = len(rows)
	return &AggFile{AggInfo: info, configs: rec.Configs(), stats: rec.stats, pairs: rec.pairs}
}

// AggInfoOf is the header of a store's aggregates: its experiment,
// label and spec hash, the code identities its runs record (else the running
// binary's), and today's date.
func AggInfoOf(st *Store, s *Spec) AggInfo {
	code := strings.Join(st.Codes, ", ")
	if len(st.Codes) > 1 {
		code += " (runs of several code identities: --allow-code-change)"
	}
	if code == "" {
		code = buildinfo.Identity() + " (exporter; the store records none)"
	}
	return AggInfo{Experiment: s.Name, Label: ScaleLabel(s.Name, st.Label), SpecHash: st.Hash, Code: code, Date: time.Now().UTC().Format("2006-01-02")}
}

// meta reads a key of the store's meta table ("" if absent).
func (st *Store) meta(key string) string {
	var v string
	if err := st.db.QueryRow(`SELECT value FROM meta WHERE key = ?`, key).Scan(&v); err != nil {
		return ""
	}
	return v
}

const aggHead = "# gridsched verdict aggregates (docs/reproduction/README.md); written by gridsched verdicts export"

// Write writes the file (deterministic: rows in configuration, then
// metric order).
func (f *AggFile) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, aggHead)
	header := [][2]string{{"experiment", f.Experiment}, {"label", f.Label}, {"spec", f.SpecHash}, {"code", f.Code}, {"date", f.Date}, {"runs", strconv.Itoa(f.Runs)}}
	if f.Store != "" {
		header = append(header, [2]string{"store", f.Store})
	}
	for _, kv := range header {
		if strings.ContainsAny(kv[1], "\n\r") {
			return fmt.Errorf("aggregates header %s: a line break in %q", kv[0], kv[1])
		}
		fmt.Fprintf(bw, "# %s: %s\n", kv[0], kv[1])
	}
	ps := make([]map[string]string, len(f.configs))
	for i, c := range f.configs {
		ps[i] = c.Params
	}
	keys := sortedParamKeys(ps)
	cw := csv.NewWriter(bw)
	head := append([]string{"kind", "config", "base", "metric", "n", "mean", "sd", "base_mean", "diff_mean", "diff_sd", "config_id"}, keys...)
	cw.Write(head)
	blank := make([]string, len(head))
	row := func(cells ...string) {
		r := append([]string(nil), blank...)
		copy(r, cells)
		cw.Write(r)
	}
	for _, c := range f.configs {
		r := append([]string(nil), blank...)
		r[0], r[1], r[10] = "config", strconv.Itoa(c.Index), c.ID
		for i, k := range keys {
			r[11+i] = c.Params[k]
		}
		cw.Write(r)
	}
	sk := make([]statKey, 0, len(f.stats))
	for k := range f.stats {
		sk = append(sk, k)
	}
	sort.Slice(sk, func(i, j int) bool {
		if sk[i].cfg != sk[j].cfg {
			return sk[i].cfg < sk[j].cfg
		}
		return sk[i].metric < sk[j].metric
	})
	for _, k := range sk {
		s := f.stats[k]
		if s.N == 0 {
			row("stat", strconv.Itoa(k.cfg), "", k.metric, "0")
			continue
		}
		row("stat", strconv.Itoa(k.cfg), "", k.metric, strconv.Itoa(s.N), fnum(s.Mean), fnum(s.SD))
	}
	pk := make([]pairKey, 0, len(f.pairs))
	for k := range f.pairs {
		pk = append(pk, k)
	}
	sort.Slice(pk, func(i, j int) bool {
		a, b := pk[i], pk[j]
		if a.subject != b.subject {
			return a.subject < b.subject
		}
		if a.base != b.base {
			return a.base < b.base
		}
		return a.metric < b.metric
	})
	for _, k := range pk {
		p := f.pairs[k]
		if p.N == 0 {
			row("pair", strconv.Itoa(k.subject), strconv.Itoa(k.base), k.metric, "0")
			continue
		}
		row("pair", strconv.Itoa(k.subject), strconv.Itoa(k.base), k.metric, strconv.Itoa(p.N), fnum(p.Mean), "", fnum(p.BaseMean), fnum(p.DiffMean), fnum(p.DiffSD))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// Bytes is the file's content.
func (f *AggFile) Bytes() ([]byte, error) {
	var b bytes.Buffer
	err := f.Write(&b)
	return b.Bytes(), err
}

func fnum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// ReadAggFile reads an aggregate file (name is used in messages: every
// error names its line).
func ReadAggFile(name string, data []byte) (*AggFile, error) {
	f := &AggFile{stats: map[statKey]Stat{}, pairs: map[pairKey]PairStat{}}
	lines := bytes.SplitAfter(data, []byte("\n"))
	i := 0
	if len(lines) == 0 || strings.TrimRight(string(lines[0]), "\r\n") != aggHead {
		return nil, fmt.Errorf("%s:1: not a gridsched verdict aggregates file (want the line %q)", name, aggHead)
	}
	for i = 1; i < len(lines) && bytes.HasPrefix(lines[i], []byte("# ")); i++ {
		k, v, ok := strings.Cut(strings.TrimRight(string(lines[i][2:]), "\r\n"), ": ")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want '# key: value'", name, i+1)
		}
		switch k {
		case "experiment":
			f.Experiment = v
		case "label":
			f.Label = v
		case "spec":
			f.SpecHash = v
		case "code":
			f.Code = v
		case "date":
			f.Date = v
		case "runs":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s:%d: runs: want a count, got %q", name, i+1, v)
			}
			f.Runs = n
		case "store":
			f.Store = v
		default:
			return nil, fmt.Errorf("%s:%d: unknown header key %q", name, i+1, k)
		}
	}
	if f.Experiment == "" {
		return nil, fmt.Errorf("%s: the header names no experiment", name)
	}
	first := i + 1
	r := csv.NewReader(bytes.NewReader(bytes.Join(lines[i:], nil)))
	r.FieldsPerRecord = 0
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(recs) == 0 || len(recs[0]) < 11 || recs[0][0] != "kind" || recs[0][10] != "config_id" {
		return nil, fmt.Errorf("%s:%d: want the column header kind,config,base,metric,n,mean,sd,base_mean,diff_mean,diff_sd,config_id,…", name, first)
	}
	keys := recs[0][11:]
	seen := map[int]bool{}
	pairLine := map[pairKey]int{}
	for j, rec := range recs[1:] {
		line := first + 1 + j
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
		}
		num := func(col int, what string) (float64, error) {
			v, err := strconv.ParseFloat(rec[col], 64)
			switch {
			case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
				return 0, bad("%s: want a finite number, got %q", what, rec[col])
			case v < 0 && (what == "sd" || what == "diff_sd"):
				return 0, bad("%s: a standard deviation is not negative, got %q", what, rec[col])
			}
			return v, nil
		}
		cfg, err := strconv.Atoi(rec[1])
		if err != nil || cfg < 0 {
			return nil, bad("config: want a configuration index, got %q", rec[1])
		}
		switch rec[0] {
		case "config":
			if seen[cfg] {
				return nil, bad("configuration %d is named twice", cfg)
			}
			seen[cfg] = true
			p := map[string]string{}
			for k, key := range keys {
				if rec[11+k] != "" {
					p[key] = rec[11+k]
				}
			}
			f.configs = append(f.configs, DataConfig{Index: cfg, ID: rec[10], Params: p})
		case "stat", "pair":
			if !seen[cfg] {
				return nil, bad("configuration %d is not named by a config row before", cfg)
			}
			n, err := strconv.Atoi(rec[4])
			if err != nil || n < 0 {
				return nil, bad("n: want a count, got %q", rec[4])
			}
			if rec[3] == "" {
				return nil, bad("no metric")
			}
			if rec[0] == "stat" {
				s := Stat{N: n}
				if n > 0 {
					if s.Mean, err = num(5, "mean"); err != nil {
						return nil, err
					}
					if s.SD, err = num(6, "sd"); err != nil {
						return nil, err
					}
				}
				k := statKey{cfg, rec[3]}
				if _, dup := f.stats[k]; dup {
					return nil, bad("a second stat row of configuration %d, metric %s", cfg, rec[3])
				}
				f.stats[k] = s
				continue
			}
			base, err := strconv.Atoi(rec[2])
			if err != nil || !seen[base] {
				return nil, bad("base: want the index of a configuration named before, got %q", rec[2])
			}
			p := PairStat{N: n}
			if n > 0 {
				for _, c := range []struct {
					col  int
					name string
					v    *float64
				}{{5, "mean", &p.Mean}, {7, "base_mean", &p.BaseMean}, {8, "diff_mean", &p.DiffMean}, {9, "diff_sd", &p.DiffSD}} {
					if *c.v, err = num(c.col, c.name); err != nil {
						return nil, err
					}
				}
			}
			// The mean of the differences is the difference of the means
			// (to rounding): a hand-edited diff_mean is refused.
			if tol := 1e-9 * math.Max(1, math.Max(math.Abs(p.Mean), math.Abs(p.BaseMean))); n > 0 && math.Abs(p.DiffMean-(p.Mean-p.BaseMean)) > tol {
				return nil, bad("diff_mean %s is not mean − base_mean (%s − %s)", rec[8], rec[5], rec[7])
			}
			k := pairKey{cfg, base, rec[3]}
			if _, dup := f.pairs[k]; dup {
				return nil, bad("a second pair row of configurations %d and %d, metric %s", cfg, base, rec[3])
			}
			f.pairs[k] = p
			pairLine[k] = line
		default:
			return nil, bad("kind: want config, stat or pair, got %q", rec[0])
		}
	}
	// A pair over every replication of its subject has the subject's
	// mean.
	for k, p := range f.pairs {
		st, ok := f.stats[statKey{k.subject, k.metric}]
		if ok && p.N > 0 && st.N == p.N && math.Abs(st.Mean-p.Mean) > 1e-9*math.Max(1, math.Abs(st.Mean)) {
			return nil, fmt.Errorf("%s:%d: the pair's mean %s is not configuration %d's mean %s over the same %d replications", name, pairLine[k], fnum(p.Mean), k.subject, fnum(st.Mean), p.N)
		}
	}
	return f, nil
}

// LoadAggFile reads an aggregate file from disk.
func LoadAggFile(path string) (*AggFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ReadAggFile(path, b)
}
