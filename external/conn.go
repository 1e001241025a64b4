package external

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// MaxMessage is the longest line either side may send (64 MiB): a
// decision that starts every job of a 10⁶-job queue fits.
const MaxMessage = 64 << 20

// Conn is one scheduler's side of the protocol: lines out, lines in.
type Conn interface {
	// Send writes one message (a line ending in '\n').
	Send(msg []byte) error
	// Recv returns the next line without its '\n'; the slice is valid
	// until the next Recv.
	Recv() ([]byte, error)
	// Close ends the conversation: gracefully (the run is over: the
	// scheduler is told by end of input and given its timeout to exit)
	// or not (it is stopped at once). It never leaves a process behind.
	Close(graceful bool) error
	// Describe names the scheduler in messages.
	Describe() string
	// Stderr is the end of what the scheduler wrote on its standard
	// error (empty when there is none to show).
	Stderr() string
}

// errTimeout is wrapped by a Send or Recv that ran out of time.
var errTimeout = errors.New("timed out")

// timeout is a Send or Recv that ran out of time: its message says how.
type timeout string

func (t timeout) Error() string        { return string(t) }
func (t timeout) Is(target error) bool { return target == errTimeout }

// tail keeps the last bytes written to it (a process's standard error),
// copying them to file if set.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	file *os.File
}

const tailBytes = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.file != nil {
		t.file.Write(p)
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tail) closeFile() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.file != nil {
		t.file.Close()
		t.file = nil
	}
}

// String is the last lines written (at most 20 lines, 4 KiB).
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 20 {
		lines = lines[len(lines)-20:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// stream is the protocol over a reader and a writer that gridsched does
// not own (gridsched serve: its own standard input and output).
type stream struct {
	rd   *bufio.Reader
	w    io.Writer
	line []byte
	name string
}

// NewStream returns a Conn over r and w (no timeout: the other side
// drives the conversation; Close does nothing).
func NewStream(r *bufio.Reader, w io.Writer, name string) Conn {
	return &stream{rd: r, w: w, name: name}
}

func (s *stream) Send(msg []byte) error { _, err := s.w.Write(msg); return err }

func (s *stream) Recv() ([]byte, error) {
	s.line = s.line[:0]
	for {
		frag, err := s.rd.ReadSlice('\n')
		if err == nil {
			s.line = append(s.line, frag[:len(frag)-1]...)
			return s.line, nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			s.line = append(s.line, frag...)
			if len(s.line) > MaxMessage {
				return nil, fmt.Errorf("a message longer than %d bytes (no newline)", MaxMessage)
			}
			continue
		}
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the scheduler closed the input")
		}
		return nil, err
	}
}

func (s *stream) Close(bool) error { return nil }
func (s *stream) Describe() string { return s.name }
func (s *stream) Stderr() string   { return "" }

// quoteArgv writes a command as a shell would need it to get the same
// words (for messages).
func quoteArgv(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == ':' || r == ',' || r == '+' ||
				(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
		}) < 0 {
			q[i] = a
			continue
		}
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// clip shortens b to at most n bytes for a message, marking the cut.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + fmt.Sprintf("… (%d bytes)", len(b))
}
