package experiment

import (
	"fmt"
	"os"

	"github.com/gridsched/gridsched/internal/yamlx"
	"github.com/gridsched/gridsched/model"
)

// fileErrors finds the files a spec names itself — workload.trace, the
// trace of the trace-reservations model (workload.params.trace),
// platform.file, and every value of a grid or zip list that sets one of
// them — and reports each that cannot be found (a trace) or read (a
// platform file) at the position of its name in the spec. With a label
// applied, a section the label replaced is looked up under labels.
func (s *Spec) fileErrors(sc *yamlx.Schema) []error {
	var errs []error
	check := func(path, name string, trace bool) {
		if name == "" {
			return
		}
		if trace {
			if _, err := s.FindTrace(name); err != nil {
				errs = append(errs, sc.At(path, "%v", err))
			}
			return
		}
		p := s.resolvePath(name, false)
		data, err := os.ReadFile(p)
		if err == nil {
			_, err = model.ParsePlatform(p, data)
		}
		if err != nil {
			errs = append(errs, sc.At(path, "%v", err))
		}
	}
	varied := func(k string) bool { return s.Grid[k] != nil || s.Zip[k] != nil } // then the base value is never read
	w := s.writtenAt("workload")
	if s.Workload.Model == "" && !varied("workload.trace") {
		check(w+".trace", s.Workload.Trace, true)
	}
	if f, ok := s.Workload.Params["trace"].(string); ok && s.Workload.Model == "trace-reservations" && !varied("workload.params.trace") {
		check(w+".params.trace", f, true)
	}
	if !varied("platform.file") {
		check(s.writtenAt("platform")+".file", s.Platform.File, false)
	}
	for _, part := range []struct {
		name string
		m    map[string][]any
	}{{s.writtenAt("grid"), s.Grid}, {s.writtenAt("zip"), s.Zip}} {
		for _, k := range sortedKeys(part.m) {
			trace := k == "workload.trace" || k == "workload.params.trace"
			if !trace && k != "platform.file" {
				continue
			}
			for i, v := range part.m[k] {
				if name, ok := v.(string); ok {
					check(fmt.Sprintf("%s.%s[%d]", part.name, k, i), name, trace)
				}
			}
		}
	}
	return errs
}
