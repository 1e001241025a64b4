package experiment

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Claim is a statement of a paper that the verdict engine checks against
// our runs: a comparison of two values of one parameter, a trend of a
// metric along the plot's x axis, or a bound on a metric. The rules are
// docs/reproduction/README.md's (the one place they are defined); each has
// a unit test in verdict_test.go.
type Claim struct {
	Claim  string `yaml:"claim" json:"claim"`           // the paper's statement
	Source string `yaml:"source" json:"source"`         // where the paper says it
	Paper  string `yaml:"paper" json:"paper,omitempty"` // the paper's words or numbers
	// Inferred: the paper does not print this; it is inferred from its
	// text (the table says so).
	Inferred bool `yaml:"inferred" json:"inferred,omitempty"`
	// Metric is a metric name, or a list of metrics read as alternative
	// readings of the paper's quantity (the paper's reading first): the
	// claim is then evaluated under each. A name with a leading minus
	// ("-cpe") is that metric negated: the reading of a paper whose
	// definition leaves the sign open (Δ = (A − B)/A or (B − A)/A).
	Metric any `yaml:"metric" json:"metric"`
	// Where restricts the claim to the configurations with these values
	// (a value or a list of values per parameter): a statement about
	// "p = 0.5 and 0.75" is judged there only.
	Where map[string]any `yaml:"where" json:"where,omitempty"`

	// A comparison: Param=Better (the subject) against Param=Worse (the
	// base) at every setting of the other parameters. Expect: "better"
	// (everywhere), "better-when-ample" (losses or ties at small x, then
	// wins to the end of the axis) or "same" (the paper says they do not
	// differ).
	Param         string `yaml:"param" json:"param,omitempty"`
	Better        string `yaml:"better" json:"better,omitempty"`
	Worse         string `yaml:"worse" json:"worse,omitempty"`
	Expect        string `yaml:"expect" json:"expect,omitempty"`
	LowerIsBetter bool   `yaml:"lower_is_better" json:"lower_is_better,omitempty"`
	// Ratio is the paper's subject/base ratio (at x = At if given, else
	// at every point): the size rule compares ours with it. AtOnly: the
	// claim is about the point At only (its statement names one x: "0.684
	// at σ = 0.4"); the other points are shown, not judged. Without it a
	// general statement ("far below") is judged at every point, its size
	// at At.
	Ratio  float64 `yaml:"ratio" json:"ratio,omitempty"`
	At     any     `yaml:"at" json:"at,omitempty"`
	AtOnly bool    `yaml:"at_only" json:"at_only,omitempty"`

	// A trend along plot.x: increasing, decreasing or flat, judged per
	// series; Series lists the series the claim covers (policy values,
	// or param=value terms; default every series). Change is the
	// paper's relative change from the first to the last x of the
	// claim's range (the size rule). From and To bound
	// that range (x values; default the axis' ends): "a small rise from 5
	// to 10, then a steady fall" is a decreasing trend from 10; the points
	// outside are shown, not judged.
	Trend  string   `yaml:"trend" json:"trend,omitempty"`
	Series []string `yaml:"series" json:"series,omitempty"`
	Change *float64 `yaml:"change" json:"change,omitempty"`
	From   any      `yaml:"from" json:"from,omitempty"`
	To     any      `yaml:"to" json:"to,omitempty"`

	// A bound: the metric is at most AtMost (a KS statistic against its
	// critical value), at least AtLeast, or both (within [AtLeast,
	// AtMost]) at every configuration, or at the paper's Share of them
	// ("negative in 43 of 48 cells": share 0.8958).
	AtMost  *float64 `yaml:"at_most" json:"at_most,omitempty"`
	AtLeast *float64 `yaml:"at_least" json:"at_least,omitempty"`
	Share   *float64 `yaml:"share" json:"share,omitempty" range:"(0,1]"`

	// Floor is the practical-significance floor: a relative effect below
	// it is negligible, never a win (default DefaultFloor).
	Floor *float64 `yaml:"floor" json:"floor,omitempty" range:"[0,1)"`
	// AbsFloor is an absolute floor in the metric's unit: a difference
	// whose CI lies within ±AbsFloor is negligible whatever its relative
	// size (a metric that can be 0, where a floating-point crumb against
	// a zero base is +100%). Default 0.
	AbsFloor *float64 `yaml:"abs_floor" json:"abs_floor,omitempty" range:"[0,]"`
	// By: the claim is evaluated per value of this parameter (trace
	// windows, say), and the row gives the distribution of the verdicts.
	By string `yaml:"by" json:"by,omitempty"`
	// Size: the size the paper's words give the effect, for claims
	// without a number: "slight" (略, 稍: every point's relative effect at
	// most SlightEffect) or "large" (远远, 大大, 明显: at least LargeEffect).
	Size string `yaml:"size" json:"size,omitempty"`
	// Note explains the verdict (written after looking at results).
	Note string `yaml:"note" json:"note,omitempty"`
}

// Reading names a parameter of the sweep that encodes a reading of the
// paper (where its text leaves a choice): every claim is evaluated under
// each of its values, the paper's first.
type Reading struct {
	Param  string `yaml:"param" json:"param"`
	Paper  any    `yaml:"paper" json:"paper,omitempty"` // the value closest to the paper's text (default: the first swept)
	Source string `yaml:"source" json:"source,omitempty"`
}

// DefaultFloor is the practical-significance floor of a claim that sets
// none: a relative effect below 1% is negligible.
const DefaultFloor = 0.01

// The bounds of the worded sizes (Claim.Size) on the relative effect:
// "slight" is at most 20%, "large" at least 50%.
const (
	SlightEffect = 0.20
	LargeEffect  = 0.50
)

// SizeFactor bounds the size rule: our log-ratio ln r is of the paper's
// size when ln r / ln R lies in [1/SizeFactor, SizeFactor].
const SizeFactor = 2.0

// Verdict classes.
const (
	Agrees        = "agrees"
	DifferentSize = "same direction, different size"
	Partly        = "partly"
	Negligible    = "negligible"
	NoDifference  = "no difference detected"
	Disagrees     = "disagrees"
	NotEnough     = "not enough replications"
	NotRun        = "not run at this scale"
)

// metrics are the claim's metrics: one, or its metric readings.
func (c *Claim) metrics() []string {
	switch m := c.Metric.(type) {
	case string:
		return []string{m}
	case []any:
		out := make([]string, 0, len(m))
		for _, v := range m {
			out = append(out, fmt.Sprint(v))
		}
		return out
	case []string:
		return m
	}
	return nil
}

// MetricNames lists the claim's metrics (the paper's reading first).
func (c *Claim) MetricNames() []string { return c.metrics() }

func (c *Claim) floor() float64 {
	if c.Floor != nil {
		return *c.Floor
	}
	return DefaultFloor
}

// kind is "compare", "trend" or "bound".
func (c *Claim) kind() string {
	switch {
	case c.AtMost != nil || c.AtLeast != nil:
		return "bound"
	case c.Trend != "":
		return "trend"
	}
	return "compare"
}

// validate checks the claim against the spec; every error is reported
// at the offending key (path is "claims[i]").
func (c *Claim) validate(s *Spec, path string, bad func(path, format string, args ...any)) {
	ms := c.metrics()
	switch {
	case c.Metric == nil:
		bad(path, "name the claim's metric")
	case len(ms) == 0:
		bad(path+".metric", "want a metric name or a list of metric names")
	}
	seen := map[string]bool{}
	for _, m := range ms {
		p := path + ".metric"
		if !s.isMetric(strings.TrimPrefix(m, "-")) {
			bad(p, "unknown metric %q (known: %s)", m, strings.Join(MetricNames(), ", "))
		}
		if seen[m] {
			bad(p, "metric %q is listed twice", m)
		}
		seen[m] = true
	}
	kinds := 0
	for _, k := range []bool{c.Trend != "", c.Param != "" || c.Better != "" || c.Worse != "", c.AtMost != nil || c.AtLeast != nil} {
		if k {
			kinds++
		}
	}
	if kinds != 1 {
		bad(path, "a claim is a comparison (param, better, worse), a trend (trend) or a bound (at_most, at_least): give exactly one")
		return
	}
	x := xOf(s)
	switch c.kind() {
	case "trend":
		if c.Trend != "increasing" && c.Trend != "decreasing" && c.Trend != "flat" {
			bad(path+".trend", "want increasing, decreasing or flat, got %q", c.Trend)
		}
		if x == "" {
			bad(path+".trend", "a trend needs an x axis (plot.x or a grid parameter)")
		}
		for i, term := range c.Series {
			if err := s.checkSeriesTerm(term); err != nil {
				bad(fmt.Sprintf("%s.series[%d]", path, i), "%v", err)
			}
		}
		if c.Change != nil && (*c.Change <= -1 || math.IsNaN(*c.Change) || math.IsInf(*c.Change, 0)) {
			bad(path+".change", "the paper's relative change must be a finite number above -1, got %g", *c.Change)
		}
		if c.Change != nil && c.Trend == "flat" {
			bad(path+".change", "a flat trend has no change to compare")
		}
		if c.Change != nil && (c.Trend == "decreasing" && *c.Change >= 0 || c.Trend == "increasing" && *c.Change <= 0) {
			bad(path+".change", "the paper's change %s goes against the claim's trend (%s): check the sign", signed(*c.Change), c.Trend)
		}
		c.validateRange(s, x, path, bad)
	case "compare":
		if c.Param == "" {
			bad(path, "a comparison needs param (the parameter whose values are compared)")
			break
		}
		vals, swept := s.sweptValues(c.Param)
		if !swept {
			bad(path+".param", "%q is not a swept parameter of this experiment (swept: %s)", c.Param, strings.Join(s.sweptParams(), ", "))
			break
		}
		for _, f := range []struct{ key, v string }{{"better", c.Better}, {"worse", c.Worse}} {
			switch {
			case f.v == "":
				bad(path, "a comparison needs %s (a value of %s)", f.key, c.Param)
			case !hasValue(vals, f.v):
				bad(path+"."+f.key, "%q is not a value of %s in the sweep (values: %s)", f.v, c.Param, strings.Join(vals, ", "))
			}
		}
		if c.Better != "" && c.Better == c.Worse {
			bad(path+".worse", "better and worse are the same value %q", c.Better)
		}
		switch c.Expect {
		case "better", "same":
		case "better-when-ample":
			if x == "" {
				bad(path+".expect", "better-when-ample needs an x axis (plot.x or a grid parameter)")
			}
		default:
			bad(path+".expect", "want better, better-when-ample or same, got %q", c.Expect)
		}
		switch {
		case c.Ratio < 0 || math.IsNaN(c.Ratio) || math.IsInf(c.Ratio, 0):
			bad(path+".ratio", "the paper's ratio must be a positive number, got %g", c.Ratio)
		case c.Ratio > 0 && c.Expect == "same":
			bad(path+".ratio", "a claim of no difference (expect: same) has no ratio to compare; set floor: to the paper's tolerance")
		case c.Ratio > 0 && c.LowerIsBetter && c.Ratio >= 1:
			bad(path+".ratio", "the paper's ratio %s/%s = %g is not below 1, but the claim says %s is better with lower values (lower_is_better): check the ratio's direction (subject/base)", c.Better, c.Worse, c.Ratio, c.Better)
		case c.Ratio > 0 && !c.LowerIsBetter && c.Ratio <= 1:
			bad(path+".ratio", "the paper's ratio %s/%s = %g is not above 1, but the claim says %s is better with higher values (no lower_is_better): check the ratio's direction (subject/base)", c.Better, c.Worse, c.Ratio, c.Better)
		}
		switch {
		case c.AtOnly && c.At == nil:
			bad(path+".at_only", "a claim about one point names it: at_only needs at: (an x value)")
		case c.AtOnly && c.Expect == "better-when-ample":
			bad(path+".at_only", "better-when-ample is judged along the whole x axis: a claim about one point (at_only) expects better or same")
		}
		for _, sw := range s.sweeps() {
			if why := ambiguousPairing(sw.Zip, c); why != "" {
				bad(path+".param", "ambiguous pairing: %s", why)
				break
			}
		}
		if c.At != nil {
			xs, ok := s.sweptValues(x)
			if !ok || !hasValue(xs, FormatValue(c.At)) {
				bad(path+".at", "%s is not a value of the x axis %s (values: %s)", FormatValue(c.At), x, strings.Join(xs, ", "))
			}
		}
	case "bound":
		for _, b := range []struct {
			key string
			v   *float64
		}{{"at_most", c.AtMost}, {"at_least", c.AtLeast}} {
			if b.v != nil && (math.IsNaN(*b.v) || math.IsInf(*b.v, 0)) {
				bad(path+"."+b.key, "want a finite bound, got %g", *b.v)
			}
		}
		if c.AtMost != nil && c.AtLeast != nil && *c.AtLeast >= *c.AtMost {
			bad(path+".at_least", "the bounds leave nothing between them: at_least %g is not below at_most %g", *c.AtLeast, *c.AtMost)
		}
	}
	if c.kind() != "bound" && c.Share != nil {
		bad(path+".share", "share belongs to bounds (at_most, at_least)")
	}
	c.validateWhere(s, x, path, bad)
	if c.kind() != "compare" && (c.Ratio != 0 || c.At != nil || c.AtOnly || c.Expect != "" || c.LowerIsBetter) {
		bad(path, "ratio, at, at_only, expect and lower_is_better belong to comparisons")
	}
	if c.kind() != "trend" && (len(c.Series) > 0 || c.Change != nil || c.From != nil || c.To != nil) {
		bad(path, "series, change, from and to belong to trends")
	}
	if c.By != "" {
		if _, ok := s.sweptValues(c.By); !ok {
			bad(path+".by", "%q is not a swept parameter of this experiment (swept: %s)", c.By, strings.Join(s.sweptParams(), ", "))
		} else if c.By == c.Param || c.By == x && c.kind() != "compare" {
			bad(path+".by", "%q is already the claim's compared parameter or its x axis", c.By)
		}
	}
	switch c.Size {
	case "", "slight", "large":
	default:
		bad(path+".size", "want slight or large, got %q", c.Size)
	}
}

// validateWhere checks a claim's where: swept parameters and their
// values, none that the claim compares, trends along or reads (a
// reading is evaluated under each of its values).
func (c *Claim) validateWhere(s *Spec, x, path string, bad func(path, format string, args ...any)) {
	for _, k := range sortedKeys(c.Where) {
		p := path + ".where." + k
		vals, ok := s.sweptValues(k)
		switch {
		case !ok:
			bad(p, "%q is not a swept parameter of this experiment (swept: %s)", k, strings.Join(s.sweptParams(), ", "))
			continue
		case c.Param != "" && zipPartners(s, c.Param)[k]:
			bad(p, "%q is the claim's compared parameter or moves with it: restrict the other parameters", k)
			continue
		case k == x && c.kind() == "trend":
			bad(p, "%q is the trend's x axis: bound its range with from and to", k)
			continue
		case s.isReading(k):
			bad(p, "%q is a reading: the claim is evaluated under each of its values", k)
			continue
		}
		ws := whereValues(c.Where[k])
		if len(ws) == 0 {
			bad(p, "give a value or a list of values of %s", k)
		}
		for _, w := range ws {
			if !hasValue(vals, w) {
				bad(p, "%s is not a value of %s in the sweep (values: %s)", w, k, strings.Join(vals, ", "))
			}
		}
	}
}

// whereValues are a where entry's values, formatted: one value or a
// list.
func whereValues(v any) []string {
	if vs, ok := v.([]any); ok {
		out := make([]string, len(vs))
		for i, w := range vs {
			out[i] = FormatValue(w)
		}
		return out
	}
	if v == nil {
		return nil
	}
	return []string{FormatValue(v)}
}

// isReading reports whether param is one of the spec's readings.
func (s *Spec) isReading(param string) bool {
	return slices.ContainsFunc(s.Readings, func(r Reading) bool { return r.Param == param })
}

// selects reports whether a configuration has the claim's where values
// (true without a where).
func (c *Claim) selects(p map[string]string) bool {
	for k, v := range c.Where {
		if !hasValue(whereValues(v), p[k]) {
			return false
		}
	}
	return true
}

// validateRange checks a trend's from and to: values of the x axis, from
// before to.
func (c *Claim) validateRange(s *Spec, x, path string, bad func(path, format string, args ...any)) {
	if x == "" || c.From == nil && c.To == nil {
		return
	}
	xs, _ := s.sweptValues(x)
	ok := true
	for _, f := range []struct {
		key string
		v   any
	}{{"from", c.From}, {"to", c.To}} {
		if f.v != nil && !hasValue(xs, FormatValue(f.v)) {
			bad(path+"."+f.key, "%s is not a value of the x axis %s (values: %s)", FormatValue(f.v), x, strings.Join(xs, ", "))
			ok = false
		}
	}
	if !ok {
		return
	}
	ord := xOrder{numeric: true, xs: xs}
	for _, v := range xs {
		ord.numeric = ord.numeric && !math.IsNaN(parseNum(v))
	}
	lo, hi := ord.bounds(c)
	if ord.pos(lo) >= ord.pos(hi) {
		bad(path+".to", "the claim's range %s→%s along %s is empty: from must come before to", lo, hi, x)
	}
}

// validateReadings checks the spec's readings: swept parameters, the
// paper's value among their values.
func (s *Spec) validateReadings(bad func(path, format string, args ...any)) {
	seen := map[string]bool{}
	for i, r := range s.Readings {
		path := fmt.Sprintf("readings[%d]", i)
		vals, ok := s.sweptValues(r.Param)
		switch {
		case r.Param == "":
			bad(path, "name the parameter that encodes the reading (param)")
			continue
		case !ok:
			bad(path+".param", "%q is not a swept parameter of this experiment (swept: %s)", r.Param, strings.Join(s.sweptParams(), ", "))
			continue
		case seen[r.Param]:
			bad(path+".param", "%q is listed twice", r.Param)
		}
		seen[r.Param] = true
		if r.Paper != nil && !hasValue(vals, FormatValue(r.Paper)) {
			bad(path+".paper", "%s is not a value of %s in the sweep (values: %s)", FormatValue(r.Paper), r.Param, strings.Join(vals, ", "))
		}
	}
}

// checkSeriesTerm checks a trend's series term: a policy of the sweep,
// or param=value with a swept parameter and one of its values.
func (s *Spec) checkSeriesTerm(term string) error {
	k, v, eq := strings.Cut(term, "=")
	if !eq {
		k, v = "policy", term
	}
	vals, ok := s.sweptValues(k)
	if !ok {
		return fmt.Errorf("%q is not a swept parameter of this experiment (swept: %s)", k, strings.Join(s.sweptParams(), ", "))
	}
	if !hasValue(vals, v) {
		if !eq {
			return fmt.Errorf("%q is not a policy of the sweep (policies: %s); name other series as param=value", v, strings.Join(vals, ", "))
		}
		return fmt.Errorf("%q is not a value of %s in the sweep (values: %s)", v, k, strings.Join(vals, ", "))
	}
	return nil
}

// sweeps are the sweeps a spec may run: the one applied, the spec's own
// (before its label) and every label's.
func (s *Spec) sweeps() []Labels {
	out := []Labels{{Grid: s.Grid, Zip: s.Zip, Policies: s.Policies}}
	if s.unlabelled != nil {
		out = append(out, *s.unlabelled)
	}
	for _, k := range sortedKeys(s.Labels) {
		l := s.Labels[k]
		out = append(out, Labels{Grid: l.Grid, Zip: l.Zip, Policies: l.Policies})
	}
	return out
}

// sweptValues is every value param takes in any sweep of the spec (see
// sweeps), formatted, in order of first appearance; false if no sweep
// varies it. A value swept at another label than the one applied is
// valid in a claim, which is then "not run at this scale".
func (s *Spec) sweptValues(param string) ([]string, bool) {
	var out []string
	found := false
	add := func(vs []any) {
		found = true
		for _, v := range vs {
			if f := FormatValue(v); !hasValue(out, f) {
				out = append(out, f)
			}
		}
	}
	for _, sw := range s.sweeps() {
		if vs, ok := sw.Grid[param]; ok {
			add(vs)
		}
		if vs, ok := sw.Zip[param]; ok {
			add(vs)
		}
		if param == "policy" && sw.Grid["policy"] == nil && sw.Zip["policy"] == nil && len(sw.Policies) > 0 {
			ps := make([]any, len(sw.Policies))
			for i, p := range sw.Policies {
				ps[i] = p
			}
			add(ps)
		}
	}
	return out, found
}

// sweptParams lists the parameters some sweep of the spec varies.
func (s *Spec) sweptParams() []string {
	set := map[string]bool{}
	for _, sw := range s.sweeps() {
		for k := range sw.Grid {
			set[k] = true
		}
		for k := range sw.Zip {
			set[k] = true
		}
		if len(sw.Policies) > 0 {
			set["policy"] = true
		}
	}
	return sortedKeys(set)
}

// hasValue: v is among vals (numbers compare as numbers: 4 is 4.0).
func hasValue(vals []string, v string) bool {
	return slices.ContainsFunc(vals, func(w string) bool { return sameValue(w, v) })
}

func xOf(s *Spec) string {
	if s.Plot.X != "" {
		return s.Plot.X
	}
	if ks := sortedKeys(s.Grid); len(ks) > 0 {
		return ks[0]
	}
	if ks := sortedKeys(s.Zip); len(ks) > 0 {
		return ks[0]
	}
	return ""
}

func parseNum(s string) float64 {
	var v float64
	if _, err := fmt.Sscan(s, &v); err != nil {
		return math.NaN()
	}
	return v
}

// splitPartners are the text-valued zip partners of the x axis whose
// every value keeps two or more x values (sizes zipped with traces, each
// trace with its own sizes): such a partner splits the axis into separate
// lines or panels instead of riding on it, so no line or comparison mixes
// its values (figures 8–9 must not join SDSC-Par at 25 nodes to
// SDSC-BLUE at 100, nor a claim compare u on one trace with random on
// another). Numeric partners that move with x stay on the axis.
func splitPartners(s *Spec, x string) map[string]bool {
	out := map[string]bool{}
	xs := s.Zip[x]
	if xs == nil {
		return out
	}
	for k, vs := range s.Zip {
		if k == x {
			continue
		}
		text := false
		for _, v := range vs {
			if _, isText := v.(string); isText && math.IsNaN(parseNum(FormatValue(v))) {
				text = true
				break
			}
		}
		if !text {
			continue
		}
		// Split only where every value keeps a line: at least two x values
		// each (a zip of one-off readings, like cloud-gang-rules' rows,
		// stays on the axis rather than making one-point panels).
		xsOf := map[string]map[string]bool{}
		for i, v := range vs {
			f := FormatValue(v)
			if xsOf[f] == nil {
				xsOf[f] = map[string]bool{}
			}
			if i < len(xs) {
				xsOf[f][FormatValue(xs[i])] = true
			}
		}
		lines := true
		for _, set := range xsOf {
			lines = lines && len(set) >= 2
		}
		if lines {
			out[k] = true
		}
	}
	return out
}

// onAxis are the parameters that ride on the x axis: x and its zip
// partners that do not split it.
func onAxis(s *Spec) map[string]bool {
	x := xOf(s)
	out := map[string]bool{}
	if x == "" {
		return out
	}
	out[x] = true
	if s.Zip[x] != nil {
		split := splitPartners(s, x)
		// A partner the plot names as a series or a panel leaves the axis
		// too, numeric or not (seed 003's figures: each q with its own λ).
		for _, k := range append(append([]string(nil), s.Plot.Series...), s.Plot.Panels...) {
			split[k] = true
		}
		for k := range s.Zip {
			out[k] = k == x || !split[k]
		}
	}
	return out
}

// zipPartners are the parameters zipped with k (k included), or k alone.
func zipPartners(s *Spec, k string) map[string]bool {
	out := map[string]bool{k: true}
	if s.Zip[k] != nil {
		for p := range s.Zip {
			out[p] = true
		}
	}
	return out
}

// sortedByFirst sorts vals by their position in order (unknown last).
func sortedByFirst(vals, order []string) {
	pos := func(v string) int {
		for i, o := range order {
			if sameValue(o, v) {
				return i
			}
		}
		return len(order)
	}
	sort.SliceStable(vals, func(i, j int) bool { return pos(vals[i]) < pos(vals[j]) })
}
