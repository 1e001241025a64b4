package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/internal/yamlx"
	"github.com/gridsched/gridsched/swf"
	"github.com/gridsched/gridsched/system"
)

// Exit statuses, for scripts (in the root command's help and the README).
const (
	exitInternal    = 1   // gridsched or the system failed: a bug, a full disk, a damaged store
	exitUsage       = 2   // the command line is wrong: a command, flag or flag value
	exitInput       = 3   // an input cannot be used: a spec, trace, platform, model file or store
	exitRunFailed   = 4   // a run failed for a reason of its own (an external scheduler); the others are stored
	exitInterrupted = 130 // stopped by Ctrl-C (SIGINT) or SIGTERM
)

const exitStatusHelp = `Exit status: 0 success; 1 internal failure (a bug, a full disk, a damaged
store); 2 usage error (unknown command or flag, a refused flag value); 3 bad
input (a spec, trace, platform, model file or store that cannot be used, with
its file, line and column); 4 a run failed for a reason of its own (an
external scheduler crashed, timed out or broke the protocol: every other run
is stored, --resume retries it); 130 interrupted (Ctrl-C).`

// statusError is an error with the exit status it deserves.
type statusError struct {
	code int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// usageError marks err as a usage error (exit status 2).
func usageError(err error) error {
	if err == nil {
		return nil
	}
	return &statusError{exitUsage, err}
}

// usagef is a usage error from a format.
func usagef(format string, args ...any) error { return usageError(fmt.Errorf(format, args...)) }

// inputError marks err as bad input (exit status 3), unless it is
// already classified, is a simulation engine's refusal of a policy's
// plan (a bug: internal) or a run's own failure (an external scheduler:
// 4).
func inputError(err error) error {
	var se *statusError
	if err == nil || errors.As(err, &se) || errors.Is(err, engine.ErrInvalidPlan) || errors.Is(err, system.ErrRunFailed) {
		return err
	}
	return &statusError{exitInput, err}
}

// exitStatus is the exit status for an error of a command.
func exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var se *statusError
	if errors.As(err, &se) {
		return se.code
	}
	if errors.Is(err, system.ErrRunFailed) {
		return exitRunFailed // an external scheduler's invalid action too: its fault, not gridsched's
	}
	if errors.Is(err, engine.ErrInvalidPlan) {
		return exitInternal
	}
	// cobra's own errors: an unknown command (the others are classified
	// where they arise, see classifyUsage).
	if strings.HasPrefix(err.Error(), "unknown command ") {
		return exitUsage
	}
	var issue *yamlx.Issue
	var rec *swf.Error
	var run *experiment.RunError
	switch {
	case errors.As(err, &issue), errors.As(err, &rec),
		errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission),
		errors.Is(err, experiment.ErrStoreExists), errors.Is(err, experiment.ErrLocked),
		errors.Is(err, experiment.ErrChanged), errors.Is(err, experiment.ErrForeignStore):
		return exitInput
	case errors.As(err, &run):
		return exitInput // a run refused its configuration (engine plan errors are above)
	}
	return exitInternal
}

// classifyUsage makes the errors cobra finds in a command line (flags
// that do not parse, unknown flags, wrong argument counts) usage errors,
// for every command under root.
func classifyUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if args := c.Args; args != nil {
			c.Args = func(cmd *cobra.Command, a []string) error { return usageError(args(cmd, a)) }
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
