package experiment

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ClaimResult is a claim's verdict under each combination of readings
// (the paper's first) and their combination in one line.
type ClaimResult struct {
	Claim    *Claim
	Outcomes []Outcome
	Verdict  string // "agrees", or "agrees under A; disagrees under B"
}

// Outcome is a claim's result under one combination of readings.
type Outcome struct {
	Reading string // "u_update=all, metric=makespan"; "" without readings
	Class   string // the verdict class (Mixed: a by-claim whose values differ)
	Verdict string // the class, or a by-claim's distribution of classes
	Ours    string // what our runs show, in a few words
	Effect  string // the relative effects (subject − base)/|base|, with 95% CIs
	Test    string // the intervals used: paired t or Welch
	Details []string
}

// Mixed is the class of a by-claim whose values have different verdicts.
const Mixed = "mixed"

// Evaluate applies the verdict rules to claim c of spec s on data.
func Evaluate(s *Spec, c *Claim, data Data) ClaimResult {
	res := ClaimResult{Claim: c}
	configs := data.Configs()
	for _, combo := range readingCombos(s, c, configs) {
		sub := combo.filter(configs)
		var o Outcome
		switch {
		case len(sub) == 0:
			o = Outcome{Class: NotRun, Verdict: NotRun, Ours: "no run", Effect: "–", Test: "–"}
		case c.By != "":
			o = evalBy(s, c, sub, combo.metric, data)
		default:
			o = evalOne(s, c, sub, combo.metric, data)
		}
		o.Reading = combo.label
		res.Outcomes = append(res.Outcomes, o)
	}
	res.Verdict = combine(res.Outcomes)
	return res
}

// combo is one combination of reading values (and a metric reading).
type combo struct {
	label  string
	metric string
	where  map[string]string
}

func (cb combo) filter(configs []DataConfig) []DataConfig {
	var out []DataConfig
	for _, cf := range configs {
		ok := true
		for k, v := range cb.where {
			if !sameValue(cf.Params[k], v) {
				ok = false
			}
		}
		if ok {
			out = append(out, cf)
		}
	}
	return out
}

// readingCombos are the combinations of the claim's readings: the
// spec's readings that the claim does not compare, trend along or split
// by, and that the runs vary (each value of the full sweep, the paper's
// first: a value not run at this label gives "not run at this scale"),
// times the claim's metric readings.
func readingCombos(s *Spec, c *Claim, configs []DataConfig) []combo {
	type axis struct {
		name   string
		param  string // "" for the metric axis
		values []string
	}
	var axes []axis
	ms := c.metrics()
	if len(ms) > 1 {
		axes = append(axes, axis{name: "metric", values: ms})
	}
	axisOf := onAxis(s)
	for _, r := range s.Readings {
		if c.Param != "" && zipPartners(s, c.Param)[r.Param] || r.Param == c.By || axisOf[r.Param] && (c.kind() == "trend" || c.Expect == "better-when-ample") {
			continue
		}
		present := false
		for _, cf := range configs {
			_, ok := cf.Params[r.Param]
			present = present || ok
		}
		if !present {
			continue
		}
		vals, _ := s.sweptValues(r.Param)
		vals = append([]string(nil), vals...)
		if r.Paper != nil {
			p := FormatValue(r.Paper)
			sortedByFirst(vals, []string{p})
		}
		axes = append(axes, axis{name: lastPart(r.Param), param: r.Param, values: vals})
	}
	out := []combo{{metric: ms[0], where: map[string]string{}}}
	for _, ax := range axes {
		var next []combo
		for _, cb := range out {
			for _, v := range ax.values {
				n := combo{metric: cb.metric, where: map[string]string{}}
				for k, w := range cb.where {
					n.where[k] = w
				}
				if ax.param == "" {
					n.metric = v
				} else {
					n.where[ax.param] = v
				}
				term := ax.name + "=" + shortName(v)
				n.label = strings.TrimPrefix(cb.label+", "+term, ", ")
				next = append(next, n)
			}
		}
		out = next
	}
	return out
}

// lastPart is a dotted parameter's last name: instability.u_update is
// u_update.
func lastPart(k string) string {
	if i := strings.LastIndex(k, "."); i >= 0 {
		return k[i+1:]
	}
	return k
}

// evalBy evaluates the claim per value of its By parameter and gives
// the distribution of the verdicts.
func evalBy(s *Spec, c *Claim, configs []DataConfig, metric string, data Data) Outcome {
	vals, _ := s.sweptValues(c.By)
	counts := map[string]int{}
	var classes []string
	var ours, effects, tests, details []string
	n := 0
	for _, v := range vals {
		var sub []DataConfig
		for _, cf := range configs {
			if sameValue(cf.Params[c.By], v) {
				sub = append(sub, cf)
			}
		}
		if len(sub) == 0 {
			continue
		}
		o := evalOne(s, c, sub, metric, data)
		n++
		if counts[o.Class] == 0 {
			classes = append(classes, o.Class)
		}
		counts[o.Class]++
		name := lastPart(c.By) + "=" + shortName(v)
		ours = append(ours, name+": "+o.Ours)
		effects = append(effects, name+": "+o.Effect)
		tests = append(tests, o.Test)
		details = append(details, name+": "+o.Class)
		for _, d := range o.Details {
			details = append(details, "  "+d)
		}
	}
	if n == 0 {
		return Outcome{Class: NotRun, Verdict: NotRun, Ours: "no run", Effect: "–", Test: "–"}
	}
	o := Outcome{Ours: strings.Join(ours, "; "), Effect: strings.Join(effects, "; "), Test: joinTests(tests), Details: details}
	if len(classes) == 1 {
		o.Class = classes[0]
		o.Verdict = fmt.Sprintf("%s (%d of %d %s values)", classes[0], n, n, lastPart(c.By))
		return o
	}
	// The distribution, most frequent first (ties in the classes' order).
	sort.SliceStable(classes, func(i, j int) bool { return counts[classes[i]] > counts[classes[j]] })
	parts := make([]string, len(classes))
	for i, cl := range classes {
		parts[i] = fmt.Sprintf("%s in %d", cl, counts[cl])
		if i == 0 {
			parts[i] += fmt.Sprintf(" of %d %s values", n, lastPart(c.By))
		}
	}
	o.Class = Mixed
	o.Verdict = strings.Join(parts, ", ")
	return o
}

// evalOne evaluates the claim on configs (one reading, one by value).
func evalOne(s *Spec, c *Claim, configs []DataConfig, metric string, data Data) Outcome {
	switch c.kind() {
	case "bound":
		return evalBound(c, configs, metric, data)
	case "trend":
		return evalTrend(s, c, configs, metric, data)
	}
	return evalCompare(s, c, configs, metric, data)
}

// Point classes.
const (
	win        = "win"
	loss       = "loss"
	tie        = "tie"
	negligible = "negligible"
	noCI       = "no CI"
	within     = "within the floor"
	differs    = "differs"
)

// classify classifies a difference in the direction want (+1: the
// subject should be higher, −1: lower): a win or a loss needs the
// difference beyond its 95% CI and a relative effect of at least floor;
// beyond the CI but below the floor it is negligible; else a tie.
func classify(x diff, floor float64, want int) string {
	if math.IsNaN(x.h) {
		return noCI
	}
	e, _ := x.rel()
	o := float64(want) * x.d
	small := !math.IsNaN(e) && math.Abs(e) < floor
	switch {
	case math.Abs(o) <= x.h:
		return tie
	case small:
		return negligible
	case o > 0:
		return win
	}
	return loss
}

// classifySame classifies a difference for a claim of no difference:
// within the floor (its whole relative CI), differs (beyond the CI and
// the floor), or a tie that the CI cannot settle.
func classifySame(x diff, floor float64) string {
	if math.IsNaN(x.h) {
		return noCI
	}
	e, h := x.rel()
	switch cl := classify(x, floor, 1); {
	case !math.IsNaN(e) && math.Abs(e)+h <= floor:
		return within
	case cl == win || cl == loss:
		return differs
	}
	return tie
}

// point is one comparison of the claim.
type point struct {
	series  string // the setting of the parameters other than x
	setting string // the setting of every parameter but the compared one
	x       string
	d       diff
	class   string
}

// keyExcept names a configuration by its parameters outside skip.
func keyExcept(p map[string]string, skip map[string]bool) string {
	var parts []string
	for _, k := range sortedKeys(p) {
		if !skip[k] {
			parts = append(parts, shortName(k)+"="+shortName(p[k]))
		}
	}
	return strings.Join(parts, ", ")
}

func evalCompare(s *Spec, c *Claim, configs []DataConfig, metric string, data Data) Outcome {
	partners := zipPartners(s, c.Param)
	axis := onAxis(s)
	x := xOf(s)
	base := map[string]DataConfig{}
	for _, cf := range configs {
		if sameValue(cf.Params[c.Param], c.Worse) {
			base[keyExcept(cf.Params, partners)] = cf
		}
	}
	want := 1
	if c.LowerIsBetter {
		want = -1
	}
	floor := c.floor()
	var pts []point
	for _, cf := range configs {
		if !sameValue(cf.Params[c.Param], c.Better) {
			continue
		}
		b, ok := base[keyExcept(cf.Params, partners)]
		if !ok {
			continue
		}
		d := compareAt(data, cf.Index, b.Index, metric)
		if !d.present {
			continue
		}
		skip := map[string]bool{}
		for k := range partners {
			skip[k] = true
		}
		for k := range axis {
			skip[k] = axis[k]
		}
		p := point{series: keyExcept(cf.Params, skip), setting: keyExcept(cf.Params, partners), x: cf.Params[x], d: d}
		if c.Expect == "same" {
			p.class = classifySame(d, floor)
		} else {
			p.class = classify(d, floor, want)
		}
		pts = append(pts, p)
	}
	o := Outcome{Test: testsOf(pts)}
	if len(pts) == 0 {
		return Outcome{Class: NotRun, Verdict: NotRun, Ours: "no run of both values", Effect: "–", Test: "–"}
	}
	count := map[string]int{}
	var effs []float64
	for _, p := range pts {
		count[p.class]++
		e, _ := p.d.rel()
		effs = append(effs, e)
		o.Details = append(o.Details, fmt.Sprintf("%s: %s %s vs %s %s, %s (%s): %s", orDefault(p.setting, "every setting"),
			shortName(c.Better), num(p.d.a), shortName(c.Worse), num(p.d.b), pctCI(p.d), p.d.test(), p.class))
	}
	o.Effect = effectRange(effs, pts)
	n := len(pts)
	if c.Expect == "same" {
		o.Ours = fmt.Sprintf("%d within ±%s, %d differ, %d undetermined", count[within], pct(floor), count[differs], count[tie])
		o.Class = sameVerdict(count, n)
		o.Verdict = o.Class
		return o
	}
	o.Ours = fmt.Sprintf("%d %s, %d %s, %d %s", count[win], plural(count[win], "win", "wins"), count[tie], plural(count[tie], "tie", "ties"), count[loss], plural(count[loss], "loss", "losses"))
	if count[negligible] > 0 {
		o.Ours += fmt.Sprintf(", %d negligible (below %s)", count[negligible], pct(floor))
	}
	if count[noCI] > 0 {
		o.Ours += fmt.Sprintf(", %d without a CI (one replication)", count[noCI])
	}
	ratios, sized := c.ratiosAt(pts)
	switch {
	case c.Ratio > 0 && len(ratios) > 0:
		o.Ours += fmt.Sprintf("; ratio %s (paper %s)", rangeOf(ratios, "%.3g"), strconv.FormatFloat(c.Ratio, 'g', -1, 64))
	case c.Ratio > 0:
		o.Ours += "; no run at the paper's point: its ratio not judged"
	}
	wins, losses := count[win], count[loss]
	switch {
	case count[noCI] > 0:
		o.Class = NotEnough
	case c.Expect == "better-when-ample":
		o.Class = ampleVerdict(pts, wins, losses, count[negligible])
	case losses > 0:
		o.Class = Disagrees
	case wins == n:
		o.Class = Agrees
	case wins > 0:
		o.Class = Partly
	case count[negligible] > 0 && count[tie] == 0:
		o.Class = Negligible
	default:
		o.Class = NoDifference
	}
	if o.Class == Agrees {
		if !sized {
			o.Class = DifferentSize
		} else if w := c.worded(effs); w != "" {
			o.Class = DifferentSize
			o.Ours += "; " + w
		}
	}
	o.Verdict = o.Class
	return o
}

// sameVerdict is the verdict of a claim of no difference over n points
// (or series) classified by classifySame.
func sameVerdict(count map[string]int, n int) string {
	switch {
	case count[noCI] > 0:
		return NotEnough
	case count[differs] > 0:
		return Disagrees
	case count[within] == n:
		return Agrees
	}
	return NoDifference
}

// ampleVerdict: every series reads losses or ties while resources are
// scarce, then only wins to the end of the axis, (L|T)* W+; a series
// that ends in a loss, or no win at all, disagrees.
func ampleVerdict(pts []point, wins, losses, negl int) string {
	var order []string
	pattern := map[string][]point{}
	for _, p := range pts {
		if _, ok := pattern[p.series]; !ok {
			order = append(order, p.series)
		}
		pattern[p.series] = append(pattern[p.series], p)
	}
	good, lossAtEnd := 0, 0
	for _, k := range order {
		ps := pattern[k]
		sortByX(ps)
		var b strings.Builder
		for _, p := range ps {
			switch p.class {
			case win:
				b.WriteByte('W')
			case loss:
				b.WriteByte('L')
			default:
				b.WriteByte('T')
			}
		}
		pat := b.String()
		if t := strings.TrimLeft(pat, "LT"); t != "" && strings.Trim(t, "W") == "" {
			good++
		}
		if strings.HasSuffix(pat, "L") {
			lossAtEnd++
		}
	}
	switch {
	case wins+losses == 0 && negl > 0:
		return Negligible
	case wins+losses == 0:
		return NoDifference
	case good == len(order):
		return Agrees
	case lossAtEnd > 0 || wins == 0:
		return Disagrees
	}
	return Partly
}

// sortByX orders points by x, numerically when every x is a number.
func sortByX(ps []point) {
	numeric := true
	for _, p := range ps {
		numeric = numeric && !math.IsNaN(parseNum(p.x))
	}
	if numeric {
		sort.SliceStable(ps, func(i, j int) bool { return parseNum(ps[i].x) < parseNum(ps[j].x) })
	}
}

// ratiosAt are our subject/base ratios where the paper gives its ratio
// (at x = At, else every point), and whether each is of the paper's size
// (the size rule; true when the claim gives no ratio).
func (c *Claim) ratiosAt(pts []point) ([]float64, bool) {
	var out []float64
	ok := true
	for _, p := range pts {
		if c.At != nil && !sameValue(p.x, FormatValue(c.At)) {
			continue
		}
		r := p.d.ratio()
		if math.IsNaN(r) {
			continue
		}
		out = append(out, r)
		if c.Ratio > 0 && !SameSize(r, c.Ratio) {
			ok = false
		}
	}
	return out, ok
}

// SameSize is the size rule: our ratio r (subject/base, or last/first)
// is of the paper's size R when ln r / ln R lies within [1/SizeFactor,
// SizeFactor]: what remains is compared on a log scale, so −99.9%
// (r = 0.001) against the paper's −66.7% (R = 0.333) is a different
// size; nothing left (r = 0) is the paper's size only if the paper keeps
// nothing either. R = 1 (no change) or a negative ratio cannot be judged:
// true.
func SameSize(r, R float64) bool {
	switch {
	case !(r >= 0) || !(R >= 0) || R == 1:
		return true
	case r == 0 || R == 0:
		return r == R // nothing remains against something: never the same size
	}
	q := math.Log(r) / math.Log(R)
	return q >= 1/SizeFactor && q <= SizeFactor
}

// worded checks the size the paper's words give (Claim.Size) against
// the mean relative effect: "" when it fits, else why not.
func (c *Claim) worded(effs []float64) string {
	if c.Size == "" {
		return ""
	}
	m, n := 0.0, 0
	for _, e := range effs {
		if !math.IsNaN(e) {
			m += math.Abs(e)
			n++
		}
	}
	if n == 0 {
		return ""
	}
	m /= float64(n)
	if (c.Size == "slight" && m > SlightEffect) || (c.Size == "large" && m < LargeEffect) {
		return fmt.Sprintf("the paper says %s, ours %.0f%% on average", c.Size, 100*m)
	}
	return ""
}

// seriesResult is one series of a trend: its first and last x, the
// change between them, and the steps against the trend.
type seriesResult struct {
	name        string
	judged      bool
	first, last string
	d           diff
	class       string
	reversal    bool
}

func evalTrend(s *Spec, c *Claim, configs []DataConfig, metric string, data Data) Outcome {
	x := xOf(s)
	axis := onAxis(s)
	xs, _ := s.sweptValues(x)
	groups := map[string][]DataConfig{}
	var order []string
	for _, cf := range configs {
		if data.Stat(cf.Index, metric).N == 0 {
			continue
		}
		k := keyExcept(cf.Params, axis)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], cf)
	}
	want := 1
	if c.Trend == "decreasing" {
		want = -1
	}
	floor := c.floor()
	var series []seriesResult
	for _, k := range order {
		g := groups[k]
		sortConfigsByX(g, x, xs)
		if len(g) < 2 || sameValue(g[0].Params[x], g[len(g)-1].Params[x]) {
			continue
		}
		first, last := g[0], g[len(g)-1]
		sr := seriesResult{name: seriesName(first.Params, axis), judged: c.judges(first.Params), first: first.Params[x], last: last.Params[x]}
		sr.d = compareAt(data, last.Index, first.Index, metric)
		switch {
		case c.Trend == "flat":
			sr.class = classifySame(sr.d, floor)
		default:
			sr.class = classify(sr.d, floor, want)
			for i := 1; i < len(g); i++ {
				if classify(compareAt(data, g[i].Index, g[i-1].Index, metric), floor, want) == loss {
					sr.reversal = true
				}
			}
		}
		series = append(series, sr)
	}
	o := Outcome{}
	count := map[string]int{}
	var judged []seriesResult
	var effs []float64
	var tests []string
	for _, sr := range series {
		e, _ := sr.d.rel()
		state := trendState(c.Trend, sr)
		mark := ""
		if !sr.judged {
			mark = " (not judged)"
		}
		o.Details = append(o.Details, fmt.Sprintf("%s%s: %s→%s: %s → %s, %s (%s): %s", sr.name, mark, shortName(sr.first), shortName(sr.last),
			num(sr.d.b), num(sr.d.a), pctCI(sr.d), sr.d.test(), state))
		if !sr.judged {
			continue
		}
		judged = append(judged, sr)
		count[sr.class]++
		if sr.reversal && sr.class == win {
			count["reversal"]++
		}
		effs = append(effs, e)
		tests = append(tests, sr.d.test())
	}
	if len(judged) == 0 {
		return Outcome{Class: NotRun, Verdict: NotRun, Ours: "no series with two or more x values", Effect: "–", Test: "–", Details: o.Details}
	}
	o.Test = joinTests(tests)
	o.Effect = effectRangeOf(effs, len(judged), "series")
	n := len(judged)
	of := fmt.Sprintf("%d", n)
	if len(c.Series) > 0 || n < len(series) {
		of = fmt.Sprintf("%d judged", n)
	}
	if c.Trend == "flat" {
		o.Ours = fmt.Sprintf("flat within ±%s in %d of %s series, changing in %d, undetermined in %d", pct(floor), count[within], of, count[differs], count[tie])
		o.Class = sameVerdict(count, n)
		o.Verdict = o.Class
		return o
	}
	o.Ours = fmt.Sprintf("%s in %d of %s series (opposite: %d, flat: %d", c.Trend, count[win], of, count[loss], count[tie])
	if count[negligible] > 0 {
		o.Ours += fmt.Sprintf(", negligible: %d", count[negligible])
	}
	if count[noCI] > 0 {
		o.Ours += fmt.Sprintf(", without a CI: %d", count[noCI])
	}
	o.Ours += ")"
	if count["reversal"] > 0 {
		o.Ours += fmt.Sprintf("; %d with a step back beyond the CIs", count["reversal"])
	}
	sized := true
	if c.Change != nil {
		var rs []float64
		for _, sr := range judged {
			if r := sr.d.ratio(); !math.IsNaN(r) {
				rs = append(rs, r)
				sized = sized && SameSize(r, 1+*c.Change)
			}
		}
		if len(rs) > 0 {
			o.Ours += fmt.Sprintf("; last/first %s (paper %.3g)", rangeOf(rs, "%.3g"), 1+*c.Change)
		}
	}
	switch {
	case count[noCI] > 0:
		o.Class = NotEnough
	case count[loss] > 0:
		o.Class = Disagrees
	case count[win] == n && count["reversal"] == 0:
		o.Class = Agrees
		if !sized {
			o.Class = DifferentSize
		} else if w := c.worded(effs); w != "" {
			o.Class = DifferentSize
			o.Ours += "; " + w
		}
	case count[win] > 0:
		o.Class = Partly
	case count[negligible] > 0 && count[tie] == 0:
		o.Class = Negligible
	default:
		o.Class = NoDifference
	}
	o.Verdict = o.Class
	return o
}

// trendState says what a series does, in words.
func trendState(trend string, sr seriesResult) string {
	switch sr.class {
	case win:
		if sr.reversal {
			return trend + " overall, with a step back beyond the CIs"
		}
		return trend + " beyond the CIs"
	case loss:
		return "the opposite way beyond the CIs"
	case negligible:
		return "a change below the floor"
	case noCI:
		return "no CI (one replication)"
	case within:
		return "flat within the floor"
	case differs:
		return "changes beyond the CIs and the floor"
	}
	return "no change beyond the CIs"
}

// judges reports whether the claim judges the series of a
// configuration: it names no series, or one of its terms matches.
func (c *Claim) judges(p map[string]string) bool {
	if len(c.Series) == 0 {
		return true
	}
	for _, term := range c.Series {
		k, v, eq := strings.Cut(term, "=")
		if !eq {
			k, v = "policy", term
		}
		if sameValue(p[k], v) {
			return true
		}
	}
	return false
}

// seriesName names a series by its parameters off the x axis: the
// policy by its name, others as key=value.
func seriesName(p map[string]string, axis map[string]bool) string {
	var parts []string
	if v, ok := p["policy"]; ok {
		parts = append(parts, v)
	}
	for _, k := range sortedKeys(p) {
		if k != "policy" && !axis[k] {
			parts = append(parts, shortName(k)+"="+shortName(p[k]))
		}
	}
	return orDefault(strings.Join(parts, ", "), "the runs")
}

// sortConfigsByX orders configurations along x: numerically when every
// value is a number, else in the sweep's order of x values.
func sortConfigsByX(g []DataConfig, x string, xs []string) {
	numeric := true
	for _, cf := range g {
		numeric = numeric && !math.IsNaN(parseNum(cf.Params[x]))
	}
	if numeric {
		sort.SliceStable(g, func(i, j int) bool { return parseNum(g[i].Params[x]) < parseNum(g[j].Params[x]) })
		return
	}
	pos := func(v string) int {
		for i, w := range xs {
			if sameValue(v, w) {
				return i
			}
		}
		return len(xs)
	}
	sort.SliceStable(g, func(i, j int) bool { return pos(g[i].Params[x]) < pos(g[j].Params[x]) })
}

func evalBound(c *Claim, configs []DataConfig, metric string, data Data) Outcome {
	bound := *c.AtMost
	below, above, undetermined, noci, n := 0, 0, 0, 0, 0
	maxMean, maxHW := math.Inf(-1), math.NaN()
	o := Outcome{}
	ns := map[int]bool{}
	for _, cf := range configs {
		st := data.Stat(cf.Index, metric)
		if st.N == 0 {
			continue
		}
		n++
		ns[st.N] = true
		h := st.HalfWidth()
		state := ""
		switch {
		case math.IsNaN(h):
			noci++
			state = noCI
		case st.Mean+h <= bound:
			below++
			state = "below"
		case st.Mean-h > bound:
			above++
			state = "above"
		default:
			undetermined++
			state = "within its CI of the bound"
		}
		if st.Mean > maxMean {
			maxMean, maxHW = st.Mean, h
		}
		o.Details = append(o.Details, fmt.Sprintf("%s: %s ± %s (n=%d): %s", cf.ID, num(st.Mean), num(h), st.N, state))
	}
	if n == 0 {
		return Outcome{Class: NotRun, Verdict: NotRun, Ours: "no run", Effect: "–", Test: "–"}
	}
	o.Ours = fmt.Sprintf("at most %s at %d of %d configurations (largest %s ± %s)", num(bound), below, n, num(maxMean), num(maxHW))
	o.Effect = "–"
	var sizes []int
	for k := range ns {
		sizes = append(sizes, k)
	}
	sort.Ints(sizes)
	o.Test = "CI of the mean, n=" + intRange(sizes)
	switch {
	case noci > 0:
		o.Class = NotEnough
	case above > 0:
		o.Class = Disagrees
	case below == n:
		o.Class = Agrees
	case below > 0:
		o.Class = Partly
	default:
		o.Class = NoDifference
	}
	o.Verdict = o.Class
	return o
}

// combine writes the outcomes as one verdict: the verdict when every
// reading gives it, else "agrees under A; disagrees under B and C" in
// the readings' order (the paper's first).
func combine(outs []Outcome) string {
	if len(outs) == 0 {
		return NotRun
	}
	same := true
	for _, o := range outs {
		same = same && o.Verdict == outs[0].Verdict
	}
	if same {
		if len(outs) == 1 && outs[0].Reading != "" {
			return outs[0].Verdict + " (under " + outs[0].Reading + ")"
		}
		return outs[0].Verdict
	}
	var order []string
	under := map[string][]string{}
	byClaim := false
	for _, o := range outs {
		byClaim = byClaim || o.Class == Mixed || strings.Contains(o.Verdict, " values")
		if _, ok := under[o.Verdict]; !ok {
			order = append(order, o.Verdict)
		}
		under[o.Verdict] = append(under[o.Verdict], o.Reading)
	}
	var parts []string
	if byClaim {
		for _, o := range outs {
			parts = append(parts, "under "+o.Reading+": "+o.Verdict)
		}
		return strings.Join(parts, "; ")
	}
	for _, v := range order {
		parts = append(parts, v+" under "+joinAnd(under[v]))
	}
	return strings.Join(parts, "; ")
}

func joinAnd(xs []string) string {
	if len(xs) > 1 {
		xs = append([]string(nil), xs...)
		for i, x := range xs {
			if strings.Contains(x, ", ") {
				xs[i] = "[" + x + "]"
			}
		}
	}
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// pct formats a relative effect in percent: one decimal, or two
// significant digits when that would round a non-zero effect to 0.
func pct(e float64) string {
	if math.IsNaN(e) {
		return "–"
	}
	s := strconv.FormatFloat(100*e, 'f', 1, 64)
	if (s == "0.0" || s == "-0.0") && e != 0 {
		s = strconv.FormatFloat(100*e, 'g', 2, 64)
	}
	return s + "%"
}

// signed is pct with a sign.
func signed(e float64) string {
	s := pct(e)
	if !strings.HasPrefix(s, "-") && s != "–" {
		s = "+" + s
	}
	return s
}

// pctCI formats a difference as its relative effect and 95% CI
// half-width: "+12.8% ± 7.9%".
func pctCI(x diff) string {
	e, h := x.rel()
	if math.IsNaN(e) {
		return "relative effect – (base 0)"
	}
	if math.IsNaN(h) {
		return signed(e) + " (no CI)"
	}
	return signed(e) + " ± " + pct(h)
}

// effectRange is the relative effect of one point with its CI, or the
// range of several points' effects.
func effectRange(effs []float64, pts []point) string {
	if len(pts) == 1 {
		return pctCI(pts[0].d)
	}
	return effectRangeOf(effs, len(pts), "points")
}

func effectRangeOf(effs []float64, n int, what string) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range effs {
		if !math.IsNaN(e) {
			lo, hi = math.Min(lo, e), math.Max(hi, e)
		}
	}
	if math.IsInf(lo, 1) {
		return "–"
	}
	if lo == hi {
		return fmt.Sprintf("%s (%d %s)", signed(lo), n, what)
	}
	return fmt.Sprintf("%s … %s (%d %s)", signed(lo), signed(hi), n, what)
}

// rangeOf formats the range of xs.
func rangeOf(xs []float64, format string) string {
	lo, hi := xs[0], xs[0]
	for _, v := range xs {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	a, b := fmt.Sprintf(format, lo), fmt.Sprintf(format, hi)
	if a == b {
		return a
	}
	return a + "–" + b
}

// testsOf names the intervals of the points: "paired t, n=30" or a mix.
func testsOf(pts []point) string {
	tests := make([]string, len(pts))
	for i, p := range pts {
		tests[i] = p.d.test()
	}
	return joinTests(tests)
}

// joinTests summarises intervals: "paired t, n=20–30", "paired t, n=30
// (4 points); Welch, n=5+5 (2 points)".
func joinTests(tests []string) string {
	paired, welch := map[int]bool{}, map[string]bool{}
	np, nw := 0, 0
	var other []string
	for _, t := range tests {
		switch {
		case strings.HasPrefix(t, "paired t, n="):
			n, _ := strconv.Atoi(strings.TrimPrefix(t, "paired t, n="))
			paired[n] = true
			np++
		case strings.HasPrefix(t, "Welch, n="):
			welch[strings.TrimPrefix(t, "Welch, n=")] = true
			nw++
		case t != "–" && t != "":
			if !hasValue(other, t) {
				other = append(other, t)
			}
		}
	}
	var parts []string
	if np > 0 {
		var ns []int
		for n := range paired {
			ns = append(ns, n)
		}
		sort.Ints(ns)
		parts = append(parts, "paired t, n="+intRange(ns))
	}
	if nw > 0 {
		ws := sortedKeys(welch)
		w := "Welch, n=" + ws[0]
		if len(ws) > 1 {
			w += "…" + ws[len(ws)-1]
		}
		parts = append(parts, w)
	}
	if np > 0 && nw > 0 {
		parts[0] += fmt.Sprintf(" (%d)", np)
		parts[1] += fmt.Sprintf(" (%d)", nw)
	}
	parts = append(parts, other...)
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, "; ")
}

func intRange(ns []int) string {
	if len(ns) == 0 {
		return "–"
	}
	if ns[0] == ns[len(ns)-1] {
		return strconv.Itoa(ns[0])
	}
	return strconv.Itoa(ns[0]) + "–" + strconv.Itoa(ns[len(ns)-1])
}

func itoa(i int) string { return strconv.Itoa(i) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
