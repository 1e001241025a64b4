//go:build unix

package external

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// child is a scheduler running as a child process, its standard input
// and output connected to gridsched by pipes. gridsched's ends are
// non-blocking descriptors it waits on with poll(2): one system call
// waits for the answer or the timeout, without the runtime's poller (a
// decision is a round trip, and the poller's hand-offs cost more than
// the message).
type child struct {
	argv    []string
	cmd     *exec.Cmd
	inFd    int // writes to the scheduler's standard input
	outFd   int // reads its standard output
	buf     []byte
	r, w    int // buf[r:w] is read and not yet returned
	scan    int // buf[r:scan] holds no newline
	timeout time.Duration
	errs    *tail
	waited  chan struct{}
	waitErr error
	closed  bool
}

// startChild starts argv with its standard input and output on pipes and
// its standard error kept (the last lines) and appended to stderrFile if
// set. The process gets its own process group, which is killed whole when
// the conversation ends, and (on Linux) is killed if gridsched dies.
func startChild(argv []string, timeout time.Duration, stderrFile string) (*child, error) {
	c := &child{argv: argv, timeout: timeout, errs: &tail{}, waited: make(chan struct{}), buf: make([]byte, 64<<10), inFd: -1, outFd: -1}
	if stderrFile != "" {
		f, err := os.OpenFile(stderrFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("scheduler's standard error: %w", err)
		}
		c.errs.file = f
	}
	var in, out [2]int
	if err := pipe(in[:]); err != nil {
		c.errs.closeFile()
		return nil, err
	}
	if err := pipe(out[:]); err != nil {
		unix.Close(in[0])
		unix.Close(in[1])
		c.errs.closeFile()
		return nil, err
	}
	inR, outW := os.NewFile(uintptr(in[0]), "scheduler stdin"), os.NewFile(uintptr(out[1]), "scheduler stdout")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.errs
	cmd.SysProcAttr = procAttr()
	cmd.WaitDelay = 2 * time.Second // a grandchild holding stderr open cannot hold Wait
	err := cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		unix.Close(in[1])
		unix.Close(out[0])
		c.errs.closeFile()
		return nil, fmt.Errorf("cannot start scheduler %s: %w", quoteArgv(argv), err)
	}
	c.cmd, c.inFd, c.outFd = cmd, in[1], out[0]
	unix.SetNonblock(c.inFd, true)
	unix.SetNonblock(c.outFd, true)
	go func() {
		c.waitErr = cmd.Wait()
		c.errs.closeFile()
		close(c.waited)
	}()
	return c, nil
}

func (c *child) Describe() string {
	if c.cmd != nil && c.cmd.Process != nil {
		return fmt.Sprintf("scheduler %s (pid %d)", quoteArgv(c.argv), c.cmd.Process.Pid)
	}
	return "scheduler " + quoteArgv(c.argv)
}

// wait polls fd for events until the deadline (zero: none); false when
// the deadline passed.
func wait(fd int, events int16, deadline time.Time) (bool, error) {
	for {
		ms := -1
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return false, nil
			}
			ms = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: events}}
		n, err := unix.Poll(fds, ms)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false, err
		}
		if n > 0 {
			return true, nil // readable, writable, or hung up: the next call says which
		}
	}
}

func (c *child) deadline() time.Time {
	if c.timeout <= 0 {
		return time.Time{}
	}
	return time.Now().Add(c.timeout)
}

func (c *child) Send(msg []byte) error {
	var dl time.Time
	for len(msg) > 0 {
		n, err := unix.Write(c.inFd, msg)
		if n > 0 {
			msg = msg[n:]
			continue
		}
		switch err {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			if dl.IsZero() {
				dl = c.deadline()
			}
			ok, perr := wait(c.inFd, unix.POLLOUT, dl)
			if perr != nil {
				return perr
			}
			if !ok {
				return timeout(fmt.Sprintf("the scheduler read nothing for %v (its input is full)", c.timeout))
			}
			continue
		case unix.EPIPE:
			return c.exited("closed its standard input")
		}
		return err
	}
	return nil
}

func (c *child) Recv() ([]byte, error) {
	dl := c.deadline()
	for {
		if i := bytes.IndexByte(c.buf[c.scan:c.w], '\n'); i >= 0 {
			end := c.scan + i
			line := c.buf[c.r:end]
			c.r, c.scan = end+1, end+1
			return line, nil
		}
		c.scan = c.w
		if c.w == len(c.buf) {
			if c.r > 0 {
				copy(c.buf, c.buf[c.r:c.w])
				c.w -= c.r
				c.scan -= c.r
				c.r = 0
			} else if len(c.buf) >= MaxMessage {
				return nil, fmt.Errorf("a message longer than %d bytes (no newline)", MaxMessage)
			} else {
				nb := make([]byte, 2*len(c.buf))
				copy(nb, c.buf[:c.w])
				c.buf = nb
			}
		}
		if c.r == c.w {
			c.r, c.w, c.scan = 0, 0, 0
		}
		ok, err := wait(c.outFd, unix.POLLIN, dl)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, timeout(fmt.Sprintf("no answer within %v", c.timeout))
		}
		n, err := unix.Read(c.outFd, c.buf[c.w:])
		switch {
		case n > 0:
			c.w += n
		case err == unix.EAGAIN || err == unix.EINTR:
		case err != nil:
			return nil, err
		default: // end of file
			if c.w > c.r {
				return nil, c.exited(fmt.Sprintf("closed its standard output in the middle of a message (%q)", clip(c.buf[c.r:c.w], 80)))
			}
			return nil, c.exited("closed its standard output")
		}
	}
}

// exited explains why the scheduler stopped talking: it waits a moment
// for the process to end and reports its exit status.
func (c *child) exited(what string) error {
	select {
	case <-c.waited:
	case <-time.After(time.Second):
		return fmt.Errorf("the scheduler %s but is still running", what)
	}
	if c.waitErr == nil {
		return fmt.Errorf("the scheduler %s and exited with status 0 before the run ended", what)
	}
	var ee *exec.ExitError
	if errors.As(c.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Errorf("the scheduler %s: it was killed by signal %d (%v)", what, int(ws.Signal()), ws.Signal())
		}
		return fmt.Errorf("the scheduler %s: it exited with status %d", what, ee.ExitCode())
	}
	return fmt.Errorf("the scheduler %s: %v", what, c.waitErr)
}

func (c *child) Close(graceful bool) error {
	if c.closed {
		return nil
	}
	c.closed = true
	pid := c.cmd.Process.Pid
	if graceful {
		unix.Close(c.inFd) // end of input: a scheduler's read loop ends
		c.inFd = -1
		t := c.timeout
		if t <= 0 {
			t = 10 * time.Second
		}
		select {
		case <-c.waited:
		case <-time.After(t):
		}
	}
	// The whole process group, so that nothing the scheduler started is
	// left behind; then reap.
	syscall.Kill(-pid, syscall.SIGKILL)
	if c.inFd >= 0 {
		unix.Close(c.inFd)
		c.inFd = -1
	}
	<-c.waited
	unix.Close(c.outFd)
	c.outFd = -1
	return nil
}

func (c *child) Stderr() string { return c.errs.String() }
