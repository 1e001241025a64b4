package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
)

// session is what one command line's run tells the interrupt handler:
// a note on what was kept and how to go on, kept current by the command.
type session struct {
	mu   sync.Mutex
	note func() string
}

type sessionKey struct{}

// context attaches the session to ctx (the commands find it there).
func (s *session) context(ctx context.Context) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// sessionOf is the session of a command (a throwaway one if none: the
// in-process tests).
func sessionOf(cmd *cobra.Command) *session {
	if ctx := cmd.Context(); ctx != nil {
		if s, ok := ctx.Value(sessionKey{}).(*session); ok {
			return s
		}
	}
	return &session{}
}

// setNote sets what an interrupt prints (nil: nothing particular).
func (s *session) setNote(f func() string) {
	s.mu.Lock()
	s.note = f
	s.mu.Unlock()
}

func (s *session) noteText() string {
	s.mu.Lock()
	f := s.note
	s.mu.Unlock()
	if f == nil {
		return ""
	}
	return f()
}

// onInterrupt handles Ctrl-C (SIGINT) and SIGTERM: it prints the
// session's note (what was kept and how to go on) and exits with status
// 130. Result stores lose nothing committed (as under SIGKILL); files
// being written are never left half-written (internal/atomicfile).
func (s *session) onInterrupt(w io.Writer, exit func(int)) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			msg := "interrupted (" + sig.String() + ")"
			if n := s.noteText(); n != "" {
				msg += ": " + n
			}
			fmt.Fprintf(w, "\ngridsched: %s\n", msg)
			exit(exitInterrupted)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// shellQuote quotes s for a POSIX shell: unchanged when it holds only
// characters no shell treats specially, else in single quotes (a single
// quote inside becomes '\”). Every value written into a generated
// script or a command suggested to the user goes through it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@%") == "" && s[0] != '-' {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellLine joins a command's words, each quoted.
func shellLine(words ...string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}
