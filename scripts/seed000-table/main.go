// Command seed000-table prints the paper-versus-ours tables of seed 000
// (Gao & Luo 2011, advance reservations) from the result stores of
// `gridsched reproduce` (DIR/reservations-*/store.db), as Markdown:
//
//	go run ./scripts/seed000-table DIR > table.md
//
// Two tables. The numbers the paper quotes (ratios between mechanisms at
// a setting, changes along an axis), each with ours: the ratio of the
// means over the replications (paired by replication: the mechanisms of
// one replication see the same workload) and its 95% CI (delta method,
// Student t); and every claim of the specs' `claims:` lists, checked by
// experiment.Claim.Check. The paper's numbers are the only typed input;
// nothing of ours is.
//
// Verdicts of a quoted number: "agrees" when our CI excludes no-effect
// (ratio 1, change 0), the direction is the paper's and our effect is
// within a factor of 2 of the paper's; "same direction, different size"
// when only the direction agrees; for the paper's "within 5%" (no
// change), "near" when ours changes beyond its CI but by at most 10% (the
// factor 2 again); "disagrees" when the direction is the
// opposite beyond the CI; "no difference (tie)" when the CI contains
// no-effect (a tie is not a win).
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gridsched/gridsched/experiment"
)

// quote is a number the paper gives: Ratio (metric of Num / metric of
// Den, policies, at Where) or Change ((To − From) / From along X, of
// Policy, at Where).
type quote struct {
	Spec, Figure, Text string
	Metric             string
	Where              map[string]string
	Num, Den           string  // ratio: policies
	Policy, X          string  // change
	From, To           string  // change: x values
	Paper              float64 // ratio, or change as a fraction
}

var quotes = []quote{
	{Spec: "reservations-exp1", Figure: "3", Text: "AP_SRRM_r / AP_DRRM at 25 resources", Metric: "ap", Where: map[string]string{"platform.nodes": "25"}, Num: "srrm-r", Den: "drrm", Paper: 1.33},
	{Spec: "reservations-exp1", Figure: "3", Text: "PP_SRRM_m change, 5 → 100 resources", Metric: "pp", Policy: "srrm-m", X: "platform.nodes", From: "5", To: "100", Paper: -0.317},
	{Spec: "reservations-exp1", Figure: "3", Text: "PP_DRRM change, 5 → 100 resources", Metric: "pp", Policy: "drrm", X: "platform.nodes", From: "5", To: "100", Paper: -0.861},
	{Spec: "reservations-exp1", Figure: "3", Text: "PP_SRRM_r change, 5 → 100 resources (paper: fluctuates by less than 5%)", Metric: "pp", Policy: "srrm-r", X: "platform.nodes", From: "5", To: "100", Paper: 0},
	{Spec: "reservations-exp1", Figure: "4", Text: "TPC_SRRM_r / TPC_DRRM at 25 resources", Metric: "tpc", Where: map[string]string{"platform.nodes": "25"}, Num: "srrm-r", Den: "drrm", Paper: 4.46},
	{Spec: "reservations-exp1", Figure: "4", Text: "TPC_SRRM_m / TPC_DRRM at 25 resources", Metric: "tpc", Where: map[string]string{"platform.nodes": "25"}, Num: "srrm-m", Den: "drrm", Paper: 3.9},
	{Spec: "reservations-exp1", Figure: "4", Text: "TPC_SRRM_m / TPC_DRRM at 25 resources, old predictor (srrm-m-running)", Metric: "tpc", Where: map[string]string{"platform.nodes": "25"}, Num: "srrm-m-running", Den: "drrm", Paper: 3.9},
	{Spec: "reservations-exp1", Figure: "4", Text: "TPC_SRRM_m / TPC_DRRM at 25 resources, queue-length predictor (srrm-m-qlen)", Metric: "tpc", Where: map[string]string{"platform.nodes": "25"}, Num: "srrm-m-qlen", Den: "drrm", Paper: 3.9},
	{Spec: "reservations-exp1", Figure: "3", Text: "PP_SRRM_m change, 5 → 100 resources, queue-length predictor (srrm-m-qlen)", Metric: "pp", Policy: "srrm-m-qlen", X: "platform.nodes", From: "5", To: "100", Paper: -0.317},
	{Spec: "reservations-exp1", Figure: "3", Text: "PP_SRRM_m change, 5 → 100 resources, old predictor (srrm-m-running)", Metric: "pp", Policy: "srrm-m-running", X: "platform.nodes", From: "5", To: "100", Paper: -0.317},
	{Spec: "reservations-exp2", Figure: "5", Text: "AP_SRRM_r / AP_DRRM at λ = 6", Metric: "ap", Where: map[string]string{"workload.params.lambda": "6"}, Num: "srrm-r", Den: "drrm", Paper: 1.2},
	{Spec: "reservations-exp2", Figure: "6", Text: "TPC_SRRM_r / TPC_DRRM at λ = 6", Metric: "tpc", Where: map[string]string{"workload.params.lambda": "6"}, Num: "srrm-r", Den: "drrm", Paper: 2.84},
	{Spec: "reservations-exp2", Figure: "6", Text: "TPC_SRRM_m / TPC_DRRM at λ = 6", Metric: "tpc", Where: map[string]string{"workload.params.lambda": "6"}, Num: "srrm-m", Den: "drrm", Paper: 2.76},
	{Spec: "reservations-exp3", Figure: "7", Text: "PP_DRRM change, flexibility 0.1 → 0.9 (durations shrink)", Metric: "pp", Policy: "drrm", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0"}, Paper: -0.667},
	{Spec: "reservations-exp3", Figure: "7", Text: "PP_SRRM_r change, flexibility 0.1 → 0.9 (durations shrink)", Metric: "pp", Policy: "srrm-r", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0"}, Paper: -0.348},
	{Spec: "reservations-exp3", Figure: "7", Text: "PP_SRRM_m change, flexibility 0.1 → 0.9 (durations shrink)", Metric: "pp", Policy: "srrm-m", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0"}, Paper: -0.391},
	{Spec: "reservations-exp3", Figure: "8", Text: "TPC_DRRM change, flexibility 0.1 → 0.9 (durations shrink)", Metric: "tpc", Policy: "drrm", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0"}, Paper: -0.594},
	{Spec: "reservations-exp3", Figure: "8", Text: "TPC_SRRM_r change, flexibility 0.1 → 0.9 (durations shrink)", Metric: "tpc", Policy: "srrm-r", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0"}, Paper: -0.328},
	{Spec: "reservations-exp3", Figure: "8", Text: "TPC_SRRM_m change, flexibility 0.1 → 0.9 (durations shrink)", Metric: "tpc", Policy: "srrm-m", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0"}, Paper: -0.337},
	{Spec: "reservations-exp3", Figure: "7", Text: "PP_DRRM change, flexibility 0.1 → 0.9 (windows widen)", Metric: "pp", Policy: "drrm", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0.1"}, Paper: -0.667},
	{Spec: "reservations-exp3", Figure: "7", Text: "PP_SRRM_r change, flexibility 0.1 → 0.9 (windows widen)", Metric: "pp", Policy: "srrm-r", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0.1"}, Paper: -0.348},
	{Spec: "reservations-exp3", Figure: "7", Text: "PP_SRRM_m change, flexibility 0.1 → 0.9 (windows widen)", Metric: "pp", Policy: "srrm-m", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0.1"}, Paper: -0.391},
	{Spec: "reservations-exp3", Figure: "8", Text: "TPC_DRRM change, flexibility 0.1 → 0.9 (windows widen)", Metric: "tpc", Policy: "drrm", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0.1"}, Paper: -0.594},
	{Spec: "reservations-exp3", Figure: "8", Text: "TPC_SRRM_r change, flexibility 0.1 → 0.9 (windows widen)", Metric: "tpc", Policy: "srrm-r", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0.1"}, Paper: -0.328},
	{Spec: "reservations-exp3", Figure: "8", Text: "TPC_SRRM_m change, flexibility 0.1 → 0.9 (windows widen)", Metric: "tpc", Policy: "srrm-m", X: "workload.params.flexibility", From: "0.1", To: "0.9", Where: map[string]string{"workload.params.duration_at": "0.1"}, Paper: -0.337},
	{Spec: "reservations-osc-lambda", Figure: "9", Text: "AP_SRRM_r / AP_DRRM at λ = 300 s", Metric: "ap", Where: map[string]string{"workload.params.lambda": "300"}, Num: "srrm-r", Den: "drrm", Paper: 1.27},
	{Spec: "reservations-osc-lambda", Figure: "10", Text: "TPC_SRRM_r / TPC_DRRM at λ = 300 s", Metric: "tpc", Where: map[string]string{"workload.params.lambda": "300"}, Num: "srrm-r", Den: "drrm", Paper: 2.36},
	{Spec: "reservations-osc-flex", Figure: "11", Text: "PP_DRRM change, flexibility 0 → 0.9", Metric: "pp", Policy: "drrm", X: "workload.params.flexibility", From: "0", To: "0.9", Paper: -0.67},
	{Spec: "reservations-osc-flex", Figure: "11", Text: "PP_SRRM_r change, flexibility 0 → 0.9", Metric: "pp", Policy: "srrm-r", X: "workload.params.flexibility", From: "0", To: "0.9", Paper: -0.31},
	{Spec: "reservations-osc-flex", Figure: "11", Text: "PP_SRRM_m change, flexibility 0 → 0.9", Metric: "pp", Policy: "srrm-m", X: "workload.params.flexibility", From: "0", To: "0.9", Paper: -0.37},
	{Spec: "reservations-osc-flex", Figure: "11", Text: "PP_SRRM_m change, flexibility 0 → 0.9, old predictor (srrm-m-running)", Metric: "pp", Policy: "srrm-m-running", X: "workload.params.flexibility", From: "0", To: "0.9", Paper: -0.37},
	{Spec: "reservations-osc-flex", Figure: "11", Text: "PP_SRRM_m change, flexibility 0 → 0.9, queue-length predictor (srrm-m-qlen)", Metric: "pp", Policy: "srrm-m-qlen", X: "workload.params.flexibility", From: "0", To: "0.9", Paper: -0.37},
	{Spec: "reservations-osc-flex", Figure: "12", Text: "TPC_SRRM_m change, flexibility 0 → 0.9, queue-length predictor (srrm-m-qlen)", Metric: "tpc", Policy: "srrm-m-qlen", X: "workload.params.flexibility", From: "0", To: "0.9", Paper: -0.313},
	{Spec: "reservations-osc-flex", Figure: "12", Text: "TPC_DRRM change, flexibility 0 → 0.9", Metric: "tpc", Policy: "drrm", X: "workload.params.flexibility", From: "0", To: "0.9", Paper: -0.613},
	{Spec: "reservations-osc-flex", Figure: "12", Text: "TPC_SRRM_r change, flexibility 0 → 0.9", Metric: "tpc", Policy: "srrm-r", X: "workload.params.flexibility", From: "0", To: "0.9", Paper: -0.258},
	{Spec: "reservations-osc-flex", Figure: "12", Text: "TPC_SRRM_m change, flexibility 0 → 0.9", Metric: "tpc", Policy: "srrm-m", X: "workload.params.flexibility", From: "0", To: "0.9", Paper: -0.313},
	{Spec: "reservations-failure", Figure: "13", Text: "η_DRRM / η_SRRM_r at σ = 0.4 (requests arrive over time)", Metric: "eta", Where: map[string]string{"failure.sigma": "0.4", "workload.params.requests_at_start": "false"}, Num: "drrm", Den: "srrm-r", Paper: 0.684},
	{Spec: "reservations-failure", Figure: "13", Text: "η_DRRM / η_SRRM_r at σ = 0.5 (requests arrive over time)", Metric: "eta", Where: map[string]string{"failure.sigma": "0.5", "workload.params.requests_at_start": "false"}, Num: "drrm", Den: "srrm-r", Paper: 0.473},
	{Spec: "reservations-failure", Figure: "13", Text: "η_DRRM / η_SRRM_r at σ = 0.4 (all requests booked at 0)", Metric: "eta", Where: map[string]string{"failure.sigma": "0.4", "workload.params.requests_at_start": "true"}, Num: "drrm", Den: "srrm-r", Paper: 0.684},
	{Spec: "reservations-failure", Figure: "13", Text: "η_DRRM / η_SRRM_r at σ = 0.5 (all requests booked at 0)", Metric: "eta", Where: map[string]string{"failure.sigma": "0.5", "workload.params.requests_at_start": "true"}, Num: "drrm", Den: "srrm-r", Paper: 0.473},
}

// The window-start placement reading (srrm-r-et, srrm-m-et; docs/
// reservations.md, "Where SRRM places a booking") gets a copy of every
// SRRM quote of experiments 1–3 and the OSC flexibility group (at
// flexibility 0, as in the OSC λ group, the readings coincide), right after the quote it copies.
func init() {
	var out []quote
	for _, q := range quotes {
		out = append(out, q)
		if q.Spec == "reservations-osc-lambda" || q.Spec == "reservations-failure" {
			continue
		}
		et := func(p string) string {
			if p == "srrm-r" || p == "srrm-m" {
				return p + "-et"
			}
			return p
		}
		c := q
		c.Num, c.Den, c.Policy = et(q.Num), et(q.Den), et(q.Policy)
		if c.Num == q.Num && c.Den == q.Den && c.Policy == q.Policy {
			continue
		}
		c.Text = q.Text + ", window-start placement (srrm-*-et)"
		out = append(out, c)
	}
	quotes = out
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: seed000-table DIR (the --out folder of gridsched reproduce)")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "seed000-table:", err)
		os.Exit(1)
	}
}

type store struct {
	spec *experiment.Spec
	rows []experiment.Row
}

func load(dir, name string) (*store, error) {
	path := filepath.Join(dir, name, "store.db")
	st, err := experiment.OpenExisting(path)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	s, err := st.StoredSpec()
	if err != nil {
		return nil, err
	}
	rows, err := st.Rows()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &store{spec: s, rows: rows}, nil
}

func run(dir string) error {
	stores := map[string]*store{}
	var names []string
	for _, q := range quotes {
		if _, ok := stores[q.Spec]; !ok {
			s, err := load(dir, q.Spec)
			if errors.Is(err, fs.ErrNotExist) {
				stores[q.Spec] = nil // not run: its rows say so
				continue
			}
			if err != nil {
				return err
			}
			stores[q.Spec] = s
			names = append(names, q.Spec)
		}
	}
	fmt.Printf("| figure | the paper's number | paper | ours (95%% CI) | n | verdict |\n|---|---|---:|---|---:|---|\n")
	for _, q := range quotes {
		st := stores[q.Spec]
		if st == nil {
			fmt.Printf("| %s | %s | %.3g | not run (no %s store) | 0 | |\n", q.Figure, q.Text, q.Paper, q.Spec)
			continue
		}
		r, hw, n, err := q.measure(st.rows)
		if err != nil {
			fmt.Printf("| %s | %s | %.3g | not measured (%v) | %d | |\n", q.Figure, q.Text, q.Paper, err, n)
			continue
		}
		paper, ours := fmt.Sprintf("%.3g", q.Paper), fmt.Sprintf("%.3g [%.3g, %.3g]", r, r-hw, r+hw)
		if q.Num == "" {
			paper = fmt.Sprintf("%+.1f%%", 100*q.Paper)
			ours = fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", 100*(r-1), 100*(r-1-hw), 100*(r-1+hw))
		}
		fmt.Printf("| %s | %s | %s | %s | %d | %s |\n", q.Figure, q.Text, paper, ours, n, q.verdict(r, hw))
	}
	fmt.Printf("\n| experiment | claim (source) | paper | ours | verdict |\n|---|---|---|---|---|\n")
	for _, name := range names {
		st := stores[name]
		aggs := experiment.Aggregate(st.rows, st.spec.Metrics)
		for _, c := range st.spec.Claims {
			v := c.Check(st.spec, aggs)
			verdict := v.Agrees
			fmt.Printf("| %s | %s (%s) | %s | %s | %s |\n", name, cell(c.Claim), c.Source, cell(c.Paper), cell(v.Ours), verdict)
		}
	}
	return nil
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func match(p map[string]string, where map[string]string) bool {
	for k, v := range where {
		if p[k] != v {
			return false
		}
	}
	return true
}

// measure returns the ratio of the means (Num/Den, or To/From) with its
// 95% CI half-width (delta method over replications paired by rep).
func (q quote) measure(rows []experiment.Row) (r, hw float64, n int, err error) {
	a, b := map[int]float64{}, map[int]float64{}
	for _, row := range rows {
		if !match(row.Params, q.Where) {
			continue
		}
		v, ok := row.Metrics[q.Metric]
		if !ok {
			continue
		}
		pol := row.Params["policy"]
		switch {
		case q.Num != "" && pol == q.Num:
			a[row.Rep] = v
		case q.Num != "" && pol == q.Den:
			b[row.Rep] = v
		case q.Num == "" && pol == q.Policy && row.Params[q.X] == q.To:
			a[row.Rep] = v
		case q.Num == "" && pol == q.Policy && row.Params[q.X] == q.From:
			b[row.Rep] = v
		}
	}
	var reps []int
	for rep := range a {
		if _, ok := b[rep]; ok {
			reps = append(reps, rep)
		}
	}
	sort.Ints(reps)
	n = len(reps)
	if n < 2 {
		return 0, 0, n, fmt.Errorf("%d paired replications", n)
	}
	var ma, mb float64
	for _, rep := range reps {
		ma += a[rep]
		mb += b[rep]
	}
	ma /= float64(n)
	mb /= float64(n)
	var va, vb, cov float64
	for _, rep := range reps {
		da, db := a[rep]-ma, b[rep]-mb
		va += da * da
		vb += db * db
		cov += da * db
	}
	d := float64(n - 1)
	va, vb, cov = va/d, vb/d, cov/d
	if mb == 0 {
		return math.Inf(1), math.Inf(1), n, nil
	}
	r = ma / mb
	v := (va/(mb*mb) - 2*ma*cov/(mb*mb*mb) + ma*ma*vb/(mb*mb*mb*mb)) / float64(n)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: d}.Quantile(0.975)
	return r, t * math.Sqrt(max(v, 0)), n, nil
}

func (q quote) verdict(r, hw float64) string {
	ours := r - 1
	paper := q.Paper
	if q.Num != "" {
		paper = q.Paper - 1
	}
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return "not measurable (zero denominator)"
	}
	if paper == 0 && math.Abs(ours) <= 0.05 {
		return "agrees (within 5%)"
	}
	if paper == 0 && math.Abs(ours) <= 0.10 && math.Abs(ours) > hw {
		// the factor-2 rule of the other rows, applied to the paper's bound
		return "near (beyond 5%, within 10%)"
	}
	if math.Abs(ours) <= hw {
		if paper == 0 {
			return "agrees (no change beyond the CI)"
		}
		return "no difference (tie)"
	}
	if paper == 0 {
		return "disagrees (a change beyond the CI)"
	}
	if (ours > 0) != (paper > 0) {
		return "disagrees"
	}
	if k := ours / paper; k >= 0.5 && k <= 2 {
		return "agrees"
	}
	return "same direction, different size"
}
