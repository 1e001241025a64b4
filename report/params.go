package report

import (
	"strings"
	"unicode"

	"github.com/gridsched/gridsched/gen"
	"github.com/gridsched/gridsched/system"
)

// specParams name the parameters an experiment spec itself defines (its
// own keys, not a system's section or a workload model's parameters).
var specParams = map[string]string{
	"platform.nodes":         "nodes",
	"platform.unstable":      "unstable nodes",
	"platform.p_unstable":    "stability p of unstable nodes",
	"platform.pes":           "processors per node",
	"workload.arrival_scale": "inter-arrival time scale factor",
	"workload.jobs":          "jobs",
	"workload.trace":         "trace",
	"workload.skip":          "trace records skipped (window start)",
	"workload.estimates":     "runtime estimates",
	"node_select":            "node selection",
	"policy":                 "policy",
	"overrun":                "overrun rule",
}

// SpecParams lists the parameter keys of the spec itself that have a
// label (for tests).
func SpecParams() []string {
	var out []string
	for k := range specParams {
		out = append(out, k)
	}
	return out
}

// ParamDefinition is the label a parameter's definition gives it, and
// whether one does: the spec's own keys (specParams), a workload model's
// parameter (workload.params.KEY: the `label` tag of the model's
// parameter field, so λ reads "arrival rate" for the gang model and "mean
// interval between requests" for the reservation models), or a system's
// section parameter (system.ParamLabel).
func ParamDefinition(key, model string) (string, bool) {
	if l, ok := specParams[key]; ok {
		return l, true
	}
	if rest, ok := strings.CutPrefix(key, "workload.params."); ok {
		return gen.ParamLabel(model, rest)
	}
	return system.ParamLabel(key)
}

// ParamLabel is the axis label of parameter key in a sweep of workload
// model model ("" for a trace): its definition's label, else the key
// made readable.
func ParamLabel(key, model string) string {
	if l, ok := ParamDefinition(key, model); ok {
		return l
	}
	key = strings.TrimPrefix(strings.TrimPrefix(key, "workload.params."), "workload.")
	return strings.ReplaceAll(key, "_", " ")
}

// ParamShort is the short name of a parameter for legends and panel
// titles ("λ = 2", "XFactor = 10"): the symbol its label names (a single
// or Greek letter, a letter with a digit, an acronym of three or more
// capitals), else its label without the parenthesised unit.
func ParamShort(key, model string) string {
	l := ParamLabel(key, model)
	if i := strings.Index(l, " ("); i > 0 {
		l = l[:i]
	}
	for _, w := range strings.Fields(l) {
		if isSymbol(w) {
			return w
		}
	}
	return l
}

func isSymbol(w string) bool {
	rs := []rune(w)
	switch {
	case len(rs) == 1:
		return w != "a" && unicode.IsLetter(rs[0])
	case len(rs) == 2:
		return unicode.IsLetter(rs[0]) && unicode.IsDigit(rs[1])
	}
	for _, r := range rs {
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return len(rs) >= 3
}
