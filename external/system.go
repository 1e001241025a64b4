package external

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/internal/buildinfo"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/system"
)

// Name is the policy name of an external scheduler.
const Name = "external"

// Defaults of the section's parameters.
const (
	DefaultTimeout  = 60.0    // wall seconds per answer
	DefaultDeadlock = 86400.0 // simulated seconds of an idle machine with a job that fits
)

// Params are the spec's external section (and simulate's --scheduler
// flags): which scheduler to run and how to watch it.
type Params struct {
	// Command is the scheduler's command line, split into words as a
	// shell would (quotes, backslashes) but never run through a shell. In
	// a spec, a word that names a file next to the spec is that file.
	Command string `yaml:"command" json:"command"`
	// Timeout: wall seconds the scheduler has for each answer and to
	// exit at the end (0: DefaultTimeout).
	Timeout float64 `yaml:"timeout" json:"timeout,omitempty" range:"[0,]"`
	// Deadlock: simulated seconds the machine may stay idle while a
	// waiting job would fit (0: DefaultDeadlock).
	Deadlock float64 `yaml:"deadlock" json:"deadlock,omitempty" range:"[0,]"`
	// Oracle sends every job's actual run time to the scheduler.
	Oracle bool `yaml:"oracle" json:"oracle,omitempty"`
	// Stderr: a file the scheduler's standard error is appended to
	// (default: only its last lines are kept, for error messages).
	Stderr string `yaml:"stderr" json:"stderr,omitempty"`

	// Dial, when set, replaces the command (gridsched serve: the
	// scheduler is the client on gridsched's own standard input and
	// output).
	Dial func() (Conn, error) `yaml:"-" json:"-"`

	argv []string
}

func init() {
	system.Register(&system.System{
		Name:         "external",
		Description:  "a scheduler in another process, over the decision protocol (docs/protocol.md)",
		Order:        50,
		Section:      "external",
		NewParams:    func() any { return &Params{} },
		Prepare:      prepare,
		MaybeFiles:   true, // the command's words: a script named is an input
		Flags:        flags,
		Policies:     []system.Policy{{Name: Name, Description: "the scheduler of the external section (simulate --scheduler CMD): any program that speaks the decision protocol on its standard input and output"}},
		NeedsSection: true,
		ParamLabels:  map[string]string{"command": "scheduler"},
		Attach:       attach,
	})
}

// prepare checks the parameters, applies the defaults and splits the
// command; a word that names a file relative to the spec's folder
// becomes that file's path.
func prepare(v any, resolve func(string) string) (any, error) {
	p := *v.(*Params)
	if p.Timeout == 0 {
		p.Timeout = DefaultTimeout
	}
	if p.Deadlock == 0 {
		p.Deadlock = DefaultDeadlock
	}
	if !(p.Timeout > 0) || math.IsInf(p.Timeout, 0) {
		return nil, fmt.Errorf("timeout: want a positive number of seconds, got %g", p.Timeout)
	}
	if !(p.Deadlock > 0) || math.IsInf(p.Deadlock, 0) {
		return nil, fmt.Errorf("deadlock: want a positive number of simulated seconds, got %g", p.Deadlock)
	}
	if p.Dial != nil {
		return &p, nil
	}
	if p.Command == "" {
		return nil, errors.New("command: the scheduler's command line is missing (e.g. command: python3 my_scheduler.py)")
	}
	argv, err := SplitCommand(p.Command)
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	if resolve != nil {
		for i, w := range argv {
			if r := resolve(w); r != "" {
				argv[i] = r
			}
		}
	}
	if p.Stderr != "" && resolve != nil {
		p.Stderr = resolve(p.Stderr)
	}
	p.argv = argv
	return &p, nil
}

func flags(fs *pflag.FlagSet) func(func(string) bool) (any, error) {
	cmd := fs.String("scheduler", "", `with --policy external: the scheduler's command line, e.g. "python3 python/examples/easy.py" (split like a shell would, never run through one)`)
	timeout := fs.Float64("scheduler-timeout", DefaultTimeout, "with --scheduler: wall seconds the scheduler has for each answer")
	deadlock := fs.Float64("scheduler-deadlock", DefaultDeadlock, "with --scheduler: simulated seconds the machine may stay idle while a waiting job would fit")
	stderr := fs.String("scheduler-stderr", "", "with --scheduler: append the scheduler's standard error to this file")
	oracle := fs.Bool("oracle", false, "with --scheduler: tell the scheduler every job's actual run time")
	return func(changed func(string) bool) (any, error) {
		if !changed("scheduler") {
			for _, f := range []string{"scheduler-timeout", "scheduler-deadlock", "scheduler-stderr", "oracle"} {
				if changed(f) {
					return nil, fmt.Errorf("--%s: needs --scheduler (and --policy external)", f)
				}
			}
			return nil, nil
		}
		if *cmd == "" {
			return nil, errors.New("--scheduler: empty command")
		}
		for _, c := range []struct {
			name string
			v    float64
		}{{"scheduler-timeout", *timeout}, {"scheduler-deadlock", *deadlock}} {
			if !(c.v > 0) || math.IsInf(c.v, 0) {
				return nil, fmt.Errorf("--%s: want a positive number of seconds, got %g", c.name, c.v)
			}
		}
		return &Params{Command: *cmd, Timeout: *timeout, Deadlock: *deadlock, Stderr: *stderr, Oracle: *oracle}, nil
	}
}

func attach(r *system.Run, prepared any) error {
	if r.Policy != Name {
		return nil
	}
	if prepared == nil {
		return errors.New("needs an external section (simulate: --scheduler CMD)")
	}
	p := prepared.(*Params)
	overrun := "kill"
	if r.Overrun == engine.OverrunExtend {
		overrun = "extend"
	}
	o := Options{
		Timeout:  time.Duration(p.Timeout * float64(time.Second)),
		Deadlock: p.Deadlock, Oracle: p.Oracle, Overrun: overrun, Workload: r.Workload,
		Version: buildinfo.Identity(),
	}
	dial := p.Dial
	if dial == nil {
		dial = Command(p.argv, o.Timeout, p.Stderr)
	}
	r.NewPolicy = func(sel policy.NodeSelector) (engine.Policy, error) {
		return New(dial, sel, o), nil
	}
	return nil
}

// Schema is the protocol's JSON Schema (protocol.schema.json): every
// message of both sides, and gridsched serve's.
//
//go:embed protocol.schema.json
var Schema []byte
